/**
 * The peak-EWMA round-trip-time estimate, as pure functions of
 * (last estimate, time of the last sample, now).
 *
 * Let `E` be the estimate left by the last sample at time `t0`, `τ` the decay
 * time constant (`decayMs`) and `Δt = t - t0`.
 *
 * - Between samples the estimate decays toward zero:
 *       E(t) = E · exp(-Δt / τ)
 *   so an endpoint that is not picked gets cheaper until it is probed again.
 *   (The textbook; the engine's default decays toward the fleet average
 *   instead, from the same exp(-Δt / τ): memory.ts.)
 *   τ is a time constant, not a half-life: after τ the estimate is at 36.8 %
 *   of its value, after τ·ln 2 ≈ 0.69 τ at half.
 * - A sample `r` above the decayed estimate replaces it at once (the peak):
 *       r > E(t)  ⇒  E' = r
 * - A sample at or below it is blended in, weighted by the time since the
 *   last sample:
 *       α = 1 - exp(-Δt / τ),   E' = (1 - α) · E(t) + α · r
 *   E' lies between r and E(t): a low sample never raises the estimate.
 * - A sample that carries less evidence than a whole one (weight v < 1: a
 *   cheap method's answer, methods.ts `answerWeight`) moves E by v of that
 *   step: up by v · (r − E(t)), down with α' = v · α.
 *
 * Why the decay is computed at read time from stored (E, t0) instead of being
 * written back on every read: tower and Finagle advance their stored
 * timestamp whenever the load is read, so the weight a later sample gets
 * depends on how often something happened to look at the cost. Here reading
 * is free of side effects: the same samples at the same times give the same
 * estimate whether the cost was read never or a million times in between.
 */

/** `exp(-elapsedMs / decayMs)`, the share of an estimate left after `elapsedMs`. */
export function retainedFraction(elapsedMs: number, decayMs: number): number {
  return elapsedMs > 0 ? Math.exp(-elapsedMs / decayMs) : 1;
}

/** The estimate `elapsedMs` after it was last updated to `rttMs`. */
export function decayedRttMs(rttMs: number, elapsedMs: number, decayMs: number): number {
  return rttMs * retainedFraction(elapsedMs, decayMs);
}

/**
 * The estimate after a sample of `sampleMs` taken `elapsedMs` after the last
 * update to `rttMs`.
 */
export function nextRttMs(rttMs: number, elapsedMs: number, sampleMs: number, decayMs: number): number {
  const retained = retainedFraction(elapsedMs, decayMs);
  return blendRttMs(rttMs * retained, retained, sampleMs);
}

/**
 * The peak rule applied to an estimate already decayed to `decayedMs`, with
 * `retained` = exp(-Δt/τ) for the time since the last sample: a higher
 * sample replaces it, a lower one is blended in with weight 1 - retained;
 * a sample of `weight` v < 1 takes v of either step.
 */
export function blendRttMs(decayedMs: number, retained: number, sampleMs: number, weight = 1): number {
  if (weight !== 1) {
    const step = sampleMs > decayedMs ? 1 : 1 - retained;
    return decayedMs + (sampleMs - decayedMs) * step * weight;
  }
  if (sampleMs > decayedMs) {
    return sampleMs;
  }
  return retained * decayedMs + (1 - retained) * sampleMs;
}
