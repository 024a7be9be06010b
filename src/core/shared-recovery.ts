/**
 * A fault that several endpoints went into together ends for all of them
 * together: when one of them comes back, the others' probes are due at once.
 *
 * Why. Pods on one node, behind one noisy neighbour, in one zone slow down
 * and heal as a group (the reference suite's s10: four pods at half speed
 * for 40 s). Each was ejected on its mean (ejection.ts) and probed on its
 * own backed-off interval (probe-backoff.ts: up to 8 × 10 fair shares of
 * the client's calls, 1.23 s at the reference's ~1,300 calls/s), so each
 * client took each pod back at that pod's next probe, up to an interval
 * after the heal, and an interval later again when that probe met a pod
 * still draining the queue other clients had left it. The healed pods
 * lacked 0.76 s of their fair share over the 5 s after the fault (10
 * seeds), and one seed in ten took 5 s against the 4 s target
 * (docs/tuning-log.md §56). The first of them to come back is news about
 * the others.
 *
 * The rule. An endpoint *comes back* when, re-admitted by a probe from a
 * fault of slow answers (not errors) that lasted — at least
 * SUSTAINED_FAILURES failed probes in a row and SUSTAINED_T ×
 * `maxEjectionMs` since its onset — it ends its probation (mean.ts: a
 * window of answers) with its mean M at most TYPICAL_RATIO × F. Then each
 * endpoint ejected for slow answers (not for errors: a crash loop is its
 * own) whose fault began within MAX_ONSET_GAP_T × `maxEjectionMs` of the
 * returning one's is stale at once (staleness.ts), so its next turn is its
 * probe, even within `maxEjectionMs` of its last one; once per return,
 * since any sample of it reads the news as seen, and once per fault: an
 * endpoint the news made due and whose fault goes on (its onset holds) is
 * not made due by the next return of that fault. A fault's onset is where
 * its run of failed probes began, and a run that resumes a back-off a
 * lucky probe suspended keeps it (probe-backoff.ts `countFailures`).
 *
 * Why the guards. A noisy neighbour (median 2 × F, σ 0.8) re-admitted on a
 * lucky answer rarely keeps M under 1.2 × F for a window of answers; a
 * healed pod's M sits near F. One stall at a client with many calls out
 * gives one pod several slow answers in a millisecond, each a failed probe,
 * and the pod is back at its next probe: a fault that lasted a second is
 * not news. Without the guards every uneven-fleet cell paid for the slow
 * pods' extra probes (seed 1: 1 × 64 s01 +2 %, 4 × 64 s01 +3.5 %); with
 * them the grid reads as before (§56). Once per fault: a chronically slow
 * pod keeps its first onset (a lucky probe's back-off resumes, with it), so
 * in a large uneven fleet the slow pods' onsets all lie near the start and
 * each return of any of them made all the others due at once, every time:
 * the 500-backend × 64-client run's p99 went 25.3 → 28.3 ms; taken once per
 * fault, 25.7, with the reference suite's s10 recovery as it was (§65).
 */
import { EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { failuresEndInASlowAnswer } from './probe-backoff';

/** Failed probes in a row before the re-admitting probe that make a return news: a fault that lasted... */
export const SUSTAINED_FAILURES = 3;
/** ...for at least this many × `maxEjectionMs` since its onset. */
export const SUSTAINED_T = 2;
/** The mean a returning endpoint ends its probation under, in units of F: clearly typical, not just under the line. */
export const TYPICAL_RATIO = 1.2;
/** How far apart two runs of failed probes may have begun and be one fault, in units of `maxEjectionMs`. */
export const MAX_ONSET_GAP_T = 2;

/** The balancer's latest return (`recordReturn`): what the others' staleness reads. */
export class SharedRecovery {
  /** Returns recorded so far; an endpoint has seen the news once a sample of it came after. */
  returns = 0;
  /** When the returning endpoint's run of failed probes began (monotonic ms). */
  onsetMs = NaN;

  /** Records that `load` came back: the onset of the fault its probe ended. */
  recordReturn(load: EndpointLoad): void {
    this.returns++;
    this.onsetMs = load.onsetBeforeProbeMs;
  }

  /**
   * With an answer of `load`, before it is counted: if the news made it
   * due, it has taken the news for this fault, and later returns do not
   * make it due again while the fault lasts (its onset holds).
   */
  noteAnswer(load: EndpointLoad, settings: PeakEwmaSettings): void {
    if (this.probeDue(load, settings)) {
      load.newsTakenForOnsetMs = load.failingSinceMs;
    }
  }

  /** Marks the news as seen by `load` (each sample of it does). */
  seenBy(load: EndpointLoad): void {
    load.returnsSeen = this.returns;
  }

  /**
   * Whether `load`'s probe is due at once: it is out for slow answers, a
   * return it has not seen since began its fault within the gap of its own.
   */
  probeDue(load: EndpointLoad, settings: PeakEwmaSettings): boolean {
    return (
      // Not `>`: a balancer that replaced another (a config change) counts its returns from 0.
      this.returns !== load.returnsSeen &&
      load.failingSinceMs !== load.newsTakenForOnsetMs &&
      failuresEndInASlowAnswer(load) &&
      Math.abs(load.failingSinceMs - this.onsetMs) <= MAX_ONSET_GAP_T * (settings.maxEjectionMs ?? 0)
    );
  }
}

/**
 * Whether `load`, on probation after a probe that re-admitted it from
 * `failuresBeforeProbe` failed probes, comes back at `nowMs` with this
 * answer: out for slow answers (not errors) for at least SUSTAINED_FAILURES
 * of them and SUSTAINED_T × `maxEjectionMs` (slow answers come fast from a
 * client with many calls in flight: one stall gave six in a millisecond),
 * its probation ended (`probationEnded`), the answer left it in (not
 * `ejectingAnswer`), and its mean is clearly typical.
 */
export function comesBack(
  load: EndpointLoad,
  failuresBeforeProbe: number,
  probationEnded: boolean,
  ejectingAnswer: boolean,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet: FleetRtt,
): boolean {
  return (
    failuresBeforeProbe >= SUSTAINED_FAILURES &&
    !load.lastFailureWasError &&
    nowMs - load.onsetBeforeProbeMs >= SUSTAINED_T * (settings.maxEjectionMs ?? 0) &&
    probationEnded &&
    !ejectingAnswer &&
    fleet.hasSample &&
    load.meanRttMs <= TYPICAL_RATIO * fleet.rttMs
  );
}
