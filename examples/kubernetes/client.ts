/**
 * The client a pod of client.yaml runs: target and service config come from
 * the orders-client-config ConfigMap (client-config.yaml), the service config
 * is validated before the channel exists, and the balancer's per-endpoint
 * stats are logged every STATS_EVERY_MS.
 *
 *   GRPC_TARGET=dns:///localhost:50051 SERVICE_CONFIG_FILE=service-config.json \
 *     npx tsx examples/kubernetes/client.ts
 *
 * Runs until SIGTERM, or for EXAMPLE_CALLS calls if that is set.
 * In your project, import from 'grpc-js-peak-ewma' instead of '../../src'.
 */
import { credentials } from '@grpc/grpc-js';
import * as fs from 'fs';
import {
  callMarker,
  formatLoadBalancerStats,
  getLoadBalancerStats,
  register,
  STATS_LABEL_OPTION,
  validateServiceConfig,
} from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} must be set (see examples/kubernetes/client.yaml)`);
  }
  return value;
}

async function main(): Promise<void> {
  const target = requiredEnv('GRPC_TARGET');
  const serviceConfigText = fs.readFileSync(requiredEnv('SERVICE_CONFIG_FILE'), 'utf8');
  register();
  // Fail at startup, loudly, rather than run pick_first quietly.
  validateServiceConfig(serviceConfigText);

  const client = createProbeClient(target, credentials.createInsecure(), {
    'grpc.service_config': serviceConfigText,
    [STATS_LABEL_OPTION]: 'orders',
    interceptors: [callMarker],
  });

  const limit = process.env.EXAMPLE_CALLS ? Number(process.env.EXAMPLE_CALLS) : Infinity;
  const statsEveryMs = Number(process.env.STATS_EVERY_MS ?? 10_000);
  const intervalMs = Number(process.env.CALL_INTERVAL_MS ?? 10);
  let stopping = false;
  process.once('SIGTERM', () => (stopping = true));
  let lastStatsAt = Date.now();
  let ok = 0;
  let failed = 0;
  for (let sent = 0; sent < limit && !stopping; sent++) {
    try {
      await callOnce(client, 2_000);
      ok++;
    } catch (error) {
      failed++;
      console.error(`call failed: ${(error as Error).message}`);
    }
    if (Date.now() - lastStatsAt >= statsEveryMs) {
      lastStatsAt = Date.now();
      console.log(formatLoadBalancerStats(getLoadBalancerStats()));
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  console.log(`calls ok=${ok} failed=${failed}`);
  console.log(formatLoadBalancerStats(getLoadBalancerStats()));
  client.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
