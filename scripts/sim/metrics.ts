/**
 * What a run measures, as the reference's LoadGen and report.py do
 * (reference-load-test.md §5):
 * - latency from the intended start, per client, in HdrHistogram-style
 *   histograms per phase (before (0,20], fault (20,60], after (60,90] s of
 *   the measured window, by completion time); OK calls only for p50/p99/p99.9
 *   and, for p99All, every call with each failure counted at its deadline;
 * - a policy group's percentile = the mean of its clients' percentiles;
 *   a p99.9 only where every client had 10,000 OK calls (a method
 *   group's: where its pooled histogram had), as the load test publishes it;
 * - error rate = 1 − OK / ended over the reporting window;
 * - with several methods, the same per method group, pooled over the
 *   group's clients (the reference records one histogram per method group);
 * - where each group's calls were sent, per backend, in 100 ms bins by send
 *   time (shares per second, detection, recovery, herd shares).
 */
import { BUCKETS, bucketOf, Histogram } from './histogram';
import { Timeline } from './timeline';
import { p999From } from '../lib/percentile-rules';

export const PHASES = ['before', 'fault', 'after'] as const;
export type Phase = (typeof PHASES)[number];
export type Window = Phase | 'window';

export const BIN_MS = 100;
const BINS_PER_SECOND = 1000 / BIN_MS;

export interface MetricsLayout {
  clientGroups: readonly number[];
  groupCount: number;
  maxBackends: number;
  timeline: Timeline;
  /** The scenario's methods; with more than one, latency is also kept per (group, method). */
  methodCount?: number;
}

export class RunMetrics {
  readonly seconds: number;
  private readonly phaseOfSecond: Uint8Array;
  /** Histogram counts, [(client * 3 + phase) * BUCKETS + bucket]: one array, no per-call indirection. */
  private readonly okCounts: Uint32Array;
  private readonly allCounts: Uint32Array;
  /** [client * 3 + phase] */
  readonly ok: Float64Array;
  readonly failed: Float64Array;
  /** [(group * bins + bin) * maxBackends + backend] calls sent. */
  readonly sent: Int32Array;
  /** Backends published at each second ([second * maxBackends + backend]). */
  readonly published: Uint8Array;
  readonly bins: number;
  /** Per (group, phase, method), only with several methods: [((group * 3 + phase) * methods + method) * BUCKETS + bucket]. */
  private readonly methodOkCounts: Uint32Array;
  private readonly methodAllCounts: Uint32Array;
  readonly methodOk: Float64Array;
  readonly methodFailed: Float64Array;
  readonly methodCount: number;

  readonly measureStartMs: number;

  constructor(readonly layout: MetricsLayout) {
    const { measureS, faultStartS, faultEndS, warmupMs } = layout.timeline;
    this.measureStartMs = warmupMs;
    this.seconds = measureS;
    this.bins = this.seconds * BINS_PER_SECOND;
    this.phaseOfSecond = new Uint8Array(this.seconds);
    for (let s = 0; s < this.seconds; s++) {
      this.phaseOfSecond[s] = s < faultStartS ? 0 : s < faultEndS ? 1 : 2;
    }
    const clients = layout.clientGroups.length;
    this.okCounts = new Uint32Array(clients * 3 * BUCKETS);
    this.allCounts = new Uint32Array(clients * 3 * BUCKETS);
    this.ok = new Float64Array(clients * 3);
    this.failed = new Float64Array(clients * 3);
    this.sent = new Int32Array(layout.groupCount * this.bins * layout.maxBackends);
    this.published = new Uint8Array(this.seconds * layout.maxBackends);
    this.methodCount = layout.methodCount ?? 1;
    const methodRows = this.methodCount > 1 ? layout.groupCount * 3 * this.methodCount : 0;
    this.methodOkCounts = new Uint32Array(methodRows * BUCKETS);
    this.methodAllCounts = new Uint32Array(methodRows * BUCKETS);
    this.methodOk = new Float64Array(methodRows);
    this.methodFailed = new Float64Array(methodRows);
  }

  /** A call of `method` ended at `nowMs`; failures enter p99All at `deadlineMs`. */
  recordEnd(client: number, latencyMs: number, ok: boolean, deadlineMs: number, nowMs: number, method = 0): void {
    const second = Math.floor((nowMs - this.measureStartMs) / 1000);
    if (second < 0 || second >= this.seconds) {
      return;
    }
    const phase = this.phaseOfSecond[second];
    const bucket = bucketOf((ok ? latencyMs : deadlineMs) * 1000);
    record(this.okCounts, this.allCounts, this.ok, this.failed, client * 3 + phase, bucket, ok);
    if (this.methodCount > 1) {
      const row = (this.layout.clientGroups[client] * 3 + phase) * this.methodCount + method;
      record(this.methodOkCounts, this.methodAllCounts, this.methodOk, this.methodFailed, row, bucket, ok);
    }
  }

