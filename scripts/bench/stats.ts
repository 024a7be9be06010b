/** Small statistics helpers for benchmark results. */

export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The mean of figures read back from a JSON file, which wrote NaN (a
 * percentile with nothing to rank) as null: NaN if any is null, where a sum
 * would read it as 0 and a collapsed run as a fast one.
 */
export function meanOfRead(values: readonly (number | null)[]): number {
  return values.some((value) => value === null) ? NaN : mean(values as number[]);
}

/** a / b, NaN when b is 0 or either is not finite. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN;
}

/** A copy of `items` in uniformly random order (Fisher–Yates), for run orders that spread drift evenly. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** A two-sided interval, [low, high]. */
export type Interval = readonly [number, number];

/** Whether interval `a` lies wholly below `b`: they do not overlap, and a's values are the lower. */
export function liesBelow(a: Interval, b: Interval): boolean {
  return a[1] < b[0];
}

/** Bootstrap resamples per interval: enough that the 2.5th and 97.5th percentiles settle to a few %. */
export const BOOTSTRAP_RESAMPLES = 2000;

/**
 * Percentile bootstrap interval of a statistic of n items (repeats of one
 * measurement, or pairs of them): each of `resamples` resamples draws n
 * indices with replacement, one `random()` each, which `statistic` reads
 * through `draw` and folds into one number; the interval is the
 * (1 − level)/2 and (1 + level)/2 quantiles of those numbers. `random` is
 * seeded by the caller, so an interval is reproducible (and assertable).
 */
export function bootstrapInterval(
  n: number,
  statistic: (draw: () => number) => number,
  random: () => number,
  level = 0.95,
  resamples = BOOTSTRAP_RESAMPLES,
): Interval {
  const draw = (): number => Math.floor(random() * n);
  const values = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    values[r] = statistic(draw);
  }
  values.sort();
  const at = (q: number): number => values[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))];
  return [at((1 - level) / 2), at((1 + level) / 2)];
}

/**
 * Percentile bootstrap interval of the mean of `values` (`bootstrapInterval`).
 * With one value the interval is that value: one run says nothing about
 * spread, and the report prints the repeat count beside it.
 */
export function bootstrapMeanInterval(
  values: readonly number[],
  random: () => number,
  level = 0.95,
  resamples = BOOTSTRAP_RESAMPLES,
): Interval {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [NaN, NaN];
  if (finite.length === 1) return [finite[0], finite[0]];
  const meanOfResample = (draw: () => number): number => {
    let sum = 0;
    for (let i = 0; i < finite.length; i++) {
      sum += finite[draw()];
    }
    return sum / finite.length;
  };
  return bootstrapInterval(finite.length, meanOfResample, random, level, resamples);
}

/** A 32-bit FNV-1a hash of `text`: a stable seed per table cell, so intervals do not depend on row order. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return h;
}
