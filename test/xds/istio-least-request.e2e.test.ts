/**
 * The Cluster Istio's proxyless generator sends for LEAST_REQUEST
 * (xds-fixtures/clusters/istio-least-request.yaml: the old lb_policy enum, no
 * load_balancing_policy) drives grpc-js once registerXds() ran: ACKed,
 * least_request_experimental under xds_wrr_locality serves the calls,
 * choice_count is read, clamped above 10, NACKed below 2 while the last good
 * config keeps serving, and load_balancing_policy wins when both are set.
 * The same Cluster without registerXds(): istio-least-request-unregistered.e2e.test.ts.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { loadResource } from '../../scripts/xds/fixtures';
import { Traffic, eventually } from './support/traffic';
import { XdsWorld } from './support/xds-world';

const LEAST = 'least_request_experimental';
const PEAK = 'peak_ewma_experimental';
const ISTIO_CLUSTER = loadResource('clusters/istio-least-request.yaml');
let world: XdsWorld;
let traffic: Traffic;

beforeAll(async () => {
  setLogVerbosity(logVerbosity.NONE);
  world = await XdsWorld.start('clusters/istio-least-request.yaml', 'istio-least-request-e2e');
  traffic = new Traffic(world.client, 3);
});

afterAll(async () => {
  await traffic?.stop();
  world?.close();
});

function choiceCountOf(config: object): unknown {
  return (config as Record<string, Record<string, unknown>>)[LEAST]?.choiceCount;
}

function callsStarted(): number {
  return world.stats(LEAST).reduce((sum, stats) => sum + stats.endpoints.reduce((total, endpoint) => total + endpoint.callsStarted, 0), 0);
}

/** The Istio cluster with least_request_lb_config.choice_count set; returns the version pushed. */
function pushChoiceCount(choiceCount: number): string {
  return world.controlPlane.setClusters([{ ...ISTIO_CLUSTER, least_request_lb_config: { choice_count: choiceCount } }]);
}

test('the Istio-shaped cluster is ACKed and least_request serves every call, one instance per locality', async () => {
  expect(world.controlPlane.responses.find((record) => record.kind === 'cluster')?.status).toBe('ACK');
  // Under xds_wrr_locality: one least_request instance per locality (region-a, region-b).
  const stats = await eventually('two least_request instances READY', () => {
    const all = world.stats(LEAST);
    return all.length === 2 && all.every((instance) => instance.state === 'READY') ? all : undefined;
  });
  expect(stats.map((instance) => choiceCountOf(instance.config))).toEqual([2, 2]);
  expect(world.stats(PEAK)).toEqual([]);
  const before = callsStarted();
  const okBefore = traffic.summary.ok;
  await traffic.moreCalls(60);
  expect(callsStarted() - before).toBeGreaterThanOrEqual(traffic.summary.ok - okBefore - 3);
  expect(traffic.summary.ok - okBefore).toBeGreaterThanOrEqual(60 - 3);
  expect(traffic.summary.failures).toEqual([]);
});

test('choice_count 12 is ACKed and clamped to 10; choice_count 3 is applied to the same instances', async () => {
  const instanceIds = world.stats(LEAST).map((instance) => instance.instanceId).sort();
  expect(instanceIds).toHaveLength(2);
  // Both instances, each with the value: an empty list would pass `every` on nothing.
  const allHave = (choiceCount: number) => {
    const all = world.stats(LEAST);
    return all.length === 2 && all.every((instance) => choiceCountOf(instance.config) === choiceCount) ? true : undefined;
  };
  await world.controlPlane.expectAck('cluster', pushChoiceCount(12));
  await eventually('choiceCount 10', () => allHave(10));
  await world.controlPlane.expectAck('cluster', pushChoiceCount(3));
  await eventually('choiceCount 3', () => allHave(3));
  expect(world.stats(LEAST).map((instance) => instance.instanceId).sort()).toEqual(instanceIds);
  await traffic.moreCalls(20);
  expect(traffic.summary.failures).toEqual([]);
});

test('choice_count 1 is NACKed naming the field; the last good config (choice_count 3) keeps serving', async () => {
  const before = callsStarted();
  const message = await world.controlPlane.expectNack('cluster', pushChoiceCount(1));
  expect(message).toContain('least_request_lb_config.choice_count must be >= 2 (gRFC A48), got 1');
  await traffic.moreCalls(30);
  expect(world.stats(LEAST).map((instance) => choiceCountOf(instance.config))).toEqual([3, 3]);
  expect(callsStarted()).toBeGreaterThanOrEqual(before + 27);
  expect(traffic.summary.failures).toEqual([]);
});

test('gRFC A52: with load_balancing_policy set too, it wins over lb_policy LEAST_REQUEST', async () => {
  const peakEwma = loadResource('clusters/peak-ewma.yaml');
  await world.controlPlane.expectAck('cluster', world.controlPlane.setClusters([{ ...peakEwma, lb_policy: 'LEAST_REQUEST' }]));
  await eventually('peak_ewma serving, least_request gone', () =>
    world.stats(PEAK)[0]?.state === 'READY' && world.stats(LEAST).length === 0 ? true : undefined,
  );
  await traffic.moreCalls(20);
  expect(traffic.summary.failures).toEqual([]);
});
