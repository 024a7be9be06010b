/**
 * Shows the hole registerXds() closes, with grpc-js-xds's own converters
 * (our policies registered, our converters not): a TypedStruct under
 * WrrLocality whose config peak_ewma_experimental rejects is ACKed, and
 * applying it to the endpoints (at once, or at the next EDS update) throws,
 * uncaught, inside grpc-js-xds, ending the process.
 *
 *   npx tsx scripts/xds/wrr-locality-crash-demo.ts [FIXTURE]
 *
 * FIXTURE: a cluster under xds-fixtures/, default
 * invalid/wrr-locality-typed-struct-rejected.yaml; the other crash case is
 * grpc-js-xds's own, invalid/wrr-locality-ring-hash-size.yaml (a RingHash
 * whose size its converter writes as a string).
 *
 * Prints "ACKED" when the bad cluster is accepted, then dies with exit code
 * != 0; prints "SURVIVED" and exits 0 if the process outlives the update (as
 * it would once @grpc/grpc-js-xds validates child configs itself).
 * test/xds/crash-hole.test.ts runs it.
 */
import { credentials, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { register as registerGrpcJsXds } from '@grpc/grpc-js-xds';
import { register as registerPolicies } from '../../src/policy/register';
import { callOnce, createProbeClient } from '../lib/probe-service';
import { FakeControlPlane } from './control-plane';
import { clusterLoadAssignment, loadBootstrap } from './fixtures';

async function main(): Promise<void> {
  setLogVerbosity(logVerbosity.NONE);
  registerPolicies();
  registerGrpcJsXds();
  const controlPlane = await FakeControlPlane.start();
  // No backend needed, only the LB tree: EDS points at a port nobody listens on.
  const endpoints = (port: number) =>
    controlPlane.setEndpoints([clusterLoadAssignment('endpoints1', [{ region: 'region-a', zone: 'zone-1', addresses: [`127.0.0.1:${port}`] }])]);
  controlPlane.putFromFile('listener.yaml');
  controlPlane.putFromFile('clusters/round-robin.yaml');
  endpoints(1);
  const client = createProbeClient('xds:///listener1', credentials.createInsecure(), controlPlane.channelOptions(loadBootstrap(controlPlane.address)));
  callOnce(client, 500).catch(() => undefined); // starts the xDS subscriptions
  await controlPlane.expectAck('cluster', '1');

  const fixture = process.argv[2] ?? 'invalid/wrr-locality-typed-struct-rejected.yaml';
  const version = controlPlane.putFromFile(fixture).cluster!;
  const record = await controlPlane.waitForResponse('cluster', version);
  console.log(record.status === 'ACK' ? 'ACKED' : `NACKED: ${record.errorMessage}`);
  endpoints(2);
  await controlPlane.waitForResponse('endpoint', '2').catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  console.log('SURVIVED');
  client.close();
  controlPlane.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
