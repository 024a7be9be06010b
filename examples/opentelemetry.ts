/**
 * Wiring the metrics hook to OpenTelemetry: per-endpoint
 * `grpc.lb.peak_ewma.*` metrics (RTT estimate, cost, calls in flight, calls
 * started, sample age) from the global MeterProvider.
 *
 *   npx tsx examples/opentelemetry.ts
 *
 * With the OpenTelemetry SDK installed, the setup part is the usual one:
 *
 *   import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
 *   import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
 *   metrics.setGlobalMeterProvider(new MeterProvider({
 *     readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
 *   }));
 *
 * This repository does not install the SDK, so a console stand-in plays the
 * provider and its reader (examples/support/console-meter.ts). The two lines
 * that involve this package are the same either way.
 *
 * In your project, import from 'grpc-js-peak-ewma' instead of '../src'.
 */
import { credentials } from '@grpc/grpc-js';
import { metrics } from '@opentelemetry/api';
import { register, registerLoadBalancerMetrics, STATS_LABEL_OPTION } from '../src';
import { createProbeClient } from '../scripts/lib/probe-service';
import { ConsoleMeterProvider } from './support/console-meter';
import { startDemoBackends } from './support/demo-backends';
import { callCount, describeServedBy, sendCalls } from './support/traffic';

async function main(): Promise<void> {
  const provider = new ConsoleMeterProvider(); // stand-in for the SDK's MeterProvider
  metrics.setGlobalMeterProvider(provider);

  // The hook: once per process. It reports every peak_ewma / least_request
  // balancer each time the reader collects.
  const handle = registerLoadBalancerMetrics(metrics.getMeter('orders-client'));

  const backends = await startDemoBackends([5, 5, 50]);
  register();
  const client = createProbeClient('ipv4:' + backends.map((backend) => backend.address).join(','), credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ peak_ewma_experimental: {} }] }),
    // Becomes the grpc.lb.label attribute: one label per channel.
    [STATS_LABEL_OPTION]: 'orders',
  });

  const total = callCount(200);
  const servedBy = await sendCalls(client, total);
  console.log(`sent ${total} calls; served by: ${describeServedBy(servedBy)}`);
  console.log(`backends: ${backends.map((backend) => `${backend.name}=${backend.address} (${backend.delayMs} ms)`).join(', ')}`);

  // What a PeriodicExportingMetricReader would export at its next tick.
  for (const line of await provider.collect()) {
    console.log(line);
  }

  handle.unregister();
  client.close();
  backends.forEach((backend) => backend.stop());
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
