/**
 * The fleet reference: what a call from this balancer typically takes,
 * across all its endpoints — a time-weighted moving average of the latency
 * of successful calls, whatever endpoint answered them. Calls are weighted by
 * volume, so it sits near the endpoints that carry the traffic (the healthy
 * ones); it moves with fleet-wide slowdowns, so "far above the fleet" stays
 * relative.
 *
 * Same update rule as the per-endpoint estimate's blend, without the peak:
 * α = 1 − exp(−Δt/τ) with Δt the time since the previous sample, but at
 * most 1/16 per call, so that after a quiet spell one slow answer cannot
 * move the fleet average by more than a sixteenth of its distance (at busy
 * rates α ≪ 1/16 and the bound never applies). Pure state: reading it
 * changes nothing, so results do not depend on how often costs are read.
 */
import { retainedFraction } from './peak-ewma';

/** The largest weight one call gets in the fleet average. */
export const FLEET_MAX_SAMPLE_WEIGHT = 1 / 16;

export class FleetRtt {
  /** The average as of `sampledAtMs`; meaningless until `hasSample`. */
  rttMs = 0;
  sampledAtMs = 0;
  hasSample = false;

  /** Δt of the last update, and e^(−Δt/τ) for it: what an average stepping alike can reuse. */
  private lastStepMs = NaN;
  private lastRetained = 1;

  /**
   * Moves the average toward `sampleMs` at `nowMs`. `alike`, if given, is
   * an average updated just before with the same `decayMs`: when its step
   * was the same length, its retained fraction is this one's too, and the
   * exp is not computed again (a method's baseline after the fleet's,
   * methods.ts: with one method, or a method called back to back, every
   * time). Exact either way.
   */
  record(sampleMs: number, nowMs: number, decayMs: number, alike?: FleetRtt): void {
    if (!this.hasSample) {
      this.rttMs = sampleMs;
      this.hasSample = true;
    } else {
      const stepMs = nowMs - this.sampledAtMs;
      const retained = alike !== undefined && alike.lastStepMs === stepMs ? alike.lastRetained : retainedFraction(stepMs, decayMs);
      this.lastStepMs = stepMs;
      this.lastRetained = retained;
      this.rttMs += Math.min(1 - retained, FLEET_MAX_SAMPLE_WEIGHT) * (sampleMs - this.rttMs);
    }
    this.sampledAtMs = nowMs;
  }
}
