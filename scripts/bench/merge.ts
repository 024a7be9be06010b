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
 * and everything that is not the load test, stays the base's, except the
 * simulator's run of the same scenarios, which goes with the reference
 * layout's runs: the report sets the two side by side, and an engine's
 * real numbers belong beside its own simulated ones.
 *
 * The overhead benchmarks (pick path, CPU per RPC, update time) are merged
 * whole (`--merge-overhead`, `mergeOverhead`): they are minutes, not hours,
 * and each compares policies measured together.
 *
 * Or by cell (`--merge-cells`, `mergeLoadCells`): a cell is one scenario in
 * one layout and regime under one policy. Several files' runs of a cell are
 * pooled in place of the base's, so one cell can gather every set measured
 * of it (a target judged over many sessions) while its neighbours stay.
 */
import { regimeOfRun } from './aggregate';
import { NOT_THE_REPORTS } from './args';
import type { BenchResults } from './report';
import { isLowConcurrency, regimeKey } from './scale';
import { longestStallMs } from './stalls';

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
  /** Merged by cell (`mergeLoadCells`): each cell it gave (`cellKey`) and the repeats of it kept; absent for a merge by kind. */
  readonly cells?: Readonly<Record<string, number>>;
  /** The stall rule its runs were measured under (`--max-stall`), if any. */
  readonly maxStallMs?: number;
  /** The bound of `--drop-stalled` it was merged with, wall ms, if any. */
  readonly dropStalledMs?: number;
  /** The repeats that bound dropped: group (`groupKey`), the repeat's number in its file, its longest stall (wall ms). */
  readonly dropped?: readonly { readonly group: string; readonly repeat: number; readonly stallMs: number }[];
}

/**
 * `base` with `addition`'s load-test runs in place of its runs of the same
 * kinds. Throws when the two timelines differ: the report describes every
 * regime's warm-up, window and fault from one timeline.
 */
export function mergeLoadRuns(base: BenchResults, addition: BenchResults): BenchResults {
  checkMergeable(base, addition, 'the file to merge');
  const kinds = new Set(addition.load.map(runKind));
  const session: MergedSession = {
    startedAt: addition.startedAt,
    packageSource: addition.packageSource,
    loadAverage: addition.machine.loadAverage,
    kinds: Array.from(kinds),
    runs: addition.load.length,
    repeats: addition.options.repeats,
  };
  const simulator = kinds.has('reference') && addition.simulator ? addition.simulator : base.simulator;
  return {
    ...base,
    simulator,
    load: [...base.load.filter((run) => !kinds.has(runKind(run))), ...addition.load],
    // An earlier merge of the same kinds is superseded with its runs.
    merged: [...(base.merged ?? []).filter((s) => !s.kinds.every((k) => kinds.has(k))), session],
  };
}

/** A saved run. */
type Run = BenchResults['load'][number];

/** Its group: one scenario in one layout and regime, every policy that ran it. Repeats pair within a group. */
export function groupKey(run: Run): string {
  return `${run.scenario} ${run.layout} ${regimeKey(regimeOfRun(run))}`;
}

/** Its cell: its group and its policies ("s02 uniform 1x20/6 peak_ewma"). */
export function cellKey(run: Run): string {
  return `${groupKey(run)} ${run.policies.map((p) => p.policy).join('+')}`;
}

/** A cell key's group and its policies ("peak_ewma", or several joined by "+"): `cellKey` read back. */
export function splitCellKey(cell: string): { group: string; policies: string } {
  const at = cell.lastIndexOf(' ');
  return { group: cell.slice(0, at), policies: cell.slice(at + 1) };
}

export interface CellMergeOptions {
  /** Only these scenarios' runs are taken from the additions; absent: all. */
  readonly scenarios?: readonly string[];
  /** A repeat of a group in which any run stalled longer than this (wall ms, stalls.ts) is dropped with all its runs; absent: none is. */
  readonly dropStalledMs?: number;
}

/**
 * `base` with its runs of every cell the `additions` measured replaced by
 * all the additions' runs of those cells. Within each group the additions'
 * repeats are renumbered after the previous file's (and after the base's
 * runs that stay in it), so a file's runs that ran side by side keep one
 * repeat number and no two sessions share one; the report pairs policies
 * by that number (side-by-side.ts). Each file is
 * recorded as a merged session with the cells it gave.
 */