  /** The histogram of one group's OK (or all) calls of `method` in one phase (several methods only). */
  methodHistogram(group: number, method: number, phase: number, okOnly: boolean): Histogram {
    const row = (group * 3 + phase) * this.methodCount + method;
    const counts = (okOnly ? this.methodOkCounts : this.methodAllCounts).subarray(row * BUCKETS, (row + 1) * BUCKETS);
    const histogram = new Histogram(counts);
    histogram.total = okOnly ? this.methodOk[row] : this.methodOk[row] + this.methodFailed[row];
    return histogram;
  }

  /** The histogram of one client's OK (or all) calls in one phase. */
  histogram(client: number, phase: number, okOnly: boolean): Histogram {
    const row = client * 3 + phase;
    const counts = (okOnly ? this.okCounts : this.allCounts).subarray(row * BUCKETS, (row + 1) * BUCKETS);
    const histogram = new Histogram(counts);
    histogram.total = okOnly ? this.ok[row] : this.ok[row] + this.failed[row];
    return histogram;
  }

  recordSend(group: number, backend: number, nowMs: number): void {
    const bin = Math.floor((nowMs - this.measureStartMs) / BIN_MS);
    if (bin < 0 || bin >= this.bins) {
      return;
    }
    this.sent[(group * this.bins + bin) * this.layout.maxBackends + backend]++;
  }

  /** Called once per measured second with the published backend list. */
  recordPublished(second: number, backendIds: readonly number[]): void {
    if (second < 0 || second >= this.seconds) {
      return;
    }
    for (const id of backendIds) {
      this.published[second * this.layout.maxBackends + id] = 1;
    }
  }

  /** Calls `group` sent to each backend over bins [fromBin, toBin). */
  sentByBackend(group: number, fromBin: number, toBin: number): Float64Array {
    const backends = this.layout.maxBackends;
    const out = new Float64Array(backends);
    for (let bin = Math.max(0, fromBin); bin < Math.min(toBin, this.bins); bin++) {
      const base = (group * this.bins + bin) * backends;
      for (let b = 0; b < backends; b++) {
        out[b] += this.sent[base + b];
      }
    }
    return out;
  }

  publishedCount(second: number): number {
    let count = 0;
    const base = second * this.layout.maxBackends;
    for (let b = 0; b < this.layout.maxBackends; b++) {
      count += this.published[base + b];
    }
    return count;
  }
}

/** Counts one ended call in row `row` of a histogram set (OK calls at their latency's bucket, failures at the deadline's). */
function record(okCounts: Uint32Array, allCounts: Uint32Array, ok: Float64Array, failed: Float64Array, row: number, bucket: number, isOk: boolean): void {
  allCounts[row * BUCKETS + bucket]++;
  if (isOk) {
    okCounts[row * BUCKETS + bucket]++;
    ok[row]++;
  } else {
    failed[row]++;
  }
}

/** Seconds [from, to) a window covers. */
export function windowSeconds(window: Window, timeline: Timeline): [number, number] {
  switch (window) {
    case 'before':
      return [0, timeline.faultStartS];
    case 'fault':
      return [timeline.faultStartS, timeline.faultEndS];
    case 'after':
      return [timeline.faultEndS, timeline.measureS];
    default:
      return [0, timeline.measureS];
  }
}

export function phasesOf(window: Window): number[] {
  return window === 'window' ? [0, 1, 2] : [PHASES.indexOf(window)];
}

export interface LatencySummary {
  p50: number;
  p99: number;
  p999: number;
  p99All: number;
  /**
   * p99 of all calls (failures at the deadline) with every client's calls in
   * one histogram, not the mean of per-client p99s: the fleet's view, which
   * a tail concentrated in a few clients cannot lower.
   */
  p99AllPooled: number;
  errorRate: number;
  okCalls: number;
  failedCalls: number;
}

