/**
 * Endpoints added and removed through EDS while traffic runs: the running
 * peak_ewma_experimental instance takes the new endpoint set, keeps the state
 * of the endpoints that stay, sends nothing more to a removed one, and no
 * call fails.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { Traffic, eventually } from './support/traffic';
import { XdsWorld } from './support/xds-world';

const PEAK = 'peak_ewma_experimental';
let world: XdsWorld;
let extra: TestBackend[] = [];

beforeAll(async () => {
  setLogVerbosity(logVerbosity.NONE);
  world = await XdsWorld.start('clusters/peak-ewma.yaml', 'eds-e2e');
  extra = await startBackends(1, 'new');
});

afterAll(() => {
  world?.close();
  stopBackends(extra);
});

function endpointsByAddress() {
  const stats = world.stats(PEAK);
  expect(stats).toHaveLength(1);
  return new Map(stats[0].endpoints.map((endpoint) => [endpoint.address, endpoint]));
}

test('an endpoint added by EDS joins the running balancer and gets calls; one removed stops getting them; no call fails', async () => {
  const [b0, b1, b2] = world.backends;
  const [b3] = extra;
  await eventually('3 READY endpoints', () => (world.stats(PEAK)[0]?.endpoints.filter((e) => e.state === 'READY').length === 3 ? true : undefined));
  const traffic = new Traffic(world.client, 4);
  try {
    await traffic.moreCalls(100);

    // Add b3 to region-b. The others slower than b3's defaultRtt (10 ms) from now on, so that P2C
    // takes b3 whenever it draws it: otherwise b3's first call waits for a stall to push the others'
    // cost above 10 ms, which a quiet machine need not produce.
    for (const backend of [b0, b1, b2]) backend.behaviour.delayMs = 20;
    const startedBeforeAdd = endpointsByAddress();
    const instanceId = world.stats(PEAK)[0].instanceId;
    await world.pushEndpoints([
      { region: 'region-a', zone: 'zone-1', backends: [b0, b1] },
      { region: 'region-b', zone: 'zone-2', backends: [b2, b3] },
    ]);
    await eventually('b3 serving', () => (b3.calls > 10 ? true : undefined));
    const afterAdd = endpointsByAddress();
    expect([...afterAdd.keys()].sort()).toEqual([b0, b1, b2, b3].map((backend) => backend.address).sort());
    // Same balancer (a new instance would have a new id), same per-endpoint state: counters carried on.
    expect(world.stats(PEAK)[0].instanceId).toBe(instanceId);
    for (const backend of [b0, b1, b2]) {
      expect(afterAdd.get(backend.address)!.callsStarted).toBeGreaterThanOrEqual(startedBeforeAdd.get(backend.address)!.callsStarted);
    }

    // Remove b0 from region-a.
    await world.pushEndpoints([
      { region: 'region-a', zone: 'zone-1', backends: [b1] },
      { region: 'region-b', zone: 'zone-2', backends: [b2, b3] },
    ]);
    await eventually('b0 gone from the balancer', () => (endpointsByAddress().has(b0.address) ? undefined : true));
    await traffic.moreCalls(20); // calls picked before the update may still land on b0
    const b0CallsAfterRemoval = b0.calls;
    await traffic.moreCalls(200);
    expect(b0.calls).toBe(b0CallsAfterRemoval);
    expect(endpointsByAddress().size).toBe(3);
    expect(world.stats(PEAK)[0].instanceId).toBe(instanceId);
  } finally {
    await traffic.stop();
  }
  expect(traffic.summary.failures).toEqual([]);
  expect(world.controlPlane.nacks()).toEqual([]);
});
