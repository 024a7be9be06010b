/**
 * Address-update time: how long one updateAddressList over an unchanged
 * list of READY endpoints blocks the event loop, ours beside grpc-js's
 * round_robin, at 1,000 and 2,000 endpoints. Every DNS re-resolution and EDS
 * update pays it. Target (issue 14): ≤ 1.5× round_robin at each count, and
 * growth with the endpoint count no faster than linear.
 *
 * Balancers are built by grpc-js from service-config JSON over READY fake
 * subchannels (fake-channel.ts says why). One sample is the synchronous
 * update plus everything it queued on nextTick and microtasks (measured to
 * the next setImmediate, which runs after them). Policies are interleaved in
 * shuffled order per round, so drift hits them alike; the median is kept.
 *
 *   npm run bench:update-time            (or: npm run bench -- --suite update)
 */
import { connectivityState, experimental } from '@grpc/grpc-js';
import { fakeEndpoints, readyChannelHelper } from './fake-channel';
import { builtFrom, loadPackage } from './package-under-test';
import { loadBalancingConfig, PolicyId, POLICY_LABELS, registerPolicies } from './policies';
import { updateTimeTable } from './report-tables';
import { median, shuffled } from './stats';
import { textTable } from './tables';

export const UPDATE_POLICIES: readonly PolicyId[] = ['round_robin', 'peak_ewma', 'least_request'];
export const UPDATE_ENDPOINT_COUNTS: readonly number[] = [1000, 2000];

export interface UpdateTimeOptions {
  readonly endpointCounts: readonly number[];
  readonly policies: readonly PolicyId[];
  readonly rounds: number;
  readonly warmupRounds: number;
}

export const DEFAULT_UPDATE_TIME_OPTIONS: UpdateTimeOptions = {
  endpointCounts: UPDATE_ENDPOINT_COUNTS,
  policies: UPDATE_POLICIES,
  rounds: 30,
  warmupRounds: 5,
};

export interface UpdateTimeResult {
  readonly endpoints: number;
  readonly policy: PolicyId;
  readonly samples: number;
  readonly medianMs: number;
  /** medianMs over round_robin's at the same endpoint count. */
  readonly vsRoundRobin: number;
}

export interface UpdateTimeReport {
  readonly source: string;
  readonly results: readonly UpdateTimeResult[];
}

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A balancer over `count` READY fake endpoints, and a way to re-send it the same list. */
async function buildBalancer(policy: PolicyId, count: number) {
  let state = connectivityState.IDLE as connectivityState;
  const handler = new experimental.ChildLoadBalancerHandler(readyChannelHelper((published) => (state = published)));
  const config = experimental.parseLoadBalancingConfig(loadBalancingConfig(policy) as never);
  // A resolver hands over a fresh list each time, with the same contents.
  const update = () =>
    handler.updateAddressList(experimental.statusOrFromValue(fakeEndpoints(count)), config, {}, 'update-time');
  update();
  for (let i = 0; i < 10 && state !== connectivityState.READY; i++) {
    await nextMacrotask();
  }
  const assertReady = () => {
    if (state !== connectivityState.READY) {
      throw new Error(`${policy} over ${count} fake endpoints is ${connectivityState[state]}, not READY`);
    }
  };
  assertReady();
  return { update, assertReady, destroy: () => handler.destroy() };
}

/** Fails loudly if one of our policies silently became something else (grpc-js falls back to pick_first). */
function assertOurPolicyRan(policy: PolicyId, count: number): void {
  if (policy === 'round_robin') {
    return;
  }
  const name = Object.keys(loadBalancingConfig(policy))[0];
  const ours = loadPackage()
    .getLoadBalancerStats()
    .some((stats) => stats.policy === name && stats.endpoints.length === count && stats.state === 'READY');
  if (!ours) {
    throw new Error(`${policy}: no balancer of ours over ${count} endpoints is live; the policy did not run`);
  }
}

export async function runUpdateTimeBenchmark(
  options: UpdateTimeOptions = DEFAULT_UPDATE_TIME_OPTIONS,
  onProgress: (line: string) => void = () => {},
): Promise<UpdateTimeReport> {
  registerPolicies();
  const results: UpdateTimeResult[] = [];
  for (const endpoints of options.endpointCounts) {
    const balancers = new Map<PolicyId, Awaited<ReturnType<typeof buildBalancer>>>();
    for (const policy of options.policies) {
      balancers.set(policy, await buildBalancer(policy, endpoints));
      assertOurPolicyRan(policy, endpoints);
    }
    const samples = new Map(options.policies.map((policy) => [policy, [] as number[]]));
    for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
      for (const policy of shuffled(options.policies)) {
        const balancer = balancers.get(policy)!;
        const startMs = performance.now();
        balancer.update();
        await nextMacrotask();
        const elapsedMs = performance.now() - startMs;
        balancer.assertReady();
        if (round >= options.warmupRounds) {
          samples.get(policy)!.push(elapsedMs);
        }
      }
    }
    const baselineMs = median(samples.get('round_robin') ?? [NaN]);
    for (const policy of options.policies) {
      const medianMs = median(samples.get(policy)!);
      results.push({ endpoints, policy, samples: samples.get(policy)!.length, medianMs, vsRoundRobin: medianMs / baselineMs });
      balancers.get(policy)!.destroy();
    }
    onProgress(
      `update time @${endpoints}: ` +
        results
          .filter((r) => r.endpoints === endpoints)
          .map((r) => `${POLICY_LABELS[r.policy]} ${r.medianMs.toFixed(2)} ms (${r.vsRoundRobin.toFixed(2)}×)`)
          .join(', '),
    );
  }
  return { source: builtFrom(), results };
}

if (require.main === module) {
  runUpdateTimeBenchmark(undefined, (line) => console.log(line)).then(
    (report) => {
      console.log(`source: ${report.source}`);
      console.log(textTable(updateTimeTable(report)));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
