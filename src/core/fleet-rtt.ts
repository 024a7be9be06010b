/**
 * The fleet reference: what a call from this balancer typically takes,
 * across all its endpoints — a moving average of the latency of successful
 * calls, whatever endpoint answered them, each call weighing the same. So
 * it sits near the endpoints that carry the traffic (the healthy ones); it
 * moves with fleet-wide slowdowns, so "far above the fleet" stays relative.
 *
 * The rule: each answer moves the average by α = 1/W toward its sample,
 * where W counts the calls of about the last τ, time-discounted:
 *     W ← W·e^(−Δt/τ) + 1,   α = min(1/W, 1/16),
 * with Δt the time since the previous sample. At a steady rate W settles
 * at 1/(1 − e^(−Δt/τ)) (about λτ at λ calls/s) and α is exactly a time
 * average's 1 − e^(−Δt/τ); after a quiet spell W has decayed, and the
 * bound keeps one slow answer from moving the average by more than a
 * sixteenth of its distance.
 *
 * Why per call and not per unit of time (α = 1 − e^(−Δt/τ), this file's
 * rule until 2026-12-03): a time-weighted average weighs each answer by the
 * gap before it, and a caller that waits for one answer before its next
 * call makes that gap the answer's own latency: each answer of a 40 ms
 * backend weighed 40 times one of a 1 ms backend, and the average sat near
 * the slow one (E[d²]/E[d], not E[d]). The gate, ejection and the fleet
 * penalty then judged the slow backend against itself: in a fleet of three,
 * a slow backend in the rotation passed the gate for such a caller however
 * slow it was, and kept its full third (docs/tuning-log.md §24).
 * Pure state: reading it changes nothing, so results do not depend on how
 * often costs are read.
 *
 * Each sample counts at most FLEET_SAMPLE_CAP (256) times the average it
 * moves. Why: one answer far outside the fleet's (a call stuck for 30 s on a
 * channel of 5 ms calls) moved the average by 30 s / W: 5 → 80 ms at W
 * 400, lifting the ejection line, the rotation's gate and the fleet penalty
 * with it for about τ, and a pod that turned 10 × slower then kept its
 * rotation turns (22 of the next 2,000 calls against 5). Capped, the same
 * answer moves it to 8.2 ms. The cap sits far above what an overloaded pod
 * answers (a brownout's queue, bounded by the deadline, runs at up to some
 * 50 F), because the engine's recovery leans on those answers lifting F: a
 * cap at 5–16 F cost the reference suite's brownout recovery 3.9 → 4.2–4.3 s,
 * and at 64 F a five-method channel's baselines moved (docs/tuning-log.md
 * §62, §64). A method's baseline (methods.ts) is an average of this kind
 * too and caps alike, so with one method it stays equal to F.
 */
import { retainedFraction } from './peak-ewma';

/** The largest weight one call gets in the fleet average. */
export const FLEET_MAX_SAMPLE_WEIGHT = 1 / 16;

/** The largest sample the average takes, in units of itself. */
export const FLEET_SAMPLE_CAP = 256;

export class FleetRtt {
  /** The average as of `sampledAtMs`; meaningless until `hasSample`. */
  rttMs = 0;
  sampledAtMs = 0;

  /** W, the time-discounted count of the calls averaged (0: none yet): 1/W is the next call's weight (before the bound). */
  private callsWeighed = 0;

  /** Δt of the last update, and e^(−Δt/τ) for it: what an average stepping alike can reuse. */
  private lastStepMs = NaN;
  private lastRetained = 1;

  /** Whether any call was averaged: W never falls back to 0 once a call counted. */
  get hasSample(): boolean {
    return this.callsWeighed > 0;
  }

  /**
   * Moves the average toward `sampleMs` at `nowMs`. `alike`, if given, is
   * an average updated just before with the same `decayMs`: when its step
   * was the same length, its retained fraction is this one's too, and the
   * exp is not computed again (a method's baseline after the fleet's,
   * methods.ts: with one method, or a method called back to back, every
   * time). Exact either way.
   */
  record(sampleMs: number, nowMs: number, decayMs: number, alike?: FleetRtt): void {
    if (this.callsWeighed === 0) {
      this.rttMs = sampleMs;
      this.callsWeighed = 1;
    } else {
      const stepMs = nowMs - this.sampledAtMs;
      const retained = alike !== undefined && alike.lastStepMs === stepMs ? alike.lastRetained : retainedFraction(stepMs, decayMs);
      this.lastStepMs = stepMs;
      this.lastRetained = retained;
      this.callsWeighed = this.callsWeighed * retained + 1;
      const takenMs = this.rttMs > 0 ? Math.min(sampleMs, FLEET_SAMPLE_CAP * this.rttMs) : sampleMs;
      this.rttMs += Math.min(1 / this.callsWeighed, FLEET_MAX_SAMPLE_WEIGHT) * (takenMs - this.rttMs);
    }
    this.sampledAtMs = nowMs;
  }
}