/** The reference's aggregation: percentiles per client, then the mean over the group's clients. */
export function summariseLatency(metrics: RunMetrics, clients: readonly number[], window: Window): LatencySummary {
  const phases = phasesOf(window);
  const sums = { p50: 0, p99: 0, p999: 0, p99All: 0 };
  // OK-call percentiles average the clients that had an OK call; p99All averages every client that ended a call, so
  // a client whose every call failed counts (at its deadline) rather than vanishing from the figure meant to show it.
  let counted = 0;
  let countedAll = 0;
  const pooled = new Histogram();
  let ok = 0;
  let failed = 0;
  let fewestOk = Infinity;
  for (const client of clients) {
    const okHist = new Histogram();
    const allHist = new Histogram();
    for (const phase of phases) {
      okHist.add(metrics.histogram(client, phase, true));
      allHist.add(metrics.histogram(client, phase, false));
      ok += metrics.ok[client * 3 + phase];
      failed += metrics.failed[client * 3 + phase];
    }
    pooled.add(allHist);
    if (allHist.total > 0) {
      countedAll++;
      sums.p99All += allHist.percentileMs(99);
    }
    if (okHist.total === 0) {
      continue;
    }
    counted++;
    fewestOk = Math.min(fewestOk, okHist.total);
    sums.p50 += okHist.percentileMs(50);
    sums.p99 += okHist.percentileMs(99);
    sums.p999 += okHist.percentileMs(99.9);
  }
  const mean = (x: number, n = counted): number => (n > 0 ? x / n : NaN);
  return {
    p50: mean(sums.p50),
    p99: mean(sums.p99),
    p999: p999From(fewestOk, () => mean(sums.p999)),
    p99All: mean(sums.p99All, countedAll),
    p99AllPooled: pooled.total > 0 ? pooled.percentileMs(99) : NaN,
    errorRate: ok + failed > 0 ? failed / (ok + failed) : 0,
    okCalls: ok,
    failedCalls: failed,
  };
}

/** One method group's latency over a window, pooled over the policy group's clients. */
export interface MethodLatency {
  p50: number;
  p99: number;
  p999: number;
  p99All: number;
  /** Failed / ended: for a scenario without faults, the share that missed the method's deadline. */
  errorRate: number;
  calls: number;
}

export function summariseMethod(metrics: RunMetrics, group: number, method: number, window: Window): MethodLatency {
  const okHist = new Histogram();
  const allHist = new Histogram();
  for (const phase of phasesOf(window)) {
    okHist.add(metrics.methodHistogram(group, method, phase, true));
    allHist.add(metrics.methodHistogram(group, method, phase, false));
  }
  const failed = allHist.total - okHist.total;
  return {
    p50: okHist.percentileMs(50),
    p99: okHist.percentileMs(99),
    p999: p999From(okHist.total, () => okHist.percentileMs(99.9)),
    p99All: allHist.percentileMs(99),
    errorRate: allHist.total > 0 ? failed / allHist.total : 0,
    calls: allHist.total,
  };
}

/** Per-second share of the group's calls per backend, seconds × backends. */
export function sharePerSecond(metrics: RunMetrics, group: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let s = 0; s < metrics.seconds; s++) {
    const sent = metrics.sentByBackend(group, s * BINS_PER_SECOND, (s + 1) * BINS_PER_SECOND);
    const total = sent.reduce((a, b) => a + b, 0);
    out.push(total > 0 ? sent.map((x) => x / total) : sent);
  }
  return out;
}

/**
 * Detection and recovery as report.py defines them: the faulty backends'
 * share per second as a 3-point trailing mean; detection = the first second
 * after the fault starts with the share below fair/3; recovery = after the
 * fault ends, the first run of 3 consecutive points within ±10 % of fair,
 * reported as (last point − 2 − fault end). Seconds; null if never, and
 * recovery null too where the window ends too soon after the fault to tell
 * (`recoveryMeasurable`).
 */
export function detectionAndRecovery(
  perSecond: readonly Float64Array[],
  faulty: readonly number[],
  fairShare: number,
  timeline: Timeline,
): { detectionSeconds: number | null; recoverySeconds: number | null } {
  const { faultStartS, faultEndS } = timeline;
  const points = perSecond.map((_, s) => {
    let sum = 0;
    let n = 0;
    for (let k = Math.max(0, s - 2); k <= s; k++) {
      sum += sumOver(perSecond[k], faulty);
      n++;
    }
    return sum / n;
  });
  // Point s covers the interval ending at t = s + 1.
  let detectionSeconds: number | null = null;
  for (let s = faultStartS; s < Math.min(faultEndS, points.length); s++) {
    if (points[s] < fairShare / 3) {
      detectionSeconds = s + 1 - faultStartS;
      break;
    }
  }
  let recoverySeconds: number | null = null;
  const near = (x: number): boolean => Math.abs(x - fairShare) <= 0.1 * fairShare;
  for (let s = faultEndS; recoveryMeasurable(timeline) && s + 2 < points.length; s++) {
    if (near(points[s]) && near(points[s + 1]) && near(points[s + 2])) {
      recoverySeconds = s + 2 + 1 - 2 - faultEndS;
      break;
    }
  }
  return { detectionSeconds, recoverySeconds };
}

/**
 * The seconds a window must run past a fault's end for recovery to be
 * measurable: a policy that left the faulty backends and is back at its
 * fair share the second the fault ends has its first trailing mean without
 * a fault second at end + 2, and needs three of them (end + 2 to end + 4).
 * Shorter, every policy that moved away reads "never", and one that never
 * moved (round_robin) reads 1 s.
 */
