/**
 * Merging a later session's load-test runs into a saved results file, so one
 * part of the report (say the low-concurrency regimes, an hour of runs) can
 * be measured again without re-running the rest (the reference layout, the
 * overhead benchmarks, the simulator: hours more).
 *
 * A run belongs to one kind: the reference layout, the uniform layout at the
 * reference stand-in's scale, or a low-concurrency regime. The addition's
 * kinds replace the base's runs of those kinds whole (an old regime whose
 * fleet size changed must not linger beside the new one); every other run,
 * and everything that is not the load test, stays the base's.
 */
import { regimeOfRun } from './aggregate';
import type { BenchResults } from './report';
import { isLowConcurrency } from './scale';

export type RunKind = 'reference' | 'uniform' | 'low-concurrency';

export function runKind(run: BenchResults['load'][number]): RunKind {
  if (run.layout === 'reference') return 'reference';
  return isLowConcurrency(regimeOfRun(run)) ? 'low-concurrency' : 'uniform';
}

/** Where a merged file's runs of some kinds came from: stated in the report beside the base's own date and load. */
export interface MergedSession {
  readonly startedAt: string;
  readonly packageSource?: string;
  readonly loadAverage: readonly number[];
  readonly kinds: readonly RunKind[];
  readonly runs: number;
  readonly repeats: number;
}

/**
 * `base` with `addition`'s load-test runs in place of its runs of the same
 * kinds. Throws when the two timelines differ: the report describes every
 * regime's warm-up, window and fault from one timeline.
 */
export function mergeLoadRuns(base: BenchResults, addition: BenchResults): BenchResults {
  if (addition.load.length === 0) {
    throw new RangeError('the file to merge has no load-test runs');
  }
  if (addition.options.peakEwmaConfig !== undefined || addition.load.some((run) => run.peakEwmaConfig !== undefined)) {
    throw new RangeError('the file to merge ran peak_ewma with --peak-ewma-config: the report would call a switch peak_ewma');
  }
  const timeline = (r: BenchResults): string => JSON.stringify(r.load[0]?.timeline ?? null);
  if (base.load.length > 0 && timeline(base) !== timeline(addition)) {
    throw new RangeError(`the timelines differ (${timeline(base)} vs ${timeline(addition)}): one report describes one timeline`);
  }
  const kinds = new Set(addition.load.map(runKind));
  const session: MergedSession = {
    startedAt: addition.startedAt,
    packageSource: addition.packageSource,
    loadAverage: addition.machine.loadAverage,
    kinds: Array.from(kinds),
    runs: addition.load.length,
    repeats: addition.options.repeats,
  };
  return {
    ...base,
    load: [...base.load.filter((run) => !kinds.has(runKind(run))), ...addition.load],
    // An earlier merge of the same kinds is superseded with its runs.
    merged: [...(base.merged ?? []).filter((s) => !s.kinds.every((k) => kinds.has(k))), session],
  };
}
