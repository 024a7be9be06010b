/**
 * Bounded latency ejection (`ejectionRatio` R): with two choices both draws
 * land on slow backends k(k−1)/(n(n−1)) of the time whatever the estimate
 * says, so an endpoint judged above R × the fleet average F is skipped by
 * the chooser (PowerOfChoices redraws) while it can draw others. The bound
 * in time is staleness.ts (docs/tuning-log.md §2).
 *
 * What is judged (`ejectionSignal`):
 *
 * - "peak": the decayed peak estimate E the cost uses. E decays between
 *   samples, so an ejected endpoint is back under R·F after τ·ln(E/(R·F))
 *   (toward 0) whether or not anything was learnt: each client re-admits a
 *   slow backend about once per τ, and with many light clients those
 *   re-admissions add up to a fixed share of all calls (docs/tuning-log.md §12).
 * - "mean": M, a moving average of the endpoint's answers that does not
 *   decay with time (mean.ts). An ejected endpoint stays out until its
 *   estimate is stale (staleness.ts); stale, it is not ejected, so it gets
 *   one probe, whose answer replaces M; an answer that leaves M above R·F
 *   counts as a failed probe for the back-off (probe-backoff.ts), so a
 *   backend that stays slow is probed once per K·2^(j−1) fair shares of the
 *   client's calls, as a failing one is. The default since 2026-12-02: alone
 *   it lost the reference layout's recovery metric (docs/tuning-log.md §12);
 *   with the rotation (rotation.ts) beside it, every reference target holds
 *   (§14).
 *
 * How many may be out at once: ejection-budget.ts (`maxEjectionPercent`).
 * What the line is a multiple of: F, or in a fleet of at most five the
 * median of the endpoints' means (small-fleet.ts).
 */
import { budgetApplies } from './ejection-budget';
import { EjectionRanking } from './ejection-ranking';
import { EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';

/** Whether a small fleet's median of the means can be the line's base: ejection on, by the mean signal (small-fleet.ts). */
export function medianIsLineBase(settings: PeakEwmaSettings): boolean {
  return !!settings.ejectionRatio && settings.ejectionSignal === 'mean';
}

/**
 * What the line is a multiple of, in ms: where `medianIsLineBase`, the small
 * fleet's median of the means if there is one (small-fleet.ts); else F. Null
 * when there is no base to draw a line from: before the fleet's first
 * answer, or while F is 0 (every answer so far took 0 ms on the clock: a
 * multiple of it, or a ratio to it, would be NaN).
 */
export function lineBaseMs(settings: PeakEwmaSettings, fleet: FleetRtt, state?: EjectionRanking): number | null {
  const medianMs = state?.medianMs ?? 0;
  const baseMs = medianMs > 0 && medianIsLineBase(settings) ? medianMs : fleet.rttMs;
  return fleet.hasSample && baseMs > 0 ? baseMs : null;
}

/**
 * The ejection line in units of its base: R, or higher while the budget is
 * spent (ejection-budget.ts); 0 when ejection is off.
 */
function ejectionLineRatio(settings: PeakEwmaSettings, state?: EjectionRanking): number {
  const ratio = settings.ejectionRatio ?? 0;
  const budget = state?.budget;
  return budget !== undefined && budget.lineRatio > ratio && budgetApplies(settings) ? budget.lineRatio : ratio;
}

/**
 * The ejection line now, in ms: its ratio × its base; null with ejection off
 * or without a base (`lineBaseMs`). What the stats report
 * (`ejectionLineMs`); the judgement below compares in units of the base.
 */
export function ejectionLineMs(settings: PeakEwmaSettings, fleet: FleetRtt, state?: EjectionRanking): number | null {
  const ratio = ejectionLineRatio(settings, state);
  const baseMs = ratio ? lineBaseMs(settings, fleet, state) : null;
  return baseMs === null ? null : ratio * baseMs;
}

/**
 * Whether `signalMs`, `load`'s ejection signal, puts it out: over the line,
 * or, while over R × the base, one of the endpoints tied at the budget's
 * edge that its latest ranking keeps out (ejection-budget.ts `tiedOut`).
 * Judged in units of the base, as the budget ranks: (s / b) × b can round
 * below s, and then an endpoint ranked on the line (let in) read as over it
 * in ms, and the budget put one more out than it allows.
 */
export function signalEjects(load: EndpointLoad, signalMs: number, settings: PeakEwmaSettings, fleet: FleetRtt, state?: EjectionRanking): boolean {
  const lineRatio = ejectionLineRatio(settings, state);
  const baseMs = lineRatio ? lineBaseMs(settings, fleet, state) : null;
  if (baseMs === null) {
    return false;
  }
  const signalRatio = signalMs / baseMs;
  if (signalRatio > lineRatio) {
    return true;
  }
  return state !== undefined && state.budget.tiedOut(load) && budgetApplies(settings) && signalRatio > (settings.ejectionRatio ?? 0);
}

/**
 * What the rotation's gate (rotation.ts) and the mean signal (`isEjected`,
 * the budget's ranking) judge for `load`, given its estimate E: M once it
 * has answered. An endpoint whose every call so far lost a hedge race has
 * no M (a lost hedge is a lower bound, which M never takes), only lower
 * bounds in E. Read as a 0 ms M it looked typical and was never ejected,
 * so it kept every turn the margin left it (all of them once stalls lifted
 * its peers' peaks) and won every draw against an ejected peer, each of its
 * calls waiting for its hedge: a 300 ms backend among two 10 ms ones,
 * hedged at 50 ms, took 21–28 attempts of 150 beside a CPU hog and 67–74
 * first attempts in test/core/lower-bound. E is judged instead: a lower
 * bound, so over the line the endpoint surely is. One whose calls failed
 * keeps its 0 ms M here: the failure rules judge it, as before.
 */
export function meanSignalMs(load: EndpointLoad, estimateMs: number): number {
  return judgedOnMean(load) ? load.meanRttMs : estimateMs;
}

/** Whether `meanSignalMs` is M, so a caller can skip computing the estimate. */
export function judgedOnMean(load: EndpointLoad): boolean {
  return load.hasMean || load.consecutiveFailures > 0;
}

/**
 * Whether `load` is ejected given its estimate now (`estimateMs`) and
 * whether that estimate is stale: by the estimate ("peak") or by its mean
 * ("mean"), or while it is `shedding` calls (shed.ts: with ejection on,
 * outside the budget). With the mean signal a stale endpoint is never
 * ejected, so that it is probed; with the peak signal the estimate passed
 * in already counts at most the fleet average once stale, but the wait of
 * a probe still out is added after that cap (pending.ts), so a stale
 * endpoint whose probe has hung past the line is ejected until it answers.
 */
export function isEjected(
  load: EndpointLoad,
  estimateMs: number,
  stale: boolean,
  settings: PeakEwmaSettings,
  fleet: FleetRtt,
  state?: EjectionRanking,
  shedding = false,
): boolean {
  if (shedding) {
    return !!settings.ejectionRatio;
  }
  if (settings.ejectionSignal !== 'mean') {
    return signalEjects(load, estimateMs, settings, fleet, state);
  }
  return !stale && signalEjects(load, meanSignalMs(load, estimateMs), settings, fleet, state);
}
