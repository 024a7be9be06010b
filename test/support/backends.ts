/**
 * Real grpc-js servers on 127.0.0.1 serving the Probe service, each with a
 * behaviour a test can change while it runs: a delay, a failure, a hang.
 */
import { Server, ServerCredentials, ServerUnaryCall, ServerWritableStream, sendUnaryData, status } from '@grpc/grpc-js';
import { probeServiceDefinition } from '../../scripts/lib/probe-service';

export interface BackendBehaviour {
  /** Time before answering a unary call, in ms. */
  delayMs: number;
  /** Answer every unary call at once with this status instead. */
  failWith: status | null;
  /** Never answer (only deadlines end the calls). */
  hang: boolean;
  /**
   * Shared by several backends: the first unary call any of them gets takes
   * `ms` instead of `delayMs`, as a channel's first call pays for the
   * client's own warm-up, whichever backend serves it.
   */
  firstCallOfAll?: { ms: number; taken: boolean };
}

export class TestBackend {
  behaviour: BackendBehaviour = { delayMs: 0, failWith: null, hang: false };
  /** Unary calls received. */
  calls = 0;
  /** Of those, first attempts: without grpc-js's `grpc-previous-rpc-attempts` (a hedge or a retry carries it, gRFC A6). */
  firstAttempts = 0;
  /** Unary calls in progress right now, and the most seen at once. */
  inFlight = 0;
  maxInFlight = 0;
  port = 0;
  private readonly server = new Server();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly id: string) {
    this.server.addService(probeServiceDefinition, {
      call: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => this.onCall(call, callback),
      watch: (call: ServerWritableStream<Buffer, Buffer>) => this.onWatch(call),
    });
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
        error ? reject(error) : resolve(boundPort),
      ),
    );
    return this;
  }

  /** Stops at once: in-flight calls fail UNAVAILABLE on the client. */
  stop(): void {
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.timers.clear();
    this.server.forceShutdown();
  }

  /**
   * Stops gracefully: no new connections, GOAWAY on open ones, calls in
   * progress finish normally. Falls back to stop() after `timeoutMs` (a
   * hanging call would otherwise hold it open forever).
   */
  drain(timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve) => {
      const fallback = setTimeout(() => {
        this.stop();
        resolve();
      }, timeoutMs);
      this.server.tryShutdown(() => {
        clearTimeout(fallback);
        this.stop();
        resolve();
      });
    });
  }

  private onCall(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void {
    this.calls++;
    if (call.metadata.get('grpc-previous-rpc-attempts').length === 0) {
      this.firstAttempts++;
    }
    const { failWith, hang, firstCallOfAll } = this.behaviour;
    let delayMs = this.behaviour.delayMs;
    if (firstCallOfAll !== undefined && !firstCallOfAll.taken) {
      firstCallOfAll.taken = true;
      delayMs = firstCallOfAll.ms;
    }
    if (failWith !== null) {
      callback({ code: failWith, details: `${this.id} fails` });
      return;
    }
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const finish = () => {
      this.inFlight--;
    };
    call.on('cancelled', () => {
      if (hang) finish();
    });
    if (hang) {
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      finish();
      callback(null, Buffer.from(this.id));
    }, delayMs);
    this.timers.add(timer);
  }

  /**
   * Server stream: one message every 100 ms; ends with OK after the number of
   * ms given as the request's text, or runs until the client cancels.
   */
  private onWatch(call: ServerWritableStream<Buffer, Buffer>): void {
    const timer = setInterval(() => call.write(Buffer.from(this.id)), 100);
    this.timers.add(timer);
    const endAfterMs = Number(call.request.toString('utf8'));
    const stop = () => {
      clearInterval(timer);
      clearTimeout(ender);
      this.timers.delete(timer);
      this.timers.delete(ender);
    };
    const ender = setTimeout(() => {
      stop();
      call.end();
    }, endAfterMs > 0 ? endAfterMs : 2 ** 31 - 1);
    this.timers.add(ender);
    call.write(Buffer.from(this.id));
    call.on('cancelled', stop);
    call.on('close', stop);
  }
}

export async function startBackends(count: number, prefix = 'b'): Promise<TestBackend[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => new TestBackend(`${prefix}${i}`).start()));
}

/** One backend per entry, each answering after its `delaysMs` entry: a fleet's speeds in one line. */
export async function startBackendsAnswering(delaysMs: readonly number[]): Promise<TestBackend[]> {
  const backends = await startBackends(delaysMs.length);
  backends.forEach((backend, i) => (backend.behaviour.delayMs = delaysMs[i]));
  return backends;
}

export function stopBackends(backends: readonly TestBackend[]): void {
  for (const backend of backends) {
    backend.stop();
  }
}
