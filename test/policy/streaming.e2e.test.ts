/**
 * Streams are not latency. A long server stream on one backend must leave
 * that backend's share of unary calls unchanged, when the client uses
 * `streamingCallMarker`; the control run shows what happens without it.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION, streamingCallMarker } from '../../src';
import { createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { TestBackend, startBackends, stopBackends } from '../support/backends';
import { runTraffic, shareOf } from '../support/traffic';

register();

const UNARY_DELAY_MS = 10;

/** Opens a Watch stream that the server ends with OK after `holdMs`; resolves with its backend id once it starts. */
function openStream(client: ProbeClient, holdMs: number): { backendId: Promise<string>; ended: Promise<void> } {
  const stream = client.watch(Buffer.from(String(holdMs)), new Metadata());
  const backendId = new Promise<string>((resolve) => stream.once('data', (data: Buffer) => resolve(data.toString())));
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('data', () => undefined);
    stream.on('status', () => resolve());
    stream.on('error', reject);
  });
  return { backendId, ended };
}

describe('peak_ewma_experimental and long server streams', () => {
  let backends: TestBackend[];

  beforeEach(async () => {
    backends = await startBackends(4);
    backends.forEach((backend) => (backend.behaviour.delayMs = UNARY_DELAY_MS));
  });
  afterEach(() => stopBackends(backends));

  const clientWith = (interceptors: object[], label: string) =>
    createProbeClient('ipv4:' + backends.map((b) => b.address).join(','), credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ peak_ewma_experimental: {} }] }),
      [STATS_LABEL_OPTION]: label,
      interceptors,
    });

  it('with streamingCallMarker, a 30 s stream changes neither the backend share nor its estimate', async () => {
    const client = clientWith([streamingCallMarker], 'stream-marked');
    try {
      await runTraffic(client, { concurrency: 2, maxCalls: 100, maxDurationMs: 5_000 });
      const stream = openStream(client, 30_000);
      const backendId = await stream.backendId;
      const held = backends.find((b) => b.id === backendId)!;
      // Fair is 0.25; a counted stream would halve it for 30 s, a 30 s
      // sample would take it to ~0 (see the control below). The upper bound
      // is loose: ejection of a briefly slow peer can lift any share a little.
      const during = await runTraffic(client, { concurrency: 4, maxCalls: 1_000_000, maxDurationMs: 29_000 });
      expect(shareOf(during, held)).toBeGreaterThan(0.17);
      expect(shareOf(during, held)).toBeLessThan(0.4);
      await stream.ended;
      const after = await runTraffic(client, { concurrency: 4, maxCalls: 1_000_000, maxDurationMs: 3_000 });
      expect(shareOf(after, held)).toBeGreaterThan(0.13);
      const stats = getLoadBalancerStats().find((s) => s.label === 'stream-marked')!;
      const heldStats = stats.endpoints.find((e) => e.address === held.address)!;
      expect(heldStats.estimateMs!).toBeLessThan(1_000);
      expect(heldStats.outstanding).toBe(0);
    } finally {
      client.close();
    }
  }, 60_000);

  it('control: without the marker, a stream that ends normally is taken as one huge RTT sample', async () => {
    const client = clientWith([], 'stream-unmarked');
    try {
      await runTraffic(client, { concurrency: 2, maxCalls: 100, maxDurationMs: 5_000 });
      const stream = openStream(client, 3_000);
      const backendId = await stream.backendId;
      const held = backends.find((b) => b.id === backendId)!;
      await stream.ended;
      const after = await runTraffic(client, { concurrency: 2, maxCalls: 1_000_000, maxDurationMs: 2_000 });
      expect(shareOf(after, held)).toBeLessThan(0.05);
    } finally {
      client.close();
    }
  });
});