export function mergeLoadCells(base: BenchResults, additions: readonly BenchResults[], options: CellMergeOptions = {}): BenchResults {
  const taken = additions.map((addition, i) => {
    checkMergeable(base, addition, `file ${i + 1} to merge`);
    const runs = addition.load.filter((run) => !options.scenarios || options.scenarios.includes(run.scenario));
    const repeatOf = (run: Run): string => `${groupKey(run)}#${run.repeat ?? 0}`;
    const dropped = new Map<string, { group: string; repeat: number; stallMs: number }>();
    for (const run of runs) {
      const stallMs = longestStallMs(run);
      if (options.dropStalledMs !== undefined && stallMs > options.dropStalledMs) {
        const stalled = dropped.get(repeatOf(run));
        dropped.set(repeatOf(run), { group: groupKey(run), repeat: run.repeat ?? 0, stallMs: Math.max(stallMs, stalled?.stallMs ?? 0) });
      }
    }
    const kept = runs.filter((run) => !dropped.has(repeatOf(run)));
    return { addition, runs, kept, dropped: Array.from(dropped.values()) };
  });
  if (taken.every((t) => t.runs.length === 0)) {
    throw new RangeError(`the files to merge have no load-test runs${options.scenarios ? ` of ${options.scenarios.join(', ')}` : ''}`);
  }
  const cells = new Set(taken.flatMap((t) => t.runs.map(cellKey)));
  const staying = base.load.filter((run) => !cells.has(cellKey(run)));
  // Numbered past the base's runs that stay in a group too, so that no pooled run pairs with one of another session.
  const nextRepeat = new Map<string, number>();
  for (const run of staying) nextRepeat.set(groupKey(run), Math.max(nextRepeat.get(groupKey(run)) ?? 0, (run.repeat ?? 0) + 1));
  const pooled: Run[] = [];
  for (const { kept } of taken) {
    const offsets = new Map(kept.map((run) => [groupKey(run), nextRepeat.get(groupKey(run)) ?? 0]));
    for (const run of kept) {
      const repeat = (offsets.get(groupKey(run)) ?? 0) + (run.repeat ?? 0);
      pooled.push({ ...run, repeat });
      nextRepeat.set(groupKey(run), Math.max(nextRepeat.get(groupKey(run)) ?? 0, repeat + 1));
    }
  }
  const sessions: MergedSession[] = taken
    .filter((t) => t.runs.length > 0)
    .map(({ addition, runs, kept, dropped }) => {
      const repeats = new Map<string, Set<number>>(runs.map((run) => [cellKey(run), new Set()]));
      for (const run of kept) repeats.get(cellKey(run))!.add(run.repeat ?? 0);
      return {
        startedAt: addition.startedAt,
        packageSource: addition.packageSource,
        loadAverage: addition.machine.loadAverage,
        kinds: Array.from(new Set(runs.map(runKind))),
        runs: kept.length,
        repeats: Math.max(...Array.from(repeats.values(), (r) => r.size)),
        cells: Object.fromEntries(Array.from(repeats, ([cell, r]) => [cell, r.size])),
        ...(addition.options.maxStallMs !== undefined ? { maxStallMs: addition.options.maxStallMs } : {}),
        ...(options.dropStalledMs !== undefined ? { dropStalledMs: options.dropStalledMs, dropped } : {}),
      };
    });
  // A cell merged again loses its earlier sessions; a session keeps the cells still its, a merge by kind stays whole.
  const earlier = (base.merged ?? []).flatMap((s): MergedSession[] => {
    if (s.cells === undefined) return [s];
    const still = Object.entries(s.cells).filter(([cell]) => !cells.has(cell));
    return still.length === 0 ? [] : [{ ...s, cells: Object.fromEntries(still) }];
  });
  return {
    ...base,
    load: [...staying, ...pooled],
    merged: [...earlier, ...sessions],
  };
}

function checkMergeable(base: BenchResults, addition: BenchResults, name: string): void {
  if (addition.load.length === 0) {
    throw new RangeError(`${name} has no load-test runs`);
  }
  refuseSwitch(addition, name);
  const timeline = (r: BenchResults): string => JSON.stringify(r.load[0]?.timeline ?? null);
  if (base.load.length > 0 && timeline(base) !== timeline(addition)) {
    throw new RangeError(`the timelines differ (${timeline(base)} vs ${timeline(addition)}): one report describes one timeline`);
  }
}

/** Where the overhead benchmarks came from when a later session's replaced the file's own (`mergeOverhead`). */
export interface OverheadSession {
  readonly startedAt: string;
  readonly packageSource?: string;
  readonly loadAverage: readonly number[];
  /** The benchmarks it replaced, by suite name. */
  readonly suites: readonly ('pick' | 'cpu' | 'update')[];
}

/** `base` with `addition`'s overhead benchmarks (pick path, CPU per RPC, update time) in place of its own, each one the addition ran. */
export function mergeOverhead(base: BenchResults, addition: BenchResults): BenchResults {
  const suites = (['pick', 'cpu', 'update'] as const).filter((suite) => (addition[suite] ?? null) !== null);
  if (suites.length === 0) {
    throw new RangeError('the file to merge has no overhead benchmark (pick path, CPU per RPC or update time)');
  }
  refuseSwitch(addition, 'the file to merge');
  const session: OverheadSession = { startedAt: addition.startedAt, packageSource: addition.packageSource, loadAverage: addition.machine.loadAverage, suites };
  return {
    ...base,
    ...Object.fromEntries(suites.map((suite) => [suite, addition[suite]])),
    // A suite merged again is the later session's; one it did not run stays with the session that did.
    overheadMerged: [...(base.overheadMerged ?? []).map((s) => ({ ...s, suites: s.suites.filter((x) => !suites.includes(x)) })).filter((s) => s.suites.length > 0), session],
  };
}

/** A file whose options or runs carry a field of args.ts `NOT_THE_REPORTS` (a switch, callers that retry) is not the report's. */
function refuseSwitch(addition: BenchResults, name: string): void {
  for (const { field, fileRan } of NOT_THE_REPORTS) {
    if (addition.options[field] !== undefined || addition.load.some((run) => run[field] !== undefined)) {
      throw new RangeError(`${name} ${fileRan}`);
    }
  }
}
