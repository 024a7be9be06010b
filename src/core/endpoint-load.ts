/**
 * What the engine knows about one endpoint: calls in flight and the RTT
 * estimate. One instance per endpoint, owned by the balancer and kept across
 * address-list updates, so an endpoint's history survives re-resolution.
 */

/** How a call ended, as far as latency accounting cares. */
export enum CallOutcome {
  /** The call completed (any status the server chose to send, except those below). */
  SUCCESS,
  /** The endpoint failed the call (UNAVAILABLE, INTERNAL, ...): maybe very fast, never good. */
  FAILURE,
  /** The deadline ended the call: the endpoint was at least this slow. */
  DEADLINE_EXCEEDED,
  /** The client gave up: says nothing about the endpoint. */
  CANCELLED,
  /**
   * Another attempt of the same call answered first (a hedge that lost the
   * race): the endpoint had not answered after the elapsed time, a lower
   * bound on its latency, as a deadline is.
   */
  OUTLASTED,
  /**
   * The server shed the call for want of capacity (RESOURCE_EXHAUSTED: grpcio's
   * maximum_concurrent_rpcs, a concurrency limiter): a failure like FAILURE
   * in every respect, and also word that the endpoint is full now (shed.ts).
   */
  SHED,
}

/** Whether `outcome` is the endpoint's failure (the error penalty's, the probe back-off's). */
export function isFailure(outcome: CallOutcome): boolean {
  return outcome === CallOutcome.FAILURE || outcome === CallOutcome.SHED;
}

export class EndpointLoad {
  /** Calls started and not yet ended. */
  outstanding = 0;
  /**
   * The calls in flight weighted by their method's weight (methods.ts), as
   * the engine counted them at their start; equal to `outstanding` when
   * every call has weight 1. Kept by the engine.
   */
  outstandingWork = 0;
  /**
   * Calls picked for this endpoint that have not started yet, and their
   * weight. grpc-js starts a call (and so `callStarted`) a promise turn or
   * more after its pick, so every pick of a burst placed in one tick would
   * see the endpoint as the first did: a new endpoint at cost 0 took most
   * of a fan-out. Kept by the picker (src/policy/pick-turn.ts), which
   * forgets the picks that never started at the end of the event-loop
   * turn; always 0 where picks start at once (the simulator).
   */
  picked = 0;
  pickedWork = 0;
  /** The estimate as of `sampledAtMs`; meaningless until `hasSample`. */
  rttMs = 0;
  /** When the last RTT sample was taken (monotonic ms). */
  sampledAtMs = 0;
  /** The balancer's calls and fair shares started when the last RTT sample was taken (traffic.ts `stampSample`). */
  sampledAtCall = 0;
  sampledAtShares = 0;
  hasSample = false;
  /**
   * A plain moving average of the answers, for `ejectionSignal` "mean"
   * (mean.ts) and the rotation's gate (rotation.ts); meaningless until
   * `hasMean`, which comes later than `hasSample` for an endpoint whose
   * first calls failed (a failure is the error penalty's sample, not an
   * answer M takes).
   */
  meanRttMs = 0;
  /**
   * The answers M averages since its last probe, each counted by its
   * weight (methods.ts `answerWeight`; whole numbers with one method), at
   * most 8: the next one weighs weight/(this + weight) (mean.ts).
   */
  meanSamples = 0;

  /**
   * Whether its only answer so far is its first, which counts as at most
   * the gate's line and is replaced by the second (first-answer.ts).
   */
  provisional = false;

  /**
   * Fair shares of the balancer's calls started before its first call, and
   * ms since the balancer's first call (NaN before it): whether it joined a
   * running fleet (slow-start.ts).
   */
  firstCallAtShares = NaN;
  firstCallAfterMs = NaN;
  /** When its slow start ends (monotonic ms; −Infinity: none), and the credit that spaces its turns (slow-start.ts). */
  slowStartEndsMs = -Infinity;
  slowStartCredit = 0;
  /** Answers over the ejection line in a row in its slow start: the failed probes its back-off resumes from once the window is over (slow-start.ts). */
  slowStartSlowAnswers = 0;
  /** Back READY after long enough away to be a joiner again, its first call since not yet ended (slow-start.ts `noteReturn`). */
  returned = false;
  /** It has come back so at least once: a process restarted in place, whose slowness in its window is warm-up (slow-start.ts). */
  restartedInPlace = false;
  /** When its latest call ran out its deadline (monotonic ms; −Infinity: none yet): a joiner drowning, not warming (slow-start.ts). */
  timedOutAtMs = -Infinity;

