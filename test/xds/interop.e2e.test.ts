/**
 * A second gRPC implementation: gRPC C-core 1.51 (Debian's python3-grpcio)
 * as an xDS client of the fake control plane, given every cluster fixture.
 * xds-fixtures/interop.yaml states, per fixture and configuration, ACK
 * (calls spread evenly) or NACK (every call UNAVAILABLE); this asserts it.
 * Runs in CI (CI=true: .ci/run installs python3-grpcio, and a missing one
 * fails here); elsewhere it skips if python3-grpcio is not installed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { FakeControlPlane } from '../../scripts/xds/control-plane';
import { clusterLoadAssignment, FIXTURES_DIR, loadBootstrap, readDocument } from '../../scripts/xds/fixtures';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { cCoreVersion, describeWithCCore, ForeignClient, ForeignKind } from './support/foreign-client';
import { TARGET } from './support/xds-world';

type Expected = 'ACK' | 'NACK';
const EXPECTED = readDocument('interop.yaml') as Record<string, Record<'c-core' | 'c-core-a52', Expected>>;
const CLUSTER_FIXTURES = fs.readdirSync(path.join(FIXTURES_DIR, 'clusters')).map((name) => `clusters/${name}`).sort();
const CALLS = 30;
const CASES = Object.entries(EXPECTED).flatMap(([fixture, byKind]) =>
  (Object.entries(byKind) as [ForeignKind, Expected][]).map(([kind, expected]) => ({ fixture, kind, expected })),
);

const describeCCore = describeWithCCore('interop.e2e');

describeCCore('gRPC C-core xDS client vs every cluster fixture', () => {
  let controlPlane: FakeControlPlane;
  let backends: TestBackend[];
  let nextNode = 0;

  beforeAll(async () => {
    expect(cCoreVersion()).toBe('1.51.1'); // the version interop.yaml was measured with; in CI: installed by .ci/run
    controlPlane = await FakeControlPlane.start();
    backends = await startBackends(3);
    controlPlane.putFromFile('listener.yaml');
    // One locality: round_robin then spreads calls evenly over all three.
    controlPlane.setEndpoints([
      clusterLoadAssignment('endpoints1', [{ region: 'region-a', zone: 'zone-1', addresses: backends.map((backend) => backend.address) }]),
    ]);
  });

  afterAll(() => {
    controlPlane?.close();
    stopBackends(backends ?? []);
  });

  test('interop.yaml covers every cluster fixture', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(CLUSTER_FIXTURES);
  });

  test.each(CASES)('$kind: $fixture is $expected', async ({ fixture, kind, expected }) => {
    const version = controlPlane.putFromFile(fixture).cluster!;
    const nodeId = `${kind}-${nextNode++}`;
    const client = await ForeignClient.start(kind, TARGET, loadBootstrap(controlPlane.address), nodeId);
    try {
      const response = await controlPlane.waitForResponse('cluster', version, 30_000, nodeId);
      expect({ status: response.status, error: response.errorMessage }).toEqual(
        expected === 'ACK' ? { status: 'ACK', error: null } : { status: 'NACK', error: expect.stringContaining('cluster1') },
      );
      const summary = await client.run(CALLS);
      if (expected === 'ACK') {
        expect(summary.failures).toEqual({});
        expect(Object.keys(summary.servedBy).sort()).toEqual(['b0', 'b1', 'b2']);
        // Even: round_robin gives each 10 of 30, give or take the calls made while subchannels connect.
        for (const calls of Object.values(summary.servedBy)) {
          expect(calls).toBeGreaterThanOrEqual(7);
        }
      } else {
        expect(summary).toEqual({ servedBy: {}, failures: { UNAVAILABLE: CALLS } });
      }
    } finally {
      await client.stop();
    }
  });
});
