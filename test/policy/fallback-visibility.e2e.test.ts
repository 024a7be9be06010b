/**
 * grpc-js quietly falls back to pick_first when our config does not parse.
 * The rejection must at least be visible in grpc-js's log at its default
 * verbosity, and validateServiceConfig must throw the same error up front.
 */
import { credentials, logVerbosity, setLogger, setLogVerbosity } from '@grpc/grpc-js';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION, validateServiceConfig } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { startBackends, stopBackends } from '../support/backends';

register();

/** The verbosity grpc-js read from the environment at load (its default ERROR), to restore. */
function environmentVerbosity(): logVerbosity {
  const name = (process.env.GRPC_NODE_VERBOSITY ?? process.env.GRPC_VERBOSITY ?? '').toUpperCase();
  return name === 'DEBUG' || name === 'INFO' || name === 'NONE' ? logVerbosity[name] : logVerbosity.ERROR;
}

/**
 * Ten calls through a channel of `serviceConfig` over two backends, then the
 * proof that grpc-js ran pick_first, not our policy: no balancer of ours under
 * `label`, every call on one backend and none on the other (ours would spread them).
 */
async function expectPickFirstRan(serviceConfig: object, label: string): Promise<void> {
  const backends = await startBackends(2);
  const client = createProbeClient('ipv4:' + backends.map((b) => b.address).join(','), credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify(serviceConfig),
    [STATS_LABEL_OPTION]: label,
  });
  try {
    const servedBy: string[] = [];
    for (let i = 0; i < 10; i++) {
      servedBy.push(await callOnce(client, 5_000));
    }
    expect(getLoadBalancerStats().filter((s) => s.label === label)).toEqual([]);
    expect(new Set(servedBy).size).toBe(1);
    const idle = backends.filter((backend) => backend.id !== servedBy[0]);
    expect(idle).toHaveLength(1);
    expect(idle[0].calls).toBe(0);
  } finally {
    client.close();
    stopBackends(backends);
  }
}

it('logs the rejected config at ERROR, and the channel runs pick_first instead', async () => {
  // grpc-js sends a DEBUG or INFO line to `error` when the logger has no method of that level, and
  // prints it whenever the verbosity allows: so one capture per level, at grpc-js's default verbosity,
  // or a rejection logged at DEBUG would pass under GRPC_VERBOSITY=DEBUG.
  const logged: Record<'debug' | 'info' | 'error', string[]> = { debug: [], info: [], error: [] };
  setLogger({
    debug: (...args: unknown[]) => logged.debug.push(args.join(' ')),
    info: (...args: unknown[]) => logged.info.push(args.join(' ')),
    error: (...args: unknown[]) => logged.error.push(args.join(' ')),
  });
  setLogVerbosity(logVerbosity.ERROR);
  const serviceConfig = { loadBalancingConfig: [{ peak_ewma_experimental: { decayTime: '-3s' } }] };
  try {
    await expectPickFirstRan(serviceConfig, 'rejected');
    const rejection = /rejected load balancing config: peak_ewma_experimental: field "decayTime"/;
    expect(logged.error.filter((line) => rejection.test(line)).length).toBeGreaterThan(0);
    expect(() => validateServiceConfig(serviceConfig)).toThrow(/peak_ewma_experimental: field "decayTime"/);
  } finally {
    setLogger(console);
    setLogVerbosity(environmentVerbosity());
  }
});

it('runs pick_first for a service config that names the policy in loadBalancingPolicy, which grpc-js 1.14 ignores, and validateServiceConfig says so', async () => {
  // If a grpc-js release starts reading loadBalancingPolicy, this fails: relax checkTopLevelFields (validate.ts) then.
  const serviceConfig = { loadBalancingPolicy: 'peak_ewma_experimental' };
  await expectPickFirstRan(serviceConfig, 'policy-field');
  expect(() => validateServiceConfig(serviceConfig)).toThrow(/^loadBalancingPolicy: grpc-js ignores this field/);
});
