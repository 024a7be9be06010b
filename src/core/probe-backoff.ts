/**
 * Probe back-off: an endpoint whose probes keep failing is probed less
 * often, counted in the balancer's own calls. Each probe of a crash-looping
 * backend is a failed call, and the probe interval in calls (K fair shares,
 * staleness.ts) bounds what that costs a light client at 1/(K·n) of its
 * calls per such endpoint: 0.5 % at K = 10 and 20 endpoints, whatever the
 * fleet's size in clients, because every client probes on its own.
 *
 * After the j-th failure in a row the interval is K·2^j fair shares, at most
 * `maxProbeBackoff` × K, and the failure's penalty sample (error-penalty.ts)
 * is 2^(j−1) times f × F (same cap), so that the decay, which also re-admits
 * an endpoint once its estimate is back near its peers', backs off alike.
 * One success resets both. The interval is a step ahead of the penalty: K
 * is what an endpoint that merely missed its turns waits, and an error is
 * evidence that it is failing, so even the first probe after one waits 2K
 * (one failed probe fewer per client and crash loop; docs/tuning-log.md §16).
 * With the mean signal an answer that leaves the endpoint ejected counts as
 * a failure too (mean.ts), but its interval is K·2^(j−1): at one slot a
 * healthy backend's mean crosses the line on queueing alone, and waiting 2K
 * after that cost the identical fleet its spacing.
 *
 * Like outlier_detection's ejection time, which grows with each consecutive
 * ejection (gRFC A50: base_ejection_time × multiplier), but in calls, not
 * time: the time floor (`maxEjectionMs`) is untouched, so a client that
 * starts cap × K fair shares within it (1,600 calls/s at 20 endpoints and
 * the default 8) probes as before, and a slower one at most cap times less
 * often (docs/tuning-log.md §11).
 */
import { CallOutcome, EndpointLoad, isFailure } from './endpoint-load';
import { onProbation } from './mean';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * Failed calls in a row once a call ended with `outcome`: a failure counts,
 * a success resets the count, and a deadline or a cancel leaves it: a
 * deadline says the endpoint is slow, which the estimate already carries,
 * not that it is failing.
 */
export function failuresInARowAfter(load: EndpointLoad, outcome: CallOutcome): number {
  if (outcome === CallOutcome.SUCCESS) {
    return 0;
  }
  return isFailure(outcome) ? load.consecutiveFailures + 1 : load.consecutiveFailures;
}

/**
 * The count once an answer left `load` ejected by its mean (`ejectionSignal`
 * "mean": a failed probe, mean.ts): one more than before, and, while M is
 * on probation after a probe (`onProbation`), one more than it was at that
 * probe. A success resets the count, so without this a lucky probe of a
 * backend that is slow on average and erratic (a noisy neighbour: one answer
 * under R × F more often than not) restarted its back-off from K fair
 * shares at every probe; now the answers that eject it again within a
 * window resume the back-off where the probe found it. One slow answer
 * after a window of typical ones starts it afresh, as a failure after a
 * success does. The gate (rotation.ts) still sees the reset: a healed
 * backend takes its turns from its first good probe (docs/tuning-log.md §16).
 */
export function failuresAfterEjectingAnswer(load: EndpointLoad): number {
  const resumed = resumesBackoff(load) ? load.failuresBeforeProbe : 0;
  return Math.max(load.consecutiveFailures, resumed) + 1;
}

/**
 * Whether an answer that leaves `load` ejected now resumes the back-off
 * its last probe suspended (`failuresAfterEjectingAnswer`): M is still on
 * probation after a probe that found failures in a row.
 */
function resumesBackoff(load: EndpointLoad): boolean {
  return onProbation(load) && load.failuresBeforeProbe > 0;
}

/** 2^(j−1) after j failures in a row, at most `maxProbeBackoff`; 1 when off or after a success. */
export function probeBackoffFactor(failuresInARow: number, settings: PeakEwmaSettings): number {
  const maxBackoff = settings.maxProbeBackoff;
  if (!maxBackoff || maxBackoff <= 1 || failuresInARow <= 1) {
    return 1;
  }
  return Math.min(2 ** (failuresInARow - 1), maxBackoff);
}

/** The probe interval in fair shares for `load`: K × its back-off factor. */
export function probeFairSharesOf(load: EndpointLoad, settings: PeakEwmaSettings): number | undefined {
  const fairShares = settings.probeFairShares;
  return fairShares ? fairShares * probeBackoffFactor(probeBackoffSteps(load), settings) : fairShares;
}

/**
 * Whether `load`'s failures in a row end in an error, rather than in an
 * answer slow enough to leave it ejected (which counts as a failed probe
 * too). Kept as a flag by `countFailures`: until 2026-12-05 it was read off
 * the timestamps (the last sample the error's), and a deadline after the
 * errors, which counts nothing, took a step off the back-off.
 */
export function failuresEndInAnError(load: EndpointLoad): boolean {
  return load.consecutiveFailures > 0 && load.lastFailureWasError;
}

/** Whether `load`'s failures in a row end in a slow answer that left it ejected, not an error. */
export function failuresEndInASlowAnswer(load: EndpointLoad): boolean {
  return load.consecutiveFailures > 0 && !load.lastFailureWasError;
}

/**
 * Stores `count`, the failures in a row after a call that ended with
 * `outcome` (`ejectingAnswer`: an answer that left the endpoint ejected, a
 * failed probe), and what raised it last: an error, or a slow answer. A
 * deadline or a cancel leaves the flag as it was, and so does a success:
 * the count is then 0, and only an error or an ejecting answer raises it
 * again, each setting the flag. A run that begins at `nowMs` records its
 * onset (`failingSinceMs`, shared-recovery.ts), unless it resumes the
 * back-off a probe suspended (`failuresAfterEjectingAnswer`): then the
 * fault is the one that probe found, and so is its onset.
 */
export function countFailures(load: EndpointLoad, outcome: CallOutcome, count: number, ejectingAnswer: boolean, nowMs: number): void {
  if (ejectingAnswer || isFailure(outcome)) {
    load.lastFailureWasError = !ejectingAnswer;
  }
  if (load.consecutiveFailures === 0 && count > 0) {
    load.failingSinceMs = ejectingAnswer && resumesBackoff(load) ? load.onsetBeforeProbeMs : nowMs;
  }
  load.consecutiveFailures = count;
}

/**
 * The back-off steps of `load`'s probe interval: its failures in a row, and
 * one more when the last of them was an error.
 */
function probeBackoffSteps(load: EndpointLoad): number {
  const failures = load.consecutiveFailures;
  return failuresEndInAnError(load) ? failures + 1 : failures;
}
