/**
 * Every invalid cluster in xds-fixtures/invalid/ is NACKed with the error
 * listed for it in expected-errors.yaml, while the previous config (a valid
 * PeakEwma) keeps serving the traffic that runs throughout. The WrrLocality
 * cases are the ones that would crash the process without our converters:
 * grpc-js-xds would ACK them and throw, uncaught, on the next address update,
 * so after their NACK an EDS update is pushed and served.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import * as fs from 'fs';
import * as path from 'path';
import { FIXTURES_DIR, readDocument } from '../../scripts/xds/fixtures';
import { Traffic, eventually } from './support/traffic';
import { XdsWorld } from './support/xds-world';

const PEAK = 'peak_ewma_experimental';
const INVALID_DIR = path.join(FIXTURES_DIR, 'invalid');
const EXPECTED = readDocument('invalid/expected-errors.yaml') as Record<string, string>;
const FIXTURES = fs.readdirSync(INVALID_DIR).filter((name) => name.endsWith('.yaml') && name !== 'expected-errors.yaml').sort();

let world: XdsWorld;
let traffic: Traffic;

beforeAll(async () => {
  setLogVerbosity(logVerbosity.NONE);
  world = await XdsWorld.start('clusters/peak-ewma.yaml', 'nack-e2e');
  await eventually('peak_ewma serving', () => (world.stats(PEAK)[0]?.state === 'READY' ? true : undefined));
  traffic = new Traffic(world.client, 2);
});

afterAll(async () => {
  await traffic?.stop();
  world?.close();
});

test('every invalid fixture states the error it must produce', () => {
  expect(FIXTURES.length).toBeGreaterThanOrEqual(10);
  expect(Object.keys(EXPECTED).sort()).toEqual(FIXTURES);
});

/** The one peak_ewma balancer, still on the valid config's decayTime. */
function servingBalancer() {
  const stats = world.stats(PEAK);
  expect(stats).toHaveLength(1);
  expect((stats[0].config as Record<string, Record<string, unknown>>)[PEAK].decayTime).toBe('10s');
  return stats[0];
}

test.each(FIXTURES)('%s is NACKed with its error; the previous PeakEwma keeps serving', async (fixture) => {
  const before = servingBalancer();
  const callsBefore = before.endpoints.reduce((sum, endpoint) => sum + endpoint.callsStarted, 0);
  const failuresBefore = traffic.summary.failures.length;

  const version = world.controlPlane.putFromFile(`invalid/${fixture}`).cluster!;
  const message = await world.controlPlane.expectNack('cluster', version);
  expect(message).toContain('Cluster message validation failed');
  expect(message).toContain(EXPECTED[fixture]);

  await traffic.moreCalls(30);
  const after = servingBalancer();
  // The same instance, not a rebuilt one, and it served the calls made after the NACK.
  expect(after.instanceId).toBe(before.instanceId);
  expect(after.endpoints.reduce((sum, endpoint) => sum + endpoint.callsStarted, 0)).toBeGreaterThanOrEqual(callsBefore + 30);
  expect(traffic.summary.failures.slice(failuresBefore)).toEqual([]);
});

// Each case changes the endpoint count (3 at the start), so each pushes a real address update.
const CRASH_CASES: [string, number][] = [
  ['wrr-locality-peak-ewma-rejected.yaml', 2],
  ['wrr-locality-typed-struct-rejected.yaml', 3],
  ['wrr-locality-udpa-typed-struct-rejected.yaml', 2],
  ['typed-struct-xds-wrr-locality-rejected.yaml', 3],
  ['typed-struct-cds-self-rejected.yaml', 2],
];

test.each(CRASH_CASES)('the crash case %s: NACKed, then an EDS update (%i endpoints) is served and the process lives', async (fixture, endpointCount) => {
  const version = world.controlPlane.putFromFile(`invalid/${fixture}`).cluster!;
  expect(await world.controlPlane.expectNack('cluster', version)).toContain(EXPECTED[fixture]);

  // Had the cluster been ACKed, this address update would have thrown, uncaught, in grpc-js-xds.
  const [b0, b1, b2] = world.backends;
  await world.pushEndpoints([
    { region: 'region-a', zone: 'zone-1', backends: endpointCount === 3 ? [b0, b1] : [b0] },
    { region: 'region-b', zone: 'zone-2', backends: [b2] },
  ]);
  await eventually(`${endpointCount} endpoints`, () => (servingBalancer().endpoints.length === endpointCount ? true : undefined));
  await traffic.moreCalls(30);
  expect(traffic.summary.failures).toEqual([]);
});

test('a valid cluster after the NACKs is ACKed and applied; no call failed at any point', async () => {
  await world.pushCluster('clusters/peak-ewma-decay-2s.yaml');
  await eventually('decay_time 2s applied', () =>
    (world.stats(PEAK)[0]?.config as Record<string, Record<string, unknown>> | undefined)?.[PEAK].decayTime === '2s' ? true : undefined,
  );
  await traffic.moreCalls(30);
  expect(traffic.summary.failures).toEqual([]);
  expect(world.controlPlane.nacks('cluster')).toHaveLength(FIXTURES.length + CRASH_CASES.length);
});
