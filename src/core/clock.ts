/**
 * Time, as the engine sees it: a monotonic clock in milliseconds.
 *
 * Fractional milliseconds keep sub-millisecond precision (`performance.now()`
 * resolves to microseconds in Node), so a 200 µs loopback call is a 0.2 ms
 * sample, not 0 (Envoy truncates to whole milliseconds and so never samples a
 * sub-millisecond backend). The clock is injected everywhere so that tests and
 * the simulator can drive virtual time.
 */
export type MonotonicClock = () => number;

// Node's global `performance` is an accessor: every read of it calls a
// getter before `now()` is reached. The pick path reads the clock three
// times per call (pick, start, end), so the object is looked up once, here.
const processPerformance = globalThis.performance;

/** Wall-independent process clock: `performance.now()`, in milliseconds. */
export const systemClock: MonotonicClock = () => processPerformance.now();

/**
 * A clock that only moves when told to. For tests and the simulator.
 */
export class ManualClock {
  private currentMs: number;

  constructor(startMs = 0) {
    this.currentMs = startMs;
  }

  /** The clock as a function, for injection. */
  readonly now: MonotonicClock = () => this.currentMs;

  advance(deltaMs: number): void {
    if (!(deltaMs >= 0)) {
      throw new RangeError(`ManualClock.advance: deltaMs must be >= 0, got ${deltaMs}`);
    }
    this.currentMs += deltaMs;
  }

  set(nowMs: number): void {
    if (!(nowMs >= this.currentMs)) {
      throw new RangeError(`ManualClock.set: time may not go backwards (${nowMs} < ${this.currentMs})`);
    }
    this.currentMs = nowMs;
  }
}
