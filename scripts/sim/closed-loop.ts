/**
 * Closed-loop clients: callers that wait for each answer before sending the
 * next, as a service's own worker pool does (`await client.get(...)` in a
 * loop, a request handler making one downstream call at a time). The
 * reference's LoadGen is open loop (a call every period, whatever the
 * answers), and so are the simulator's default clients; a closed-loop
 * caller differs in the way that matters to a balancer that learns from
 * answers: the gap before each call is the previous call's latency plus a
 * think time, so its calls follow its answers, and a slow endpoint slows
 * the caller down instead of piling up its calls. The fleet-average defect
 * of docs/tuning-log.md §24 lived there.
 *
 * Each client runs `workers` callers. A caller sends, waits for the call to
 * end (answer, failure or deadline), thinks for an exponential time of mean
 * Z, and sends again (the interactive system of queueing texts). Z is set so
 * that at the default backend's mean service time the client's callers
 * together offer the open loop's rate R:
 *
 *     workers / (S + Z) = R   →   Z = workers / R − S
 *
 * with S the mean service time. By default `workers` is the fewest callers
 * that can offer R back to back (⌈R · S⌉), so Z is as short as the rate
 * allows: the most closed loop at the open loop's load. With more workers
 * Z grows and the loop opens up (a caller that thinks long sends at times
 * that hardly depend on its answers). Answers slower than S mean fewer
 * calls: the rate a closed loop sends is an outcome, not a setting
 * (`goodputRps` in the results says what it was).
 */

/**
 * A caller sends at most one call per this many ms: a call that fails at once
 * (no READY endpoint, an unavailable backend) takes no virtual time, and a
 * caller with no think time would otherwise spin at one instant.
 */
export const MIN_CALL_CYCLE_MS = 1;

export interface ClosedLoopPlan {
  /** Callers per client. */
  readonly workers: number;
  /** Mean think time between a call's end and the caller's next send, ms (≥ 0). */
  readonly thinkMs: number;
}

/**
 * Workers and think time for clients that should offer `rateRps` each at a
 * mean service time of `serviceMs`; `workers` given, only Z is derived (0
 * when those workers cannot offer the rate even back to back).
 */
export function planClosedLoop(rateRps: number, serviceMs: number, workers?: number): ClosedLoopPlan {
  if (!(rateRps > 0) || !(serviceMs > 0)) {
    throw new RangeError(`closed loop: the rate (${rateRps} calls/s) and the mean service time (${serviceMs} ms) must be > 0`);
  }
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1)) {
    throw new RangeError(`closed loop: workers must be an integer >= 1, got ${workers}`);
  }
  const callers = workers ?? Math.max(1, Math.ceil((rateRps * serviceMs) / 1000));
  return { workers: callers, thinkMs: Math.max(0, (callers * 1000) / rateRps - serviceMs) };
}
