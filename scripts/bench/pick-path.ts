/**
 * The pick-path microbenchmark: ns per call for pick + onCallStarted +
 * onCallEnded, grpc-js's round_robin picker against ours, at several
 * endpoint counts. Pickers are built by grpc-js from service-config JSON over
 * READY fake subchannels (fake-channel.ts says why).
 *
 * Each sample times one call's pick path with `performance.now()`; the
 * timer's own cost (two back-to-back reads, median) is subtracted. Every
 * (endpoint count, policy) pair is interleaved with every other in short
 * batches in a shuffled order, so drift (JIT, GC, neighbours on the machine)
 * hits them alike: the ratio across endpoint counts ("flat from 10 to
 * 1000") is measured side by side too. Until 2026-12-07 the counts ran one
 * after another. Interleaved, twelve runs of one build on a quiet machine
 * (2026-12-07) read peak_ewma's mean at 1000 endpoints over its mean at 10
 * as 0.99-1.31, median 1.17 (least_request 1.35-1.86, median 1.66): one run
 * cannot settle a ratio this close to 1; take the median of several.
 */
import { experimental, Metadata } from '@grpc/grpc-js';
import * as hdr from 'hdr-histogram-js';
import { buildPicker, BuiltPicker, pickOnce } from './fake-channel';
import { loadPackage } from './package-under-test';
import { loadBalancingConfig, PolicyId, POLICY_LABELS, registerPolicies } from './policies';
import { median, shuffled } from './stats';

export const PICK_POLICIES: readonly PolicyId[] = ['round_robin', 'peak_ewma', 'least_request'];
export const PICK_ENDPOINT_COUNTS: readonly number[] = [10, 50, 500, 1000];

export interface PickPathOptions {
  readonly endpointCounts: readonly number[];
  readonly policies: readonly PolicyId[];
  /** Timed rounds; each round runs one batch per endpoint count and policy. */
  readonly rounds: number;
  readonly batchSize: number;
  readonly warmupRounds: number;
}

export const DEFAULT_PICK_PATH_OPTIONS: PickPathOptions = {
  endpointCounts: PICK_ENDPOINT_COUNTS,
  policies: PICK_POLICIES,
  rounds: 60,
  batchSize: 2000,
  warmupRounds: 10,
};

export interface PickPathResult {
  readonly endpoints: number;
  readonly policy: PolicyId;
  readonly samples: number;
  readonly p50Ns: number;
  readonly p99Ns: number;
  readonly p999Ns: number;
  /** Mean of the per-batch means (timer cost subtracted). */
  readonly meanNs: number;
  /**
   * Mean ns of the balancer's exitIdle(), which grpc-js calls once per call
   * (InternalChannel.getConfig): part of what a policy costs per call.
   */
  readonly exitIdleNs: number;
}

export interface PickPathReport {
  readonly timerOverheadNs: number;
  readonly results: readonly PickPathResult[];
}

function nsHistogram(): hdr.Histogram {
  return hdr.build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 1e9,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

/** Median cost of one `performance.now()` pair, in ns. */
function timerOverheadNs(): number {
  const samples: number[] = [];
  for (let i = 0; i < 200_000; i++) {
    const t0 = performance.now();
    const t1 = performance.now();
    samples.push((t1 - t0) * 1e6);
  }
  return median(samples);
}

/** Fails loudly if one of our policies silently became something else. */
function assertOurPolicyRan(policy: PolicyId, built: BuiltPicker, before: number): void {
  if (policy === 'round_robin') {
    return;
  }
  if (totalStartedCalls() <= before) {
    throw new Error(`${policy}: picker ${built.picker.constructor.name} accounted no calls; the policy did not run`);
  }
}

function totalStartedCalls(): number {
  return loadPackage()
    .getLoadBalancerStats().reduce((sum, s) => sum + s.endpoints.reduce((x, e) => x + e.callsStarted, 0), 0);
}

export async function runPickPathBenchmark(
  options: PickPathOptions = DEFAULT_PICK_PATH_OPTIONS,
  onProgress: (line: string) => void = () => {},
): Promise<PickPathReport> {
  registerPolicies();
  const overheadNs = timerOverheadNs();
  const results: PickPathResult[] = [];
  const args: experimental.PickArgs = { metadata: new Metadata(), extraPickInfo: {} };
  const trailers = new Metadata();
  interface Cell {
    readonly endpoints: number;
    readonly policy: PolicyId;
    readonly built: BuiltPicker;
    readonly histogram: hdr.Histogram;
    readonly batchMeans: number[];
    readonly exitIdleMeans: number[];
  }
  const cells: Cell[] = [];
  for (const endpoints of options.endpointCounts) {
    for (const policy of options.policies) {
      const built = await buildPicker(loadBalancingConfig(policy), endpoints);
      cells.push({ endpoints, policy, built, histogram: nsHistogram(), batchMeans: [], exitIdleMeans: [] });
    }
  }
  let sink: unknown = null;
  for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
    const timed = round >= options.warmupRounds;
    for (const cell of shuffled(cells)) {
      const { picker, exitIdle } = cell.built;
      const before = round === options.warmupRounds ? totalStartedCalls() : 0;
      const batchStart = performance.now();
      for (let i = 0; i < options.batchSize; i++) {
        const t0 = performance.now();
        sink = pickOnce(picker, args, trailers);
        const t1 = performance.now();
        if (timed) {
          cell.histogram.recordValue(Math.max(1, Math.round((t1 - t0) * 1e6 - overheadNs)));
        }
      }
      const batchNs = (performance.now() - batchStart) * 1e6;
      const idleStart = performance.now();
      for (let i = 0; i < options.batchSize; i++) {
        exitIdle();
      }
      const idleNs = (performance.now() - idleStart) * 1e6;
      if (timed) {
        cell.batchMeans.push(batchNs / options.batchSize - 2 * overheadNs);
        cell.exitIdleMeans.push(idleNs / options.batchSize);
      }
      if (round === options.warmupRounds) {
        assertOurPolicyRan(cell.policy, cell.built, before);
      }
    }
  }
  if (sink === null) {
    throw new Error('pick returned no subchannel');
  }
  for (const cell of cells) {
    const { histogram, batchMeans } = cell;
    results.push({
      endpoints: cell.endpoints,
      policy: cell.policy,
      samples: histogram.totalCount,
      p50Ns: histogram.getValueAtPercentile(50),
      p99Ns: histogram.getValueAtPercentile(99),
      p999Ns: histogram.getValueAtPercentile(99.9),
      meanNs: batchMeans.reduce((a, b) => a + b, 0) / batchMeans.length,
      exitIdleNs: median(cell.exitIdleMeans),
    });
    histogram.destroy();
    cell.built.destroy();
  }
  for (const endpoints of options.endpointCounts) {
    onProgress(
      `pick path @${endpoints}: ` +
        results
          .filter((r) => r.endpoints === endpoints)
          .map((r) => `${POLICY_LABELS[r.policy]} p50 ${r.p50Ns} ns p99 ${r.p99Ns} ns exitIdle ${r.exitIdleNs.toFixed(0)} ns`)
          .join(', '),
    );
  }
  return { timerOverheadNs: overheadNs, results };
}
