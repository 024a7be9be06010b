/**
 * From the clients' recorded runs to per-policy results: merged latency
 * summaries per window and phase, error rates, the faulty backends' share of
 * calls per second, and the reference's time-to-detect and time-to-recover
 * (reference-load-test.md §5).
 */
import { decodeHistogram, LatencySummary, mergeHistograms, summarize } from './histogram';
import type { RecordedRun } from './load-recorder';
import { mean } from './stats';

export interface WindowStats {
  readonly calls: number;
  readonly ok: number;
  readonly failed: number;
  /** 1 − OK / completed. */
  readonly errorRate: number;
  /** OK calls only. */
  readonly okLatency: LatencySummary;
  /** All calls, failures counted at the deadline. */
  readonly allLatency: LatencySummary;
  /** The reference's per-policy p99: mean of the clients' own OK p99s. */
  readonly meanClientOkP99Ms: number;
}

function windowStats(okHistograms: string[], allHistograms: string[], ok: number, failed: number): WindowStats {
  const okDecoded = okHistograms.map(decodeHistogram);
  const allDecoded = allHistograms.map(decodeHistogram);
  const okMerged = mergeHistograms(okDecoded);
  const allMerged = mergeHistograms(allDecoded);
  const stats: WindowStats = {
    calls: ok + failed,
    ok,
    failed,
    errorRate: ok + failed > 0 ? failed / (ok + failed) : NaN,
    okLatency: summarize(okMerged),
    allLatency: summarize(allMerged),
    meanClientOkP99Ms: mean(okDecoded.filter((h) => h.totalCount > 0).map((h) => h.getValueAtPercentile(99) / 1000)),
  };
  for (const histogram of [...okDecoded, ...allDecoded, okMerged, allMerged]) {
    histogram.destroy();
  }
  return stats;
}

/** Window and per-phase stats over several clients' runs (histograms merged exactly). */
export function combineRuns(runs: readonly RecordedRun[]): { window: WindowStats; phases: Record<string, WindowStats> } {
  const window = windowStats(
    runs.map((r) => r.okHistogram),
    runs.map((r) => r.allHistogram),
    runs.reduce((s, r) => s + r.ok, 0),
    runs.reduce((s, r) => s + r.failed, 0),
  );
  const phases: Record<string, WindowStats> = {};
  for (const [i, phase] of (runs[0]?.phases ?? []).entries()) {
    phases[phase.name] = windowStats(
      runs.map((r) => r.phases[i].okHistogram),
      runs.map((r) => r.phases[i].allHistogram),
      runs.reduce((s, r) => s + r.phases[i].ok, 0),
      runs.reduce((s, r) => s + r.phases[i].failed, 0),
    );
  }
  return { window, phases };
}

/** Per second, the share of attributed calls that went to each backend (summed over runs). */
export function sharePerSecond(runs: readonly RecordedRun[], backendCount: number): number[][] {
  const seconds = runs[0]?.seconds.length ?? 0;
  const shares: number[][] = [];
  for (let t = 0; t < seconds; t++) {
    const counts = new Array<number>(backendCount).fill(0);
    for (const run of runs) {
      run.seconds[t].perBackend.forEach((n, b) => (counts[b] += n));
    }
    const total = counts.reduce((a, b) => a + b, 0);
    shares.push(counts.map((n) => (total > 0 ? n / total : NaN)));
  }
  return shares;
}

/** The summed share of `backends` per second. */
export function groupShare(shares: readonly number[][], backends: readonly number[]): number[] {
  return shares.map((row) => backends.reduce((sum, b) => sum + (row[b] ?? 0), 0));
}

/** 3-point trailing mean (shorter at the start). */
export function trailingMean3(series: readonly number[]): number[] {
  return series.map((_, i) => mean(series.slice(Math.max(0, i - 2), i + 1).filter(Number.isFinite)));
}

/**
 * Seconds from the fault's start until the (3-point trailing mean) share of
 * calls to the faulty backends falls below a third of their fair share, or
 * null if it never does during the fault. Bucket i covers (i, i + 1], so its
 * time is i + 1.
 */
export function timeToDetectS(share: readonly number[], fairShare: number, faultFromS: number, faultToS: number): number | null {
  const smoothed = trailingMean3(share);
  for (let i = faultFromS; i < Math.min(faultToS, smoothed.length); i++) {
    if (smoothed[i] < fairShare / 3) {
      return i + 1 - faultFromS;
    }
  }
  return null;
}

/**
 * Seconds from the fault's end until the smoothed share is back within ±10 %
 * of fair for 3 consecutive points, reported as the reference does (time of
 * the third point − 2 − end), or null if it never is.
 */
export function timeToRecoverS(share: readonly number[], fairShare: number, faultToS: number): number | null {
  const smoothed = trailingMean3(share);
  const near = (x: number): boolean => Math.abs(x - fairShare) <= 0.1 * fairShare;
  for (let i = faultToS; i + 2 < smoothed.length; i++) {
    if (near(smoothed[i]) && near(smoothed[i + 1]) && near(smoothed[i + 2])) {
      return i + 2 + 1 - 2 - faultToS;
    }
  }
  return null;
}
