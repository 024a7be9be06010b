/**
 * A TestBackend behind a loopback TCP relay, so that a test can make it
 * vanish the way a crashed process does: every connection reset (TCP RST,
 * no HTTP/2 goodbye) and the port refusing new ones.
 *
 * Why not TestBackend.stop(): grpc-js's Server.forceShutdown() first resets
 * each stream with RST_STREAM(CANCEL), which the client reports as CANCELLED
 * "Call cancelled", not the UNAVAILABLE "Connection dropped" a crash gives.
 */
import * as net from 'node:net';
import { TestBackend } from '../../support/backends';

export class CrashableBackend {
  readonly backend: TestBackend;
  private readonly relay = net.createServer((socket) => this.onConnection(socket));
  private readonly sockets = new Set<net.Socket>();
  private relayPort = 0;
  crashed = false;

  constructor(readonly id: string) {
    this.backend = new TestBackend(id);
  }

  /** What clients dial: the relay. */
  get address(): string {
    return `127.0.0.1:${this.relayPort}`;
  }

  async start(): Promise<this> {
    await this.backend.start();
    await new Promise<void>((resolve, reject) => {
      this.relay.once('error', reject);
      this.relay.listen(0, '127.0.0.1', () => resolve());
    });
    this.relayPort = (this.relay.address() as net.AddressInfo).port;
    return this;
  }

  /** A crash: every connection reset, the port closed, the server behind it gone. */
  crash(): void {
    this.crashed = true;
    this.relay.close();
    for (const socket of this.sockets) {
      socket.resetAndDestroy();
    }
    this.sockets.clear();
    this.backend.stop();
  }

  /** An orderly end for cleanup (idempotent). */
  stop(): void {
    if (!this.crashed) {
      this.crash();
    }
  }

  private onConnection(client: net.Socket): void {
    if (this.crashed) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.backend.port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('close', () => this.sockets.delete(socket));
      // Either side failing takes the pair down; a crash already reset both.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

export async function startCrashableBackends(count: number, prefix: string): Promise<CrashableBackend[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => new CrashableBackend(`${prefix}${i}`).start()));
}
