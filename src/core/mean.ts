/**
 * M, the mean answer: a moving average of an endpoint's answers, 1/8 per
 * answer, that does not decay with time. The mean ejection signal judges it
 * (ejection.ts, `ejectionSignal: "mean"`) and the rotation's gate reads it
 * (rotation.ts).
 *
 * Why a second number beside the peak estimate E: E answers "how slow could
 * the next call be", jumps on any tail sample and decays with time; M
 * answers "is this endpoint slower than its peers on average", and forgets
 * only by being told otherwise — by more answers, or by a probe once it is
 * stale (which counts half, or restarts M after an ejection). Each answer
 * counts at most 2·R·F, deadlines count, failures are left to the error
 * penalty (error-penalty.ts).
 */
import { CallOutcome, EndpointLoad, isFailure } from './endpoint-load';
import { settledFirstMs } from './first-answer';
import { lineBaseMs, signalEjects } from './ejection';
import { EjectionRanking } from './ejection-ranking';
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * The answers M averages at most. Counted in answers, not time: a light
 * client's mean is its last few answers, as a busy client's is.
 */
const MEAN_WINDOW = 8;

/** The largest sample the mean takes, in units of R × F. */
const MEAN_SAMPLE_CAP = 2;

/**
 * A sample as the mean takes it: at most MEAN_SAMPLE_CAP × R × F, so that
 * one call stuck behind a long one (a ping queued behind Reports, a GC
 * pause) moves the mean by at most (2·R·F − M)/8 and a healthy endpoint
 * needs several such answers in a row to be ejected, while an endpoint that
 * is slow on every call still converges to its own latency (or to the cap,
 * far above the ejection line). Spikes are the peak estimate's business.
 *
 * With `ejection`, the cap is taken from the line's base where that is
 * higher than F: a small fleet's median of the means (small-fleet.ts). One
 * fast pod carrying most calls holds F below that median, and a cap of
 * 2 × R × F then sat under the line R × median: a pod 10 × slower than the
 * median never crossed it.
 */
function clampedForMean(sampleMs: number, settings: PeakEwmaSettings, fleet: FleetRtt, ejection?: EjectionRanking): number {
  const ratio = settings.ejectionRatio;
  if (!ratio || !fleet.hasSample) {
    return sampleMs;
  }
  const baseMs = Math.max(fleet.rttMs, lineBaseMs(settings, fleet, ejection) ?? 0);
  return Math.min(sampleMs, MEAN_SAMPLE_CAP * ratio * baseMs);
}

/**
 * How far one answer of a stale endpoint that M had not ejected moves M: halfway.
 *
 * Why. Such an endpoint was merely unpicked (a light client, or a healed
 * pod whose M still holds its answers from before a crash loop: failures
 * are not in M), and its answer is news, so it weighs four times an
 * ordinary one. But not all: until 2026-12-05 it replaced M, and at one
 * slot one queued answer then decided the endpoint's standing for a whole
 * probe interval. With the ejection line at 1.5 × F one typical answer in
 * 18 is over it (the reference's model, σ 0.3), and a pod just back from a
 * crash loop answers slowly more often (least_request's clients fill its
 * queue at once): it went out again until its next backed-off probe, and
 * the crash loop's recovery lost 0.77 s of fair share against 0.58
 * (docs/tuning-log.md §36, §38). Halfway, one slow answer cannot
 * put out an endpoint whose M was typical, and two in a row can.
 */
export const STALE_ANSWER_WEIGHT = 0.5;

/**
 * The mean signal after a sample of `sampleMs` that carries `weight` of an
 * average answer's evidence (methods.ts `answerWeight`; 1 with one method):
 * the sample itself for a first answer (also one that follows failures,
 * which M does not take, and may arrive as a stale endpoint's probe) or the
 * probe that restarts M (the
 * probe of an endpoint M had ejected), else the moving average, the next
 * answer weighing weight/(meanSamples + weight) (see `meanSamplesAfter`).
 * A stale endpoint's answer moves M by min(weight, STALE_ANSWER_WEIGHT), so
 * that neither one queued ping nor one queued call sets the mean of an
 * endpoint that was merely unpicked.
 */
export function nextMeanRttMs(load: EndpointLoad, sampleMs: number, stale: boolean, weight = 1, restarts = false): number {
  if (!load.hasMean || restarts) {
    return sampleMs;
  }
  if (stale) {
    return load.meanRttMs + (sampleMs - load.meanRttMs) * Math.min(weight, STALE_ANSWER_WEIGHT);
  }
  return load.meanRttMs + ((sampleMs - load.meanRttMs) * weight) / Math.min(load.meanSamples + weight, MEAN_WINDOW);
}

