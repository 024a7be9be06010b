/**
 * peak_ewma over a service config: a client balancing across three servers,
 * one of them 10x slower, printing who served the calls and the balancer's
 * per-endpoint stats.
 *
 *   npx tsx examples/service-config.ts           # EXAMPLE_CALLS=300 by default
 *
 * In your project, import from 'grpc-js-peak-ewma' instead of '../src'.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import {
  callMarker,
  formatLoadBalancerStats,
  getLoadBalancerStats,
  register,
  STATS_LABEL_OPTION,
  validateServiceConfig,
} from '../src';
import { createProbeClient } from '../scripts/lib/probe-service';
import { startDemoBackends } from './support/demo-backends';
import { callCount, describeServedBy, sendCalls } from './support/traffic';

async function main(): Promise<void> {
  // Stand-ins for your servers: b0 and b1 answer in 5 ms, b2 in 50 ms.
  const backends = await startDemoBackends([5, 5, 50]);

  // 1. Register the policies with grpc-js, once, before creating channels.
  register();

  // 2. The service config. validateServiceConfig throws on a typo that
  //    grpc-js would silently answer with pick_first.
  //    Every field has a default (docs/configuration.md); one is set here to
  //    show the form durations take.
  const serviceConfig = {
    loadBalancingConfig: [{ peak_ewma_experimental: { decayTime: '2s' } }],
  };
  validateServiceConfig(serviceConfig);

  // 3. The channel. Any resolver that yields several addresses works:
  //    'dns:///orders.shop.svc.cluster.local:50051' in Kubernetes (see
  //    docs/kubernetes.md); here a static list of the local servers.
  const target = 'ipv4:' + backends.map((backend) => backend.address).join(',');
  const client = createProbeClient(target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify(serviceConfig),
    // Names this channel in getLoadBalancerStats() and in metrics.
    [STATS_LABEL_OPTION]: 'service-config-example',
    // A stream's duration is not a round-trip time: keep streams out of the estimate.
    interceptors: [callMarker],
  });

  const total = callCount(300);
  const servedBy = await sendCalls(client, total);
  console.log(`sent ${total} calls; served by: ${describeServedBy(servedBy)}`);
  console.log(`backends: ${backends.map((backend) => `${backend.name}=${backend.address} (${backend.delayMs} ms)`).join(', ')}`);

  // A server-streaming call, marked by callMarker: not sampled, not counted.
  await new Promise<void>((resolve, reject) => {
    client.watch(Buffer.from(''), new Metadata()).on('data', () => {}).on('end', resolve).on('error', reject);
  });

  // 4. The per-endpoint view: estimate, calls in flight, cost, share of calls.
  console.log(formatLoadBalancerStats(getLoadBalancerStats()));

  client.close();
  backends.forEach((backend) => backend.stop());
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
