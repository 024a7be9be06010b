/**
 * The stats label (`STATS_LABEL_OPTION`, src/policy/stats-label.ts) names a
 * channel in stats and nothing else: it must not reach the subchannels.
 * grpc-js's subchannel pool shares a connection between channels only when
 * their subchannel options are equal, so a label passed down gave each
 * labelled channel its own connection to every backend, where the same two
 * channels without labels share one. docs/observability.md advises a label
 * per channel, so following the docs doubled the connections.
 */
import * as net from 'net';
import { credentials } from '@grpc/grpc-js';
import { getLoadBalancerStats, PEAK_EWMA_POLICY_NAME, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { startBackends, stopBackends, TestBackend } from '../support/backends';

register();

/** A TCP relay in front of `backend` that counts the connections it accepts. */
async function countingRelay(backend: TestBackend): Promise<{ port: number; connections: () => number; close: () => void }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(backend.port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      server.close();
    },
  };
}

const serviceConfig = JSON.stringify({ loadBalancingConfig: [{ [PEAK_EWMA_POLICY_NAME]: {} }] });

describe.each([
  ['without labels', [undefined, undefined]],
  ['with a label each, as docs/observability.md advises', ['orders-a', 'orders-b']],
])('two channels to one backend with the same options %s', (_name, labels) => {
  let backends: TestBackend[];
  beforeAll(async () => {
    backends = await startBackends(1, 'c');
  });
  afterAll(() => stopBackends(backends));

  it('share one connection to it', async () => {
    const relay = await countingRelay(backends[0]);
    const address = `127.0.0.1:${relay.port}`;
    const clients: ProbeClient[] = labels.map((label) =>
      createProbeClient(`ipv4:${address}`, credentials.createInsecure(), {
        'grpc.service_config': serviceConfig,
        ...(label === undefined ? {} : { [STATS_LABEL_OPTION]: label }),
      }),
    );
    try {
      for (const client of clients) {
        expect(await callOnce(client, 5_000)).toBe('c0');
      }
      // Our policy ran on both channels, each under its own label.
      const ours = getLoadBalancerStats().filter((s) => s.policy === PEAK_EWMA_POLICY_NAME && s.endpoints.some((e) => e.address === address));
      expect(ours.map((s) => s.label).sort()).toEqual(labels.map((label) => label ?? '').sort());
      expect(relay.connections()).toBe(1);
    } finally {
      clients.forEach((client) => client.close());
      relay.close();
    }
  });
});
