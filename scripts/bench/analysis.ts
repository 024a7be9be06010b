/**
 * From the clients' recorded runs to per-policy results: merged latency
 * summaries per window and phase, error rates, the faulty backends' share of
 * calls per second, and the reference's time-to-detect and time-to-recover
 * (reference-load-test.md §5).
 */
import { decodeHistogram, LatencySummary, mergeHistograms, summarize } from './histogram';
import type { RecordedGroup, RecordedRun } from './load-recorder';
import { mean } from './stats';
import { detectionAndRecovery } from '../sim/metrics';
import type { Timeline } from './scenarios';

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
  /** OK calls of the client with the fewest: a p99.9 needs 10,000 (absent in older result files). */
  readonly minClientOk?: number;
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
    minClientOk: okDecoded.length > 0 ? Math.min(...okDecoded.map((h) => h.totalCount)) : 0,
  };
  for (const histogram of [...okDecoded, ...allDecoded, okMerged, allMerged]) {
    histogram.destroy();
  }
  return stats;
}

/** Stats of one recorded group (the window, a phase or a method) over several clients' runs. */
function groupStats(groups: readonly RecordedGroup[]): WindowStats {
  return windowStats(
    groups.map((g) => g.okHistogram),
    groups.map((g) => g.allHistogram),
    groups.reduce((s, g) => s + g.ok, 0),
    groups.reduce((s, g) => s + g.failed, 0),
  );
}

/**
 * Window, per-phase and per-method-group stats over several clients' runs
 * (histograms merged exactly); `methods` is empty for a one-method workload.
 */
export function combineRuns(runs: readonly RecordedRun[]): {
  window: WindowStats;
  phases: Record<string, WindowStats>;
  methods: Record<string, WindowStats>;
} {
  const window = groupStats(runs);
  const phases: Record<string, WindowStats> = {};
  for (const [i, phase] of (runs[0]?.phases ?? []).entries()) {
    phases[phase.name] = groupStats(runs.map((r) => r.phases[i]));
  }
  const methods: Record<string, WindowStats> = {};
  for (const name of new Set(runs.flatMap((r) => (r.methods ?? []).map((m) => m.name)))) {
    methods[name] = groupStats(runs.flatMap((r) => (r.methods ?? []).filter((m) => m.name === name)));
  }
  return { window, phases, methods };
}

/** Per second, the share of attributed calls that went to each backend (summed over runs). */
export function sharePerSecond(runs: readonly RecordedRun[]): number[][] {
  const seconds = runs[0]?.seconds.length ?? 0;
  const backendCount = Math.max(0, ...runs.flatMap((r) => r.seconds.map((s) => s.perBackend.length)));
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

/**
 * Time to detect and to recover (reference-load-test.md §5), by the
 * simulator's own function so both report the same measure.
 */
export function detectAndRecover(
  shares: readonly number[][],
  faulty: readonly number[],
  fairShare: number,
  timeline: Timeline,
): { detectS: number | null; recoverS: number | null } {
  const { detectionSeconds, recoverySeconds } = detectionAndRecovery(
    shares.map((row) => Float64Array.from(row, (x) => (Number.isFinite(x) ? x : 0))),
    faulty,
    fairShare,
    timeline,
  );
  return { detectS: detectionSeconds, recoverS: recoverySeconds };
}
