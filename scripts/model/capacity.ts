/**
 * Capacity, as the harness computes it to set the offered load
 * (reference-load-test.md §4): slots / mean service time, the mean of a
 * lognormal being median·exp(σ²/2); a GC backend loses its pause fraction; a
 * flaky one answers errors for free, so it takes 1/(1 − errorRate) times the
 * calls. Unlimited slots count as 8 (the runner's setting).
 */
import { Behaviour } from './behaviour';
import { MethodSpec, meanMedianMs } from './methods';

export const UNLIMITED_SLOTS_AS = 8;

/** Mean service time of one call, in ms. */
export function meanServiceMs(behaviour: Behaviour, medianMs: number): number {
  return medianMs * behaviour.latencyFactor * Math.exp((behaviour.sigma * behaviour.sigma) / 2);
}

/**
 * Calls per second one backend's slots serve, calls of median `medianMs`:
 * slots / mean service time, less its GC pause fraction; 0 when it does
 * not serve (unavailable, black hole). Errors are not counted here.
 */
export function servedRps(behaviour: Behaviour, medianMs: number): number {
  if (behaviour.mode !== 'normal') {
    return 0;
  }
  const slots = behaviour.slots === 0 ? UNLIMITED_SLOTS_AS : behaviour.slots;
  let rps = (slots * 1000) / meanServiceMs(behaviour, medianMs);
  if (behaviour.gcPeriodMs > 0) {
    rps *= 1 - behaviour.gcPauseMs / behaviour.gcPeriodMs;
  }
  return rps;
}

/** Calls per second one backend sustains for the method mix (its failed calls take no time). */
export function backendCapacityRps(behaviour: Behaviour, methods: readonly MethodSpec[]): number {
  return servedRps(behaviour, meanMedianMs(methods)) / (1 - behaviour.errorRate);
}

export function fleetCapacityRps(behaviours: readonly Behaviour[], methods: readonly MethodSpec[]): number {
  return behaviours.reduce((sum, behaviour) => sum + backendCapacityRps(behaviour, methods), 0);
}

/**
 * Each client's rate: the harness's `max(10, int(load · capacity / clients))`.
 */
export function ratePerClientRps(fleetRps: number, load: number, clientCount: number): number {
  return Math.max(10, Math.floor((load * fleetRps) / clientCount));
}