  /** Whether M has taken an answer: until then `meanRttMs` is no mean, not a 0 ms one. */
  get hasMean(): boolean {
    return this.meanSamples > 0;
  }
  /**
   * Failed calls (errors; deadlines and cancels do not count) since its last
   * success, and with `ejectionSignal` "mean" answers that left it ejected:
   * the probe back-off's count.
   */
  consecutiveFailures = 0;
  /**
   * Whether the last call that raised `consecutiveFailures` was an error
   * (else an answer that left it ejected); a deadline or a cancel in
   * between leaves it as it is, as it leaves the count (probe-backoff.ts).
   */
  lastFailureWasError = false;
  /**
   * `consecutiveFailures` when a probe last restarted M (mean.ts): the
   * back-off that probe's answer suspended, resumed if M ejects the
   * endpoint again before it has a full window (probe-backoff.ts).
   */
  failuresBeforeProbe = 0;
  /**
   * When its current run of failures in a row began (monotonic ms; NaN:
   * none yet), a run that resumes a suspended back-off keeping the onset
   * it had (probe-backoff.ts `countFailures`): the onset of its fault,
   * which shared-recovery.ts compares.
   */
  failingSinceMs = NaN;
  /** `failingSinceMs` when a probe last restarted M, kept with `failuresBeforeProbe`: the onset of the fault that probe ended or suspended. */
  onsetBeforeProbeMs = NaN;
  /** The balancer's returns (shared-recovery.ts) as of its last sample: news it has seen. */
  returnsSeen = 0;
  /** The onset of the fault for which a return's news last made it due (shared-recovery.ts): once per fault. */
  newsTakenForOnsetMs = NaN;
  /** When its last failed call ended (monotonic ms; -Infinity: never), for the rotation's gate. */
  failedAtMs = -Infinity;
  /** When it last shed a call (monotonic ms; -Infinity: none since its last answer to a later call): shed.ts. */
  shedAtMs = -Infinity;
  /**
   * The ejection budget's ranking that kept it out of a tie at the edge of
   * the budget (ejection-budget.ts `tiedOut`); 0: none.
   */
  tiedOutAtRanking = 0;
  /** Calls started on this endpoint over its lifetime (for stats). */
  callsStarted = 0;
  /**
   * While calls are in flight: a time at or after which the oldest of them
   * started — when the endpoint last went from idle to busy, or its last
   * answer (every call still in flight then had started before it). So
   * `now - busySinceMs` is a lower bound on how long the endpoint has kept a
   * call waiting. Maintained by the engine, which has the clock.
   */
  busySinceMs = 0;

  /**
   * The calls this client has put on the endpoint: started, or picked and
   * about to start. What a pick counts as the endpoint's calls in flight.
   */
  get committed(): number {
    return this.outstanding + this.picked;
  }

  /** `committed` weighted by method (methods.ts). */
  get committedWork(): number {
    return this.outstandingWork + this.pickedWork;
  }

  /** A pick chose it for a call (of weight `callWeight`) that has not started yet. */
  callPicked(callWeight: number): void {
    this.picked++;
    this.pickedWork += callWeight;
  }

  /** A call picked by `callPicked` started, or its pick was given up: it is no longer only picked. */
  pickSettled(callWeight: number): void {
    if (this.picked > 0) {
      this.picked--;
      this.pickedWork = workLeft(this.pickedWork, callWeight, this.picked);
    }
  }

  /** Forgets every pick not yet settled (the end of an event-loop turn). */
  forgetPicks(): void {
    this.picked = 0;
    this.pickedWork = 0;
  }

  callStarted(): void {
    this.outstanding++;
    this.callsStarted++;
  }

  /** Ends a call; a second end for the same call must never happen (callers guard). */
  callFinished(): void {
    if (this.outstanding > 0) {
      this.outstanding--;
    }
  }
}

/**
 * The weight of calls left once one weighing `callWeight` is gone and
 * `callsLeft` remain: exactly 0 with none, since sums of weights other than
 * 1 do not cancel exactly in floating point (in flight and picked alike).
 */
export function workLeft(work: number, callWeight: number, callsLeft: number): number {
  return callsLeft === 0 ? 0 : Math.max(0, work - callWeight);
}
