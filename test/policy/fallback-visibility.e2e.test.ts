/**
 * grpc-js quietly falls back to pick_first when our config does not parse.
 * The rejection must at least be visible in grpc-js's log at its default
 * verbosity, and validateServiceConfig must throw the same error up front.
 */
import { credentials, setLogger } from '@grpc/grpc-js';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION, validateServiceConfig } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { startBackends, stopBackends } from '../support/backends';

register();

it('logs the rejected config at ERROR, and the channel runs pick_first instead', async () => {
  const logged: string[] = [];
  setLogger({ error: (...args: unknown[]) => logged.push(args.join(' ')) });
  const backends = await startBackends(2);
  const serviceConfig = { loadBalancingConfig: [{ peak_ewma_experimental: { decayTime: '-3s' } }] };
  const client = createProbeClient('ipv4:' + backends.map((b) => b.address).join(','), credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify(serviceConfig),
    [STATS_LABEL_OPTION]: 'rejected',
  });
  try {
    await callOnce(client, 5_000);
    expect(logged.some((line) => /rejected load balancing config: peak_ewma_experimental: field "decayTime"/.test(line))).toBe(true);
    expect(getLoadBalancerStats().filter((s) => s.label === 'rejected')).toEqual([]);
    expect(() => validateServiceConfig(serviceConfig)).toThrow(/peak_ewma_experimental: field "decayTime"/);
  } finally {
    client.close();
    stopBackends(backends);
    setLogger(console);
  }
});
