/**
 * peak_ewma over xDS: a proxyless grpc-js client whose control plane turns
 * on Envoy's PeakEwma policy for the cluster, then tunes it live.
 *
 *   npx tsx examples/xds-client.ts
 *   GRPC_XDS_BOOTSTRAP=/path/to/bootstrap.json npx tsx examples/xds-client.ts
 *
 * The bootstrap defaults to xds-fixtures/bootstrap.json (control plane at
 * 127.0.0.1:18000). Part 1 stands in for your infrastructure: three servers
 * and a fake ADS control plane serving xds-fixtures/ (listener1 → cluster1
 * with PeakEwma → the servers). Part 2 is what your application does.
 *
 * In your project, import from 'grpc-js-peak-ewma' and
 * 'grpc-js-peak-ewma/xds' instead of '../src' and '../src/xds'.
 */
import { credentials } from '@grpc/grpc-js';
import * as fs from 'fs';
import * as path from 'path';
import { callMarker, formatLoadBalancerStats, getLoadBalancerStats, STATS_LABEL_OPTION } from '../src';
import { registerXds } from '../src/xds';
import { createProbeClient } from '../scripts/lib/probe-service';
import { FakeControlPlane } from '../scripts/xds/control-plane';
import { loadResource, withAddresses } from '../scripts/xds/fixtures';
import { startDemoBackends } from './support/demo-backends';
import { callCount, describeServedBy, sendCalls } from './support/traffic';

const LABEL = 'xds-example';

function bootstrapFile(): string {
  // grpc-js-xds reads GRPC_XDS_BOOTSTRAP when the first xds:/// channel is
  // created; normally you set it in the environment (see docs/getting-started.md).
  process.env.GRPC_XDS_BOOTSTRAP ??= path.resolve(__dirname, '..', 'xds-fixtures', 'bootstrap.json');
  return process.env.GRPC_XDS_BOOTSTRAP;
}

async function main(): Promise<void> {
  // --- Part 1: stand-ins for your servers and your control plane ---
  const backends = await startDemoBackends([5, 5, 50]); // b2 is 10x slower
  const file = bootstrapFile();
  const serverUri: string = JSON.parse(fs.readFileSync(file, 'utf8')).xds_servers[0].server_uri;
  const controlPlane = await FakeControlPlane.start({ port: Number(serverUri.slice(serverUri.lastIndexOf(':') + 1)) });
  controlPlane.putFromFile('listener.yaml'); // xds:///listener1 → cluster1
  controlPlane.putFromFile('clusters/peak-ewma.yaml'); // cluster1: PeakEwma, decay_time 10s
  controlPlane.setEndpoints([withAddresses(loadResource('endpoints.yaml'), backends.map((backend) => backend.address))]);
  console.log(`control plane at ${controlPlane.address} (bootstrap ${path.relative(process.cwd(), file)})`);

  // --- Part 2: your application ---
  registerXds(); // once, before the first xds:/// channel
  const client = createProbeClient('xds:///listener1', credentials.createInsecure(), {
    [STATS_LABEL_OPTION]: LABEL,
    interceptors: [callMarker],
  });

  const total = callCount(300);
  const servedBy = await sendCalls(client, total);
  console.log(`sent ${total} calls; served by: ${describeServedBy(servedBy)}`);
  console.log(`backends: ${backends.map((backend) => `${backend.name}=${backend.address} (${backend.delayMs} ms)`).join(', ')}`);
  console.log(formatLoadBalancerStats(getLoadBalancerStats().filter((stats) => stats.label === LABEL)));

  // --- The control plane tunes the policy: decay_time 10s → 2s ---
  const version = controlPlane.putFromFile('clusters/peak-ewma-decay-2s.yaml').cluster!;
  await controlPlane.expectAck('cluster', version);
  await sendCalls(client, 10);
  console.log(`\nafter CDS version ${version} (decay_time: 2s), same balancer, same per-endpoint state:`);
  console.log(formatLoadBalancerStats(getLoadBalancerStats().filter((stats) => stats.label === LABEL)));

  client.close();
  controlPlane.close();
  backends.forEach((backend) => backend.stop());
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
