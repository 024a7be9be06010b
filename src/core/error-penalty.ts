/**
 * What a finished call teaches. An instant UNAVAILABLE has excellent
 * latency, so a plain EWMA rewards a crash-looping backend; with
 * `errorPenaltyFactor` > 1 each failure counts as at least that many times
 * the endpoint's estimate (docs/tuning.md §5). A client's cancel teaches
 * nothing.
 */
import { CallOutcome } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * `sampleForOutcome` given the endpoint's estimate now (`defaultRtt` before
 * its first sample): a failure counts at least errorPenaltyFactor × the
 * larger of that and defaultRtt.
 */
export function sampleFrom(outcome: CallOutcome, elapsedMs: number, estimateNowMs: number, settings: PeakEwmaSettings): number | null {
  if (outcome === CallOutcome.CANCELLED) {
    return null;
  }
  if (outcome === CallOutcome.FAILURE && settings.errorPenaltyFactor > 1) {
    return Math.max(elapsedMs, settings.errorPenaltyFactor * Math.max(estimateNowMs, settings.defaultRttMs));
  }
  return elapsedMs;
}
