/**
 * CDS clusters naming Envoy's policies drive a real grpc-js client on
 * xds:///listener1 against Probe backends on 127.0.0.1. Each test pushes its
 * cluster fixture, waits for the ACK, then proves which of our balancers runs
 * (getLoadBalancerStats: round_robin / pick_first leave no entry there) and
 * with which config.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { Traffic, eventually } from './support/traffic';
import { callsByBackend, sharesBetween, XdsWorld } from './support/xds-world';

const PEAK = 'peak_ewma_experimental';
let world: XdsWorld;

beforeAll(async () => {
  setLogVerbosity(logVerbosity.NONE);
  world = await XdsWorld.start('clusters/round-robin.yaml', 'policy-e2e');
});

afterAll(() => world?.close());

afterEach(() => {
  for (const backend of world.backends) {
    backend.behaviour = { delayMs: 0, failWith: null, hang: false };
  }
});

/** The balancers of `policy` once their config matches `expected` and every one is READY. */
async function running(policy: string, expected: Record<string, unknown>, count: number) {
  return eventually(`${count} ${policy} balancer(s) with ${JSON.stringify(expected)}`, () => {
    const stats = world.stats(policy);
    const matching = stats.filter(
      (entry) =>
        entry.state === 'READY' &&
        Object.entries(expected).every(([key, value]) => (entry.config as Record<string, Record<string, unknown>>)[policy]?.[key] === value),
    );
    return matching.length === count && stats.length === count ? matching : undefined;
  });
}

test('PeakEwma at the top level: one peak_ewma_experimental over all endpoints of both localities, steering away from a slow backend', async () => {
  await world.pushCluster('clusters/peak-ewma.yaml');
  const [balancer] = await running(PEAK, { decayTime: '10s', defaultRtt: '0.01s', penaltyValue: 1_000_000, choiceCount: 2 }, 1);
  expect(balancer.endpoints.map((endpoint) => endpoint.address).sort()).toEqual(
    world.backends.map((backend) => backend.address).sort(),
  );

  // Slow enough to stand out even when a loaded machine delays every call.
  world.backends[2].behaviour.delayMs = 200;
  const before = callsByBackend(world.backends);
  const traffic = new Traffic(world.client, 4);
  await traffic.moreCalls(300);
  const summary = await traffic.stop();
  const shares = sharesBetween(before, callsByBackend(world.backends));

  expect(summary.failures).toEqual([]);
  // round_robin gives b2 a third of the calls.
  expect(shares.get('b2')).toBeLessThan(0.2);
  const [after] = world.stats(PEAK);
  const slowAddress = world.backends[2].address;
  const slow = after.endpoints.find((endpoint) => endpoint.address === slowAddress)!;
  const fastEndpoints = after.endpoints.filter((endpoint) => endpoint.address !== slowAddress);
  // Slower than the fast endpoint the calls went to, not than each: the 300
  // calls take well under maxEjectionTime (1 s), so a fast backend whose
  // first answer a loaded machine delayed stays ejected for the whole run,
  // that answer its estimate (seen twice in full `npm test` runs: 2 calls
  // for it, as many as b2's; once an estimate of 428 ms against b2's 203).
  const busiestFast = fastEndpoints.reduce((most, endpoint) => (endpoint.callsStarted > most.callsStarted ? endpoint : most));
  expect(slow.estimateMs!).toBeGreaterThan(busiestFast.estimateMs!);
  // Fewer calls than the fast endpoints' average, not than each of them (as above).
  const fastAverage = fastEndpoints.reduce((sum, endpoint) => sum + endpoint.callsStarted, 0) / fastEndpoints.length;
  expect(slow.callsStarted).toBeLessThan(fastAverage);
});

test('PeakEwma under WrrLocality: one peak_ewma_experimental per locality (2 + 1 endpoints)', async () => {
  await world.pushCluster('clusters/peak-ewma-wrr-locality.yaml');
  const balancers = await running(PEAK, { decayTime: '10s' }, 2);
  expect(balancers.map((balancer) => balancer.endpoints.length).sort()).toEqual([1, 2]);
  const regionA = balancers.find((balancer) => balancer.endpoints.length === 2)!;
  expect(regionA.endpoints.map((endpoint) => endpoint.address).sort()).toEqual(
    [world.backends[0].address, world.backends[1].address].sort(),
  );
});

test('a TypedStruct naming peak_ewma_experimental runs it with the JSON config it carries', async () => {
  await world.pushCluster('clusters/peak-ewma-typed-struct.yaml');
  await running(PEAK, { choiceCount: 3, decayTime: '5s' }, 1);
});

test('an unknown policy (Maglev) listed ahead of PeakEwma is skipped: PeakEwma runs', async () => {
  await world.pushCluster('clusters/round-robin.yaml');
  await eventually('round_robin in charge', () => (world.stats().length === 0 ? true : undefined));
  await world.pushCluster('clusters/unknown-then-peak-ewma.yaml');
  // Envoy's defaults, since this PeakEwma sets no field.
  await running(PEAK, { decayTime: '10s', defaultRtt: '0.01s', penaltyValue: 1_000_000 }, 1);
});

test('PeakEwma with a RoundRobin fallback listed after it: grpc-js takes PeakEwma', async () => {
  await world.pushCluster('clusters/round-robin.yaml');
  await eventually('round_robin in charge', () => (world.stats().length === 0 ? true : undefined));
  await world.pushCluster('clusters/peak-ewma-with-fallback.yaml');
  await running(PEAK, { decayTime: '10s' }, 1);
});

test('LeastRequest runs least_request_experimental with its choice_count', async () => {
  await world.pushCluster('clusters/least-request.yaml');
  const [balancer] = await running('least_request_experimental', { choiceCount: 3, selectionMethod: 'N_CHOICES' }, 1);
  expect(balancer.endpoints).toHaveLength(3);
  expect(world.stats(PEAK)).toEqual([]);
});
