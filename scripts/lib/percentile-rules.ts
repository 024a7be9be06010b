/**
 * When a tail percentile is published. A p99.9 read from a histogram of n
 * values rests on the n / 1000 largest: under 10,000 values that is fewer
 * than ten calls, and the "p99.9" is a client's few slowest calls, which
 * one stall or one unlucky pick moves at will. So the load test and the
 * simulator read a p99.9 only from histograms holding at least this many
 * values (in each, every client's own histogram when the figure is a mean
 * over clients, the pooled one when it is pooled), and print "–" otherwise.
 */
export const P999_MIN_SAMPLES = 10_000;

/** `read()` if `samples` are enough for a p99.9, else NaN (nothing to publish). */
export function p999From(samples: number, read: () => number): number {
  return samples >= P999_MIN_SAMPLES ? read() : NaN;
}
