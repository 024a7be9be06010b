/**
 * Child process for hygiene.test.ts: uses both policies over real gRPC, then
 * closes its clients and servers and does NOT call process.exit(). It must
 * exit by itself: anything of ours (or of grpc-js through us) left holding
 * the event loop — a ref'd timer, a socket, a server — would keep it alive
 * and the parent's timeout would catch it.
 */
import { credentials } from '@grpc/grpc-js';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../../src';
import { callOnce, createProbeClient } from '../../../scripts/lib/probe-service';
import { startBackends, stopBackends } from '../../support/backends';

async function main(): Promise<void> {
  register();
  const backends = await startBackends(3, 'exit');
  const target = 'ipv4:' + backends.map((backend) => backend.address).join(',');
  const policies = [{ peak_ewma_experimental: {} }, { least_request_experimental: {} }];
  const clients = policies.map((policy, index) =>
    createProbeClient(target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [policy] }),
      [STATS_LABEL_OPTION]: `exit-${index}`,
    }),
  );
  for (const client of clients) {
    await Promise.all(Array.from({ length: 30 }, () => callOnce(client, 5_000)));
  }
  const used = getLoadBalancerStats().map((stats) => stats.policy).sort();
  for (const client of clients) client.close();
  stopBackends(backends);
  const left = getLoadBalancerStats().length;
  console.log(JSON.stringify({ used, balancersAfterClose: left, closedAtMs: Math.round(performance.now()) }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
