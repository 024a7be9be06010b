/**
 * A burst of calls placed in one tick (`Promise.all(ids.map(get))`, the
 * usual fan-out in Node) over real gRPC on 127.0.0.1. grpc-js starts each
 * call a promise turn after its pick, so the picks of a burst all ran
 * before any of its calls counted as in flight, and each saw the endpoints
 * as the first had: a pod joining a warm fleet, free while it has never
 * answered, took 12–15 of 20 calls (a cold pod: each waited for it), where
 * the docs promise one probe call at a time; least_request compared counts
 * its own picks had made stale. Now a pick counts on its endpoint from the
 * pick (src/policy/pick-turn.ts).
 */
import { credentials } from '@grpc/grpc-js';
import { getLoadBalancerStats, LEAST_REQUEST_POLICY_NAME, PEAK_EWMA_POLICY_NAME, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { ManualTarget } from '../../scripts/lib/manual-resolver';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { clientFor } from '../support/traffic';
import { waitFor } from '../support/wait';

register();

const BURST = 20;

const statsOf = (label: string) => getLoadBalancerStats().find((entry) => entry.label === label);
/** Calls of `burst` each backend served. */
const servedBy = (backends: readonly TestBackend[], burst: readonly string[]) =>
  backends.map((backend) => burst.filter((id) => id === backend.id).length);

describe('a burst of calls placed in one tick', () => {
  let backends: TestBackend[] = [];
  let target: ManualTarget | undefined;

  afterEach(() => {
    stopBackends(backends);
    target?.release();
    target = undefined;
  });

  it(`peak_ewma: a pod joining a warm fleet gets one call of a ${BURST}-call burst, its probe`, async () => {
    // Three warm 5 ms pods; the fourth is cold (400 ms) when it joins.
    backends = await startBackendsAnswering([5, 5, 5, 400]);
    const label = 'burst-new-pod';
    target = new ManualTarget(label);
    target.setEndpoints(backends.slice(0, 3).map((backend) => backend.address));
    const client = createProbeClient(target.target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [PEAK_EWMA_POLICY_NAME]: {} }] }),
      [STATS_LABEL_OPTION]: label,
    });
    try {
      for (let call = 0; call < 30; call++) {
        await callOnce(client, 5_000);
      }
      target.setEndpoints(backends.map((backend) => backend.address));
      const joined = () => statsOf(label)!.endpoints.find((endpoint) => endpoint.address === backends[3].address);
      await waitFor('the new pod READY', () => joined()?.state === 'READY');
      expect(joined()!.callsStarted).toBe(0);

      const burst = await Promise.all(Array.from({ length: BURST }, () => callOnce(client, 5_000)));

      // peak_ewma ran (not a pick_first fallback, which would send all 20 to one pod).
      expect(statsOf(label)!.policy).toBe(PEAK_EWMA_POLICY_NAME);
      // Before the fix: 12–15 of 20 on the cold pod, each call waiting 400 ms.
      expect(servedBy(backends, burst)[3]).toBe(1);
    } finally {
      client.close();
    }
  }, 30_000);

  it(`least_request FULL_SCAN: a ${BURST}-call burst over 4 idle pods is split 5 / 5 / 5 / 5`, async () => {
    // Each call is held long enough that none of the burst ends before the last is picked.
    backends = await startBackendsAnswering([300, 300, 300, 300]);
    const label = 'burst-least-request';
    const client = clientFor(backends, [{ [LEAST_REQUEST_POLICY_NAME]: { selectionMethod: 'FULL_SCAN' } }], { [STATS_LABEL_OPTION]: label });
    try {
      await callOnce(client, 5_000);
      await waitFor('all four READY', () => statsOf(label)?.endpoints.filter((endpoint) => endpoint.state === 'READY').length === 4);

      const burst = await Promise.all(Array.from({ length: BURST }, () => callOnce(client, 5_000)));

      expect(statsOf(label)!.policy).toBe(LEAST_REQUEST_POLICY_NAME);
      // Every pick takes the fewest in flight counting the burst's own picks;
      // before the fix they all read 0 and split at random (all four at 5 in ~1 % of bursts).
      expect(servedBy(backends, burst)).toEqual([5, 5, 5, 5]);
    } finally {
      client.close();
    }
  }, 30_000);
});
