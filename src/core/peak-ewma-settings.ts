/**
 * What configures the peak-EWMA cost model: the textbook rule's three
 * numbers (decay, prior, penalty) and the optional mechanisms, each off when
 * absent, each in its own module (cost.ts lists them).
 */
export interface PeakEwmaSettings {
  /** τ, the time constant of the decay, in ms. */
  readonly decayMs: number;
  /**
   * The estimate of an endpoint that has not answered yet, in ms: what
   * stats report and the floor of the error penalty. Not its cost: idle and
   * unsampled costs 0, so it is probed at once (see `unsampledCost`).
   */
  readonly defaultRttMs: number;
  /**
   * The cost of an endpoint with calls in flight and no answer yet, in the
   * cost's unit (ms × calls); `penaltyValue + outstanding` (Envoy's rule),
   * so each client probes a new endpoint one call at a time.
   */
  readonly penaltyValue: number;
  /**
   * A failed call counts as a sample of max(elapsed, current estimate,
   * `errorPenaltyFactor` × max(defaultRtt, fleet average)), so a backend
   * that fails fast does not look fast, and a run of failures does not
   * compound (error-penalty.ts). 1 turns this off: failures are plain
   * latency samples.
   */
  readonly errorPenaltyFactor: number;
  /**
   * s, the steeper cost far above the fleet: an endpoint whose estimate E
   * exceeds the fleet average F costs (E/F)^s times more, so a backend at
   * 2× the fleet costs 2^(1+s)× where the textbook rule says 2×. 0 or
   * absent: off (the textbook cost).
   */
  readonly fleetPenaltyExponent?: number;
  /**
   * R, bounded latency ejection: an endpoint whose estimate (or mean, see
   * `ejectionSignal`) exceeds R × the fleet average is skipped by the
   * chooser while it can draw other candidates (at most choiceCount extra
   * draws). 0 or absent: off.
   */
  readonly ejectionRatio?: number;
  /**
   * What `ejectionRatio` judges (ejection.ts): "peak", the decayed peak
   * estimate the cost uses; "mean", a moving average of the endpoint's
   * answers (each at most 2·R·F, failures left to the error penalty) that
   * does not decay with time, so an endpoint ejected for its latency stays
   * out until a probe says otherwise, and probes that come back still slow
   * back off like failed ones. Absent: "peak".
   */
  readonly ejectionSignal?: EjectionSignal;
  /**
   * P, the ejection budget (ejection-budget.ts): at most max(1, ⌊P·n/100⌋)
   * of n READY endpoints are ejected at once; the slowest by the signal
   * stay out. Absent or 100 and over: no budget.
   */
  readonly maxEjectionPercent?: number;
  /**
   * T, in ms: an estimate not refreshed by a sample for T counts at most as
   * the fleet average, so an endpoint avoided for its latency (or its
   * errors) is probed again after at most T, and a stale peak cannot keep a
   * healed backend out. 0 or absent: off.
   */
  readonly maxEjectionMs?: number;
  /**
   * K, the probe interval counted in the balancer's own calls: an estimate
   * is stale (see `maxEjectionMs`) only once it is `maxEjectionMs` old AND
   * the balancer has started at least K × (READY endpoints) calls since its
   * last sample, i.e. the endpoint has missed about K fair shares. A slow
   * client thus probes an avoided endpoint about once per K fair shares of
   * its calls instead of once per `maxEjectionMs`. 0 or absent, or no
   * `BalancerTraffic`: time only.
   */
  readonly probeFairShares?: number;
  /**
   * The probe back-off's cap (probe-backoff.ts): after j failed calls in a
   * row the probe interval in calls (K fair shares) and the failure penalty
   * are up to this many times larger (the interval 2^j after an error,
   * the penalty 2^(j−1)); a success resets them. 0, 1 or
   * absent: off.
   */
  readonly maxProbeBackoff?: number;
  /**
   * Whether the estimate counts the wait of calls still in flight: with
   * calls outstanding and no answer for Δ ms, the endpoint is at least Δ
   * slow, so the estimate is at least Δ. A stalled backend (GC pause, black
   * hole) stops attracting calls after about one estimate's time instead of
   * after its first answer. false or absent: off (textbook).
   */
  readonly pendingAware?: boolean;
  /**
   * m, the rotation's margin (rotation.ts): an incumbent that passes the
   * gate keeps its turn unless a randomly drawn other costs less than m ×
   * its cost. 0 or absent: it keeps it outright. The rotation is on when
   * this or `rotationGate` is set.
   */
  readonly rotationMargin?: number;
  /**
   * g, the rotation's gate (rotation.ts): the next endpoint in a
   * per-balancer rotation takes its turn only while its mean answer is at
   * most g × the fleet average, no call of this client is in flight to it,
   * and it has not failed lately; otherwise the call goes to the draw.
   * 0 or absent: no gate.
   */
  readonly rotationGate?: number;
  /**
   * What the estimate decays toward between samples (memory.ts): "zero",
   * the textbook, or "fleet", the fleet average. Absent: "zero".
   */
  readonly decayToward?: DecayTarget;
  /**
   * C, memory counted in the client's own calls: the estimate forgets at
   * most 1/e per C fair shares of the balancer's calls (see `retainedAt`),
   * so a light client keeps what it learnt. 0 or absent: time only.
   */
  readonly decayFairShares?: number;
  /**
   * Per-method scoring (methods.ts), for calls whose method reaches the
   * engine (the `callMarker` interceptor): "latency" judges each sample
   * against its method's fleet average; "work" also counts in-flight
   * calls by their method's weight. "off" or absent: one estimate per
   * endpoint, methods ignored (and with one method both give the same picks).
   */
  readonly methodScoring?: MethodScoring;
  /**
   * Candidates compared per pick while the tracked methods are a mix
   * (methods.ts `MethodTable.mixed`: typical latencies 4× apart or more),
   * instead of the engine's choiceCount when that is lower. Absent: the
   * choiceCount always.
   */
  readonly mixedChoiceCount?: number;
  /**
   * W, in ms: an endpoint that joins a running fleet is, for W after its
   * first answer, not ejected for its latency, and takes its rotation turns
   * in proportion to its speed where its mean would have the gate refuse
   * them, so that a pod that warms up with work gets the work
   * (slow-start.ts). 0 or absent: off.
   */
  readonly slowStartMs?: number;
}

export type MethodScoring = 'off' | 'latency' | 'work';

export type EjectionSignal = 'mean' | 'peak';

export type DecayTarget = 'zero' | 'fleet';
