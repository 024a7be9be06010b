/**
 * The machinery both policies share, tested once for each: endpoint
 * identity across re-resolution, aggregate state, call accounting, live
 * config updates. Each test reads the balancer's own stats, which exist only
 * if our policy (not a pick_first fallback) is running.
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, LEAST_REQUEST_POLICY_NAME, PEAK_EWMA_POLICY_NAME, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { ManualTarget } from '../../scripts/lib/manual-resolver';
import { runTraffic } from '../support/traffic';
import { waitFor } from '../support/wait';

register();

let targetCounter = 0;

describe.each([PEAK_EWMA_POLICY_NAME, LEAST_REQUEST_POLICY_NAME])('%s: shared skeleton', (policy) => {
  let backends: TestBackend[];
  let target: ManualTarget;
  let client: ProbeClient;
  let label: string;

  const stats = () => {
    const found = getLoadBalancerStats().filter((s) => s.label === label);
    expect(found).toHaveLength(1);
    return found[0];
  };
  const callsByAddress = () => new Map(stats().endpoints.map((e) => [e.address, e.callsStarted]));
  /** The balancer's endpoints, as a sorted key list (what an address update is waited on by). */
  const endpointKeys = () => stats().endpoints.map((e) => e.address).sort().join(' ');
  const keysOf = (addresses: string[]) => [...addresses].sort().join(' ');

  beforeEach(async () => {
    backends = await startBackendsAnswering([2, 2, 2, 2]);
    target = new ManualTarget(`skeleton-${targetCounter++}`);
    label = `${policy}-${targetCounter}`;
    target.setEndpoints(backends.slice(0, 3).map((b) => b.address));
    client = createProbeClient(target.target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [policy]: {} }] }),
      [STATS_LABEL_OPTION]: label,
    });
  });

  afterEach(() => {
    client.close();
    stopBackends(backends);
  });

  it('keeps per-endpoint state across re-resolution, reordering, additions and removals', async () => {
    await runTraffic(client, { concurrency: 4, maxCalls: 60, maxDurationMs: 10_000 });
    const before = callsByAddress();
    expect(before.size).toBe(3);
    expect([...before.values()].reduce((a, b) => a + b, 0)).toBe(60);

    const [a, b, c, d] = backends.map((backend) => backend.address);
    target.setEndpoints([c, a, d, b, a]); // reordered, one added, one duplicate
    await waitFor('the update to reach the balancer', () => endpointKeys() === keysOf([a, b, c, d]));
    const after = callsByAddress();
    expect(after.size).toBe(4);
    for (const address of [a, b, c]) {
      expect(after.get(address)).toBe(before.get(address));
    }
    expect(after.get(d)).toBe(0);

    target.setEndpoints([a, d]);
    await waitFor('the removals to reach the balancer', () => stats().endpoints.length === 2);
    expect([...callsByAddress().keys()].sort()).toEqual([a, d].sort());
    const result = await runTraffic(client, { concurrency: 4, maxCalls: 40, maxDurationMs: 10_000 });
    expect(result.failures).toEqual([]);
    // Only the listed endpoints serve (which of the two takes more is the cost model's business).
    expect(result.servedBy.size).toBeGreaterThan(0);
    for (const id of result.servedBy.keys()) {
      expect([backends[0].id, backends[3].id]).toContain(id);
    }
  });

  it('treats an endpoint with several addresses as one, whatever their order', async () => {
    const [a, b, c] = backends.map((backend) => backend.address);
    target.setEndpoints([[a, b], c]);
    await runTraffic(client, { concurrency: 2, maxCalls: 10, maxDurationMs: 10_000 });
    const keyAB = stats().endpoints.find((e) => e.address.includes(a))!.address;
    const callsAB = callsByAddress().get(keyAB);
    // Nothing to wait for (the point is that nothing changes): ManualTarget delivers synchronously.
    target.setEndpoints([c, [b, a]]);
    expect(stats().endpoints).toHaveLength(2);
    expect(callsByAddress().get(keyAB)).toBe(callsAB);
  });

  it('keeps serving its endpoints when a re-resolution fails', async () => {
    await runTraffic(client, { concurrency: 2, maxCalls: 10, maxDurationMs: 10_000 });
    // Delivered at once: ManualTarget calls the channel's resolver listener synchronously.
    target.fail('DNS is having a bad day');
    const result = await runTraffic(client, { concurrency: 2, maxCalls: 20, maxDurationMs: 10_000 });
    expect(result.failures).toEqual([]);
    expect(stats().state).toBe('READY');
  });

  it('fails calls UNAVAILABLE naming the policy when the address list is empty', async () => {
    target.setEndpoints([]);
    await expect(callOnce(client, 2_000)).rejects.toMatchObject({
      code: status.UNAVAILABLE,
      details: expect.stringContaining(`${policy}: No addresses resolved`),
    });
  });

  it('fails calls UNAVAILABLE with the policy name and the last error when every endpoint is down', async () => {
    await runTraffic(client, { concurrency: 1, maxCalls: 3, maxDurationMs: 5_000 });
    stopBackends(backends);
    await waitFor('TRANSIENT_FAILURE', () => stats().state === 'TRANSIENT_FAILURE', 10_000);
    await expect(callOnce(client, 3_000)).rejects.toMatchObject({
      code: status.UNAVAILABLE,
      details: expect.stringMatching(new RegExp(`${policy}: No connection established\\. Last error: .+`)),
    });
    expect(stats().state).toBe('TRANSIENT_FAILURE');
  });

  it('returns outstanding to zero after successes, failures, deadlines and cancellations', async () => {
    const [ok, failing, hanging] = backends;
    failing.behaviour.failWith = status.UNAVAILABLE;
    hanging.behaviour.hang = true;
    // One endpoint at a time, so each kind of ending is sure to happen.
    const phase = async (backend: TestBackend, run: () => Promise<unknown>) => {
      target.setEndpoints([backend.address]);
      await waitFor(`${backend.id} alone and READY`, () => endpointKeys() === backend.address && stats().state === 'READY');
      await run();
      const endpoint = () => stats().endpoints.find((e) => e.address === backend.address)!;
      expect(endpoint().callsStarted).toBeGreaterThan(0);
      // Every call has ended (run() awaited them); a leaked count would stay above 0 and time out here.
      await waitFor(`${backend.id}'s outstanding back to 0`, () => endpoint().outstanding === 0);
    };
    const calls = (count: number, deadlineMs: number) =>
      Promise.all(Array.from({ length: count }, () => callOnce(client, deadlineMs).catch((e) => e)));
    await phase(ok, () => calls(10, 2_000));
    await phase(failing, async () => {
      const results = await calls(10, 2_000);
      expect(results.every((r) => r.code === status.UNAVAILABLE)).toBe(true);
    });
    await phase(hanging, async () => {
      const results = await calls(10, 300);
      expect(results.every((r) => r.code === status.DEADLINE_EXCEEDED)).toBe(true);
    });
    await phase(hanging, async () => {
      const cancelled = Array.from({ length: 10 }, () => {
        const call = client.call(Buffer.alloc(0), new Metadata(), {}, () => undefined);
        return new Promise<void>((resolve) => {
          call.on('status', () => resolve());
          setTimeout(() => call.cancel(), 200);
        });
      });
      await Promise.all(cancelled);
    });
    expect(hanging.calls).toBe(20);
  });

  it('applies a config update to the live instance without losing state', async () => {
    await runTraffic(client, { concurrency: 2, maxCalls: 30, maxDurationMs: 10_000 });
    const before = stats();
    const callsBefore = callsByAddress();
    // The engine's own view, not the stored JSON: candidatesPerPick reads the
    // engine's choiceCount, ejectionLineMs peak_ewma's live model settings.
    expect(before.candidatesPerPick).toBe(2);
    if (policy === PEAK_EWMA_POLICY_NAME) {
      expect(before.ejectionLineMs).not.toBeNull();
    }
    const update = policy === PEAK_EWMA_POLICY_NAME ? { choiceCount: 3, ejectionRatio: 0 } : { choiceCount: 3 };
    target.setServiceConfig([{ [policy]: update }]);
    await waitFor('the new config to reach the balancer', () => JSON.stringify(stats().config).includes('"choiceCount":3'));
    const live = stats();
    expect(live.config).toMatchObject({ [policy]: update });
    // The same instance took it: its engine compares 3 candidates now...
    expect(live.instanceId).toBe(before.instanceId);
    expect(live.candidatesPerPick).toBe(3);
    if (policy === PEAK_EWMA_POLICY_NAME) {
      // ...and its model runs the new settings (ejection off: no line).
      expect(live.ejectionLineMs).toBeNull();
    }
    // ...and kept every endpoint's record.
    expect(callsByAddress()).toEqual(callsBefore);
    // The updated engine serves.
    const after = await runTraffic(client, { concurrency: 2, maxCalls: 10, maxDurationMs: 10_000 });
    expect(after.failures).toEqual([]);
    expect(stats().instanceId).toBe(before.instanceId);
  });
});
