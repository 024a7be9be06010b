/**
 * What a finished call teaches. An instant UNAVAILABLE has excellent
 * latency, so a plain EWMA rewards a crash-looping backend; with
 * `errorPenaltyFactor` f > 1 a failure counts as a sample of
 *
 *     max(elapsed, E, f × max(defaultRtt, F))
 *
 * with E the endpoint's estimate now and F the fleet average (defaultRtt
 * alone before the fleet has a sample): a failure never makes an endpoint
 * look faster than it did, and makes it look at least f times slower than a
 * typical call (docs/tuning-log.md §5). A client's cancel teaches nothing.
 *
 * A deadline, and an attempt another attempt outlasted (a hedge that lost
 * the race), say only that the endpoint had not answered after the elapsed
 * time: a lower bound. One raises the estimate when it is above it and
 * teaches nothing when it is not: an attempt that started late in its
 * deadline (slow call credentials, a wait-for-ready queue, a retry, a
 * caller with little budget left) must not make an endpoint look fast, and
 * without the losing hedges an endpoint that loses every race looked as
 * fast as its peers and kept its share (2026-12-06).
 *
 * Why F and not E as the base: f × E compounds. Every failure in a row
 * multiplied the estimate by f, so a burst of 100 fast failures left an
 * estimate of 5^100 × 10 ms ≈ 1e70 ms that no decay forgets within the
 * process's life (it needs ln(1e72) ≈ 166 τ); with F the estimate after any
 * number of failures is bounded by the largest of the elapsed times, the
 * estimate before them and b × f × max(defaultRtt, F), with b the probe
 * back-off's factor on the penalty (at most `maxProbeBackoff`,
 * probe-backoff.ts).
 */
import { CallOutcome, isFailure } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * The sample a finished call contributes, given the endpoint's estimate now
 * (undefined before its first sample) and the fleet average (undefined
 * while it has no sample), or null for none.
 */
export function sampleFrom(
  outcome: CallOutcome,
  elapsedMs: number,
  estimateNowMs: number | undefined,
  settings: PeakEwmaSettings,
  fleetRttMs?: number,
  /** The probe back-off's factor on the penalty (probe-backoff.ts); 1: none. */
  penaltyBackoff = 1,
): number | null {
  if (outcome === CallOutcome.CANCELLED) {
    return null;
  }
  if (outcome === CallOutcome.DEADLINE_EXCEEDED || outcome === CallOutcome.OUTLASTED) {
    // Before its first sample any bound is news: defaultRtt is a guess, and
    // one at or above the deadline would leave a hung endpoint unlearned.
    return estimateNowMs === undefined || elapsedMs > estimateNowMs ? elapsedMs : null;
  }
  if (isFailure(outcome) && settings.errorPenaltyFactor > 1) {
    const typicalMs = fleetRttMs === undefined ? settings.defaultRttMs : Math.max(settings.defaultRttMs, fleetRttMs);
    return Math.max(elapsedMs, estimateNowMs ?? settings.defaultRttMs, settings.errorPenaltyFactor * typicalMs * penaltyBackoff);
  }
  return elapsedMs;
}
