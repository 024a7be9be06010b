/**
 * Latency histograms: HdrHistogram (hdr-histogram-js) in microseconds, 3
 * significant digits, up to 60 s, as the reference's Recorder. Histograms
 * cross process boundaries as compressed base64 and are merged by adding
 * counts, so a merged histogram is exact (not an average of percentiles).
 */
import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** 60 s in µs: anything slower is clamped (the deadline is far below). */
export const HIGHEST_TRACKABLE_US = 60_000_000;

export function newHistogram(): Histogram {
  return hdr.build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

/** Records a latency in ms (fractional) as whole µs, floored at 1 µs like the reference. */
export function recordMs(histogram: Histogram, latencyMs: number): void {
  const us = Math.round(latencyMs * 1000);
  histogram.recordValue(Math.min(HIGHEST_TRACKABLE_US, Math.max(1, us)));
}

export function encodeHistogram(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(encoded, 32, false);
  // Re-home into our standard shape so later merges never resize.
  const histogram = newHistogram();
  histogram.add(decoded);
  decoded.destroy();
  return histogram;
}

/** A new histogram holding the counts of all the inputs. */
export function mergeHistograms(histograms: readonly Histogram[]): Histogram {
  const merged = newHistogram();
  for (const histogram of histograms) {
    merged.add(histogram);
  }
  return merged;
}

/** Percentiles in ms; all NaN when the histogram is empty. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

export function summarize(histogram: Histogram): LatencySummary {
  const count = histogram.totalCount;
  if (count === 0) {
    return { count: 0, p50Ms: NaN, p90Ms: NaN, p99Ms: NaN, p999Ms: NaN, maxMs: NaN, meanMs: NaN };
  }
  const at = (percentile: number): number => histogram.getValueAtPercentile(percentile) / 1000;
  return {
    count,
    p50Ms: at(50),
    p90Ms: at(90),
    p99Ms: at(99),
    p999Ms: at(99.9),
    maxMs: histogram.maxValue / 1000,
    meanMs: histogram.mean / 1000,
  };
}
