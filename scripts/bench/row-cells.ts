/**
 * How a row's figures read in a table cell or a verdict: the mean over
 * repeats with its bootstrap interval ("21.5ms [20.1ms, 23.0ms]"). One
 * definition for the report's tables, the method tables and the verdicts.
 * Typed by the fields read, so any row that has them (aggregate.ts's, a
 * method group's) reads the same.
 */
import { formatMs, formatPercent } from './progress';
import { withInterval } from './tables';

type Interval = readonly [number, number];

export const p99Cell = (r: { p99Ms: number; p99CiMs: Interval; repeats: number }): string => withInterval(r.p99Ms, r.p99CiMs, r.repeats, formatMs);
export const allP99Cell = (r: { allP99Ms: number; allP99CiMs: Interval; repeats: number }): string => withInterval(r.allP99Ms, r.allP99CiMs, r.repeats, formatMs);
export const errorCell = (r: { errorRate: number; errorRateCi: Interval; repeats: number }): string =>
  withInterval(r.errorRate, r.errorRateCi, r.repeats, (x) => formatPercent(x));
export const shareCell = (r: { faultyShare: number; faultyShareCi: Interval; repeats: number }): string =>
  withInterval(r.faultyShare, r.faultyShareCi, r.repeats, (x) => formatPercent(x, 1));

/** Row labels grouped by their repeat count, in the order the counts first occur. */
export function labelsByCount(rows: readonly { readonly label: string; readonly repeats: number }[]): [repeats: number, labels: string[]][] {
  const byCount = new Map<number, string[]>();
  for (const row of rows) byCount.set(row.repeats, [...(byCount.get(row.repeats) ?? []), row.label]);
  return Array.from(byCount);
}

/** "3 repeats", "1 repeat". */
export function repeatsWord(n: number): string {
  return `${n} repeat${n === 1 ? '' : 's'}`;
}

/**
 * How many repeats rows stand on: "3 repeats", or where cells were pooled
 * from several sessions (merge.ts `mergeLoadCells`) and counts differ, the
 * most common count with the others named: "3 repeats (37 of round_robin, peak_ewma)".
 */
export function repeatsText(rows: readonly { readonly label: string; readonly repeats: number }[]): string {
  // The count most rows share leads; of two shared alike, the larger.
  const [main, ...others] = labelsByCount(rows).sort((a, b) => b[1].length - a[1].length || b[0] - a[0]);
  if (main === undefined) return repeatsWord(0);
  return repeatsWord(main[0]) + (others.length > 0 ? ` (${others.map(([n, labels]) => `${n} of ${labels.join(', ')}`).join('; ')})` : '');
}