/**
 * `load.meanSamples` once `nextMeanRttMs` has taken a sample of `weight`:
 * the answers M averages, each counted by its weight, at most 8. Normally
 * 8: each answer weighs 1/8 (a lighter one weight/8). After the probe of an
 * endpoint that M had ejected (`restarts`), M starts afresh from the
 * probe's answer: the k-th answer since the probe weighs 1/k until from the
 * 8th on each weighs 1/8 again, so M is the mean of the answers since the
 * probe, over at most the last 8. A cheap probe re-admits the endpoint as any probe does, but
 * counts only its weight: the next whole answer outweighs it, so a noisy
 * backend's lucky ping buys it one substantial call, not eight.
 *
 * Why. A probe re-admits an ejected endpoint on one answer, which the
 * recovery of a healed backend needs (docs/tuning-log.md §12). But one answer
 * of a backend that is slow on average and erratic (a noisy neighbour:
 * median 2×, σ 0.8) is under R × F more often than not, and with 1/8 per
 * answer after a lucky probe such a backend stayed in for about eight more
 * calls per probe; at one or two slots or with 64 clients those calls set
 * the uneven fleet's p99. Averaged plainly, its first slow answer after the
 * probe outweighs the lucky one. Only after an ejection: restarted after
 * every probe, the mean of a healthy endpoint probed for want of turns
 * swung on two or three answers and the gate refused it its turns
 * (identical fleet, one slot × 8 clients: 1.025 × round_robin instead of
 * 0.997); restarted after a first answer too, the same while a fleet warms
 * up (docs/tuning-log.md §15).
 */
export function meanSamplesAfter(load: EndpointLoad, restarts: boolean, weight = 1): number {
  if (restarts) {
    return weight;
  }
  return load.hasSample ? Math.min(load.meanSamples + weight, MEAN_WINDOW) : MEAN_WINDOW;
}

/**
 * Whether M is still on probation: it averages less than a window of
 * answers, counted by weight (`meanSamplesAfter`) — after the probe that
 * restarted it, or, for an endpoint whose first calls failed, since its
 * first answer. An endpoint that answered first and was never ejected is
 * never on it.
 */
export function onProbation(load: EndpointLoad): boolean {
  return load.meanSamples < MEAN_WINDOW;
}

/**
 * The estimate the cost prices a fresh endpoint at: at least its mean
 * answer M (when M is kept). E decays toward the fleet average between
 * samples so that an endpoint avoided for a slow answer is tried again;
 * that is staleness's work now (staleness.ts: a stale estimate counts at
 * most as the fleet average, and is probed), so the floor stops where
 * staleness starts. Without it an endpoint whose answers average 2 × the
 * fleet, unpicked for a second, is priced as one answering at the fleet
 * average once its last peak has decayed, and can win draws against
 * healthy endpoints busy with a call (docs/tuning-log.md §19 says what the
 * floor changed, and what it did not).
 */
export function withMeanFloorMs(load: EndpointLoad, estimateMs: number, stale: boolean, settings: PeakEwmaSettings): number {
  return !stale && load.meanRttMs > estimateMs && keepsMean(settings) ? load.meanRttMs : estimateMs;
}

/**
 * Whether M is kept: something reads it — the mean signal of an ejection
 * that is on (`ejectionRatio`), or the rotation's gate (rotation.ts). Off,
 * M is neither kept nor a floor under the cost (the textbook's cost).
 */
export function keepsMean(settings: PeakEwmaSettings): boolean {
  return (settings.ejectionSignal === 'mean' && !!settings.ejectionRatio) || !!settings.rotationGate;
}

/**
 * With the mean signal or the rotation's gate, moves M by the sample `sampleMs` of a call that
 * ended with `outcome` (before `load.hasSample` is set by it), an answer
 * of `weight` (methods.ts `answerWeight`) that `settles` a provisional first
 * answer or not (first-answer.ts), against the ejection line with
 * `ejection`'s budget and base (ejection-ranking.ts). Returns
 * whether it was an answer that leaves the endpoint ejected: a failed probe
 * for the back-off (the caller counts it); always false without the mean
 * signal. Without the signal and the gate: nothing, false.
 */
export function recordMeanSample(
  load: EndpointLoad,
  outcome: CallOutcome,
  sampleMs: number,
  stale: boolean,
  settings: PeakEwmaSettings,
  fleet: FleetRtt,
  weight = 1,
  ejection?: EjectionRanking,
  settles = false,
): boolean {
  if (!keepsMean(settings) || isFailure(outcome) || outcome === CallOutcome.OUTLASTED) {
    // A failure's sample is the error penalty's (error-penalty.ts), which
    // the peak estimate carries and the decay forgets: in the mean it
    // would keep a healed crash-looping backend out until each client's
    // backed-off probe, up to 80 fair shares of its calls. A lost hedge is
    // a lower bound the peak carries: the mean, the gate's and the
    // ejection's signal, averages answers and deadlines only.
    return false;
  }
  if (settles) {
    // The second answer settles a provisional first (first-answer.ts): M starts, a full window, from the lesser of the two.
    load.meanRttMs = settledFirstMs(load.meanRttMs, clampedForMean(sampleMs, settings, fleet, ejection));
    load.meanSamples = MEAN_WINDOW;
  } else {
    const restarts = stale && signalEjects(load, load.meanRttMs, settings, fleet, ejection);
    if (restarts) {
      // The back-off this answer may suspend, should M eject it again (probe-backoff.ts).
      load.failuresBeforeProbe = load.consecutiveFailures;
      load.onsetBeforeProbeMs = load.failingSinceMs;
    }
    load.meanRttMs = nextMeanRttMs(load, clampedForMean(sampleMs, settings, fleet, ejection), stale, weight, restarts);
    load.meanSamples = meanSamplesAfter(load, restarts, weight);
  }
  // A provisional first answer is no failed probe: it ejects nothing; the answer that settles it is judged.
  return (
    settings.ejectionSignal === 'mean' &&
    outcome === CallOutcome.SUCCESS &&
    (settles || !load.provisional) &&
    signalEjects(load, load.meanRttMs, settings, fleet, ejection)
  );
}
