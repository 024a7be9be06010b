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

  /**
   * Backends answering in `answerMs`, the first `warm` of them warmed up by
   * `warmCalls` calls one at a time through peak_ewma, then the rest join;
   * once they are READY (none has had a call), a burst of BURST calls in one
   * tick. Returns how many calls of the burst each joining pod served.
   */
  async function burstAfterJoin(label: string, answerMs: number[], warm: number, warmCalls: number): Promise<number[]> {
    backends = await startBackendsAnswering(answerMs);
    target = new ManualTarget(label);
    target.setEndpoints(backends.slice(0, warm).map((backend) => backend.address));
    const client = createProbeClient(target.target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [PEAK_EWMA_POLICY_NAME]: {} }] }),
      [STATS_LABEL_OPTION]: label,
    });
    try {
      for (let call = 0; call < warmCalls; call++) {
        await callOnce(client, 5_000);
      }
      target.setEndpoints(backends.map((backend) => backend.address));
      const joiners = backends.slice(warm).map((backend) => backend.address);
      const joined = () => statsOf(label)!.endpoints.filter((endpoint) => joiners.includes(endpoint.address));
      await waitFor('the new pods READY', () => joined().filter((endpoint) => endpoint.state === 'READY').length === joiners.length);
      expect(joined().map((endpoint) => endpoint.callsStarted)).toEqual(joiners.map(() => 0));

      const burst = await Promise.all(Array.from({ length: BURST }, () => callOnce(client, 5_000)));

      // peak_ewma ran (not a pick_first fallback, which would send all 20 to one pod).
      expect(statsOf(label)!.policy).toBe(PEAK_EWMA_POLICY_NAME);
      return servedBy(backends, burst).slice(warm);
    } finally {
      client.close();
    }
  }

  it(`peak_ewma: a pod joining a warm fleet gets one call of a ${BURST}-call burst, its probe`, async () => {
    // Three warm 5 ms pods; the fourth is cold (400 ms) when it joins.
    // Before the fix: 12–15 of 20 on the cold pod, each call waiting 400 ms.
    expect(await burstAfterJoin('burst-new-pod', [5, 5, 5, 400], 3, 30)).toEqual([1]);
  }, 30_000);

  it(`peak_ewma: two pods joining a warm fleet get one call each of a ${BURST}-call burst`, async () => {
    // Four warm 5 ms pods; two cold (400 ms) ones join. Both being probed,
    // drawn together, compared as equals, and one of them took a second
    // call (2 or 3 in 5 bursts of 6); now a pod being probed is skipped
    // while the draw can find another (src/core/new-endpoint.ts isProbing).
    expect(await burstAfterJoin('burst-two-new-pods', [5, 5, 5, 5, 400, 400], 4, 40)).toEqual([1, 1]);
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
