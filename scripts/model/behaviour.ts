/**
 * How one backend behaves: the reference harness's `Behaviour` record
 * (reference-load-test.md §2), changeable at run time for fault phases.
 */
export type BackendMode =
  /** Serve calls. */
  | 'normal'
  /** Fail every call at once with UNAVAILABLE ("crash-looping"). */
  | 'unavailable'
  /** Accept calls and never answer; only the caller's deadline ends them. Takes no slot. */
  | 'blackhole';

export interface Behaviour {
  /** Multiplies each method's nominal median service time. */
  readonly latencyFactor: number;
  /** Lognormal shape of the service time. */
  readonly sigma: number;
  /** Calls served at once; the rest wait in a FIFO queue. 0 = unlimited. */
  readonly slots: number;
  /**
   * Calls that may wait for a slot; a call that finds every slot busy and
   * this many queued is refused at once with RESOURCE_EXHAUSTED (a server
   * that sheds load: grpcio's maximum_concurrent_rpcs, a concurrency
   * limiter). Absent or Infinity: unbounded; 0: refuse whenever every slot
   * is busy. Moot with unlimited slots.
   */
  readonly queueLimit?: number;
  /** Fraction of calls failed with UNAVAILABLE before any work (no slot, no time). */
  readonly errorRate: number;
  readonly mode: BackendMode;
  /** GC cycle length in ms; 0 = no GC pauses. */
  readonly gcPeriodMs: number;
  /** Pause at the start of each cycle, in ms: nothing completes during it. */
  readonly gcPauseMs: number;
  /** Fixed delay after the slot is released, before the answer arrives (e.g. cross-zone RTT), in ms. */
  readonly extraDelayMs: number;
  /**
   * A process just started serves its first calls slower (JIT compilation,
   * cold caches, pools opened on first use): the k-th call it begins, from
   * 0, is served 1 + (warmupFactor − 1) · exp(−k / warmupCalls) times
   * slower. Counted in calls, not time, because what warms it is work: a
   * pod that gets no calls stays cold. warmupCalls 0 (or factor 1): none.
   */
  readonly warmupFactor: number;
  readonly warmupCalls: number;
}

/** The harness's defaults with the runner's 8 slots. */
export const DEFAULT_BEHAVIOUR: Behaviour = {
  latencyFactor: 1,
  sigma: 0.3,
  slots: 8,
  errorRate: 0,
  mode: 'normal',
  gcPeriodMs: 0,
  gcPauseMs: 0,
  extraDelayMs: 0,
  warmupFactor: 1,
  warmupCalls: 0,
};

/** Validates a behaviour; throws naming the field and the rule. */
export function checkBehaviour(behaviour: Behaviour): Behaviour {
  const rule = (ok: boolean, field: keyof Behaviour, text: string): void => {
    if (!ok) {
      throw new RangeError(`Behaviour.${field} ${text}, got ${String(behaviour[field])}`);
    }
  };
  rule(behaviour.latencyFactor > 0 && Number.isFinite(behaviour.latencyFactor), 'latencyFactor', 'must be a finite number > 0');
  rule(behaviour.sigma >= 0 && Number.isFinite(behaviour.sigma), 'sigma', 'must be a finite number >= 0');
  rule(Number.isInteger(behaviour.slots) && behaviour.slots >= 0, 'slots', 'must be an integer >= 0 (0 = unlimited)');
  rule(
    behaviour.queueLimit === undefined || behaviour.queueLimit === Infinity || (Number.isInteger(behaviour.queueLimit) && behaviour.queueLimit >= 0),
    'queueLimit',
    'must be an integer >= 0 or Infinity (absent = unbounded; 0 = refuse whenever every slot is busy)',
  );
  rule(behaviour.errorRate >= 0 && behaviour.errorRate <= 1, 'errorRate', 'must lie in [0, 1]');
  rule(['normal', 'unavailable', 'blackhole'].includes(behaviour.mode), 'mode', 'must be normal, unavailable or blackhole');
  rule(behaviour.gcPeriodMs >= 0 && Number.isFinite(behaviour.gcPeriodMs), 'gcPeriodMs', 'must be a finite number >= 0');
  rule(
    behaviour.gcPauseMs >= 0 && (behaviour.gcPeriodMs === 0 || behaviour.gcPauseMs < behaviour.gcPeriodMs),
    'gcPauseMs',
    'must be >= 0 and shorter than gcPeriodMs',
  );
  rule(behaviour.extraDelayMs >= 0 && Number.isFinite(behaviour.extraDelayMs), 'extraDelayMs', 'must be a finite number >= 0');
  rule(behaviour.warmupFactor >= 1 && Number.isFinite(behaviour.warmupFactor), 'warmupFactor', 'must be a finite number >= 1');
  rule(behaviour.warmupCalls >= 0 && Number.isFinite(behaviour.warmupCalls), 'warmupCalls', 'must be a finite number >= 0 (0 = no warm-up)');
  return behaviour;
}