export const RECOVERY_WINDOW_AFTER_FAULT_S = 5;

/** Whether `timeline` runs long enough past its fault for `detectionAndRecovery`'s recovery to mean anything. */
export function recoveryMeasurable(timeline: Timeline): boolean {
  return timeline.measureS - timeline.faultEndS >= RECOVERY_WINDOW_AFTER_FAULT_S;
}

/** The seconds after a fault's end that `lostShareSeconds` reads. */
export const LOST_SHARE_SECONDS = 5;

/**
 * Recovery as a number rather than whole seconds: the share of fair that the
 * faulty backends lacked, second by second, over the LOST_SHARE_SECONDS after
 * the fault ends, Σ max(0, 1 − share ÷ fair), in seconds of their fair share
 * (0: back in full at once; taken back at a uniformly random instant within
 * the first second: 0.5). report.py's recovery (`detectionAndRecovery`) sits
 * at 4 s for nearly every engine that keeps a slow pod out during the fault,
 * so a whole second turns on a hair of one seed's ramp; this is the ramp
 * itself (docs/tuning-log.md §36). A healed pod's share still wanders a few per
 * cent about fair, which adds ~0.03 per second to any policy's figure.
 */
export function lostShareSeconds(perSecond: readonly Float64Array[], faulty: readonly number[], fairShare: number, timeline: Timeline): number {
  let lost = 0;
  const end = Math.min(timeline.faultEndS + LOST_SHARE_SECONDS, perSecond.length);
  for (let s = timeline.faultEndS; s < end; s++) {
    lost += Math.max(0, 1 - sumOver(perSecond[s], faulty) / fairShare);
  }
  return lost;
}

/** The sum of `row`'s entries at `backends`: the faulty pods' share of a second, or their calls in a bin. */
export function sumOver(row: ArrayLike<number>, backends: readonly number[]): number {
  let sum = 0;
  for (const backend of backends) {
    sum += row[backend];
  }
  return sum;
}

/**
 * The busiest healthy backend relative to a fair share (1 / backends
 * published): per second, the largest ratio among `healthy` backends; the
 * 95th percentile over the window's seconds, and the ratio over the whole
 * window.
 */
export function busiestHealthy(
  metrics: RunMetrics,
  group: number,
  healthy: Uint8Array,
  window: Window,
): { p95: number; window: number } {
  const [from, to] = windowSeconds(window, metrics.layout.timeline);
  const perSecond = sharePerSecond(metrics, group);
  const ratios: number[] = [];
  const windowSent = metrics.sentByBackend(group, from * BINS_PER_SECOND, to * BINS_PER_SECOND);
  const windowTotal = windowSent.reduce((a, b) => a + b, 0);
  let publishedSum = 0;
  for (let s = from; s < to; s++) {
    const fair = 1 / metrics.publishedCount(s);
    publishedSum += metrics.publishedCount(s);
    let worst = 0;
    for (let b = 0; b < healthy.length; b++) {
      if (healthy[b] && metrics.published[s * metrics.layout.maxBackends + b]) {
        worst = Math.max(worst, perSecond[s][b] / fair);
      }
    }
    ratios.push(worst);
  }
  ratios.sort((a, b) => a - b);
  const p95 = ratios.length > 0 ? ratios[Math.max(0, Math.ceil(0.95 * ratios.length) - 1)] : NaN;
  const fairWindow = (to - from) / publishedSum;
  let worstWindow = 0;
  for (let b = 0; b < healthy.length; b++) {
    if (healthy[b] && windowTotal > 0) {
      worstWindow = Math.max(worstWindow, windowSent[b] / windowTotal / fairWindow);
    }
  }
  return { p95, window: worstWindow };
}

/**
 * A fresh backend's share of the group's calls over [atMs, atMs + spanMs)
 * relative to fair (1 / backends published then), and its highest 100 ms bin.
 */
export function freshShare(
  metrics: RunMetrics,
  group: number,
  backend: number,
  atMs: number,
  spanMs: number,
  publishedCount: number,
): { firstSecond: number; peakBin: number } {
  const fromBin = Math.floor((atMs - metrics.measureStartMs) / BIN_MS);
  const toBin = fromBin + Math.ceil(spanMs / BIN_MS);
  const sent = metrics.sentByBackend(group, fromBin, toBin);
  const total = sent.reduce((a, b) => a + b, 0);
  let peakBin = 0;
  for (let bin = fromBin; bin < toBin; bin++) {
    const one = metrics.sentByBackend(group, bin, bin + 1);
    const binTotal = one.reduce((a, b) => a + b, 0);
    if (binTotal > 0) {
      peakBin = Math.max(peakBin, (one[backend] / binTotal) * publishedCount);
    }
  }
  return { firstSecond: total > 0 ? (sent[backend] / total) * publishedCount : NaN, peakBin };
}
