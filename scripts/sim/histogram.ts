/**
 * A latency histogram with HdrHistogram's layout at 3 significant digits:
 * values in whole microseconds, exact below 2048 µs, then 1024 sub-buckets
 * per power of two (≤ 0.1 % relative error), up to 2^27 µs (134 s).
 * Percentiles follow HdrHistogram's rule (the smallest recorded value with at
 * least ⌈p·N⌉ values at or below it, reported as the highest value
 * equivalent to its bucket), so numbers compare with the reference's
 * `Recorder`s. A record is a few integer operations: the simulator records
 * every call.
 */
const SUB_BUCKETS = 2048;
const HALF = 1024;
const MAX_EXPONENT = 17; // values < 2^(11 + 16) µs
export const HISTOGRAM_MAX_US = 2 ** (11 + MAX_EXPONENT - 1) - 1;
export const BUCKETS = SUB_BUCKETS + (MAX_EXPONENT - 1) * HALF;

export function bucketOf(valueUs: number): number {
  let v = (valueUs + 0.5) | 0;
  if (!(v >= 1)) {
    v = 1; // the reference floors at 1 µs
  } else if (v > HISTOGRAM_MAX_US || valueUs > HISTOGRAM_MAX_US) {
    v = HISTOGRAM_MAX_US;
  }
  if (v < SUB_BUCKETS) {
    return v;
  }
  const exponent = 31 - Math.clz32(v) - 10; // v >> exponent lies in [1024, 2048)
  return SUB_BUCKETS + (exponent - 1) * HALF + ((v >> exponent) - HALF);
}

/** The highest value (µs) that falls in `bucket`. */
export function highestInBucket(bucket: number): number {
  if (bucket < SUB_BUCKETS) {
    return bucket;
  }
  const exponent = Math.floor((bucket - SUB_BUCKETS) / HALF) + 1;
  const sub = ((bucket - SUB_BUCKETS) % HALF) + HALF;
  return sub * 2 ** exponent + 2 ** exponent - 1;
}

export class Histogram {
  readonly counts: Uint32Array;
  total = 0;

  /** A histogram over `BUCKETS` counts, by default its own; a view lets many share one array. */
  constructor(counts: Uint32Array = new Uint32Array(BUCKETS)) {
    this.counts = counts;
  }

  recordMs(valueMs: number): void {
    this.counts[bucketOf(valueMs * 1000)]++;
    this.total++;
  }

  add(other: Histogram): void {
    const counts = this.counts;
    const theirs = other.counts;
    for (let i = 0; i < BUCKETS; i++) {
      counts[i] += theirs[i];
    }
    this.total += other.total;
  }

  /** The value at percentile `p` (0–100), in ms; NaN when empty. */
  percentileMs(p: number): number {
    if (this.total === 0) {
      return NaN;
    }
    const wanted = Math.max(1, Math.ceil((Math.min(p, 100) / 100) * this.total - 1e-9));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i];
      if (seen >= wanted) {
        return highestInBucket(i) / 1000;
      }
    }
    return highestInBucket(BUCKETS - 1) / 1000;
  }
}
