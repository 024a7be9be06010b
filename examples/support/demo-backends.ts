/**
 * Stand-ins for your servers, so the examples run on one machine: grpc-js
 * servers on 127.0.0.1 serving the `loadtest.Probe` service
 * (scripts/lib/probe-service.ts), each answering every unary call after a
 * fixed delay with its own name, so a client can see who served it.
 */
import { Server, ServerCredentials, ServerUnaryCall, ServerWritableStream, sendUnaryData } from '@grpc/grpc-js';
import { probeServiceDefinition } from '../../scripts/lib/probe-service';

export interface DemoBackend {
  readonly name: string;
  /** `127.0.0.1:<port>` */
  readonly address: string;
  readonly port: number;
  /** How long each unary call takes; change it to make the backend slow. */
  delayMs: number;
  stop(): void;
}

export async function startDemoBackend(name: string, delayMs: number, port = 0): Promise<DemoBackend> {
  const server = new Server();
  const timers = new Set<NodeJS.Timeout>();
  const backend = {
    name,
    delayMs,
    address: '',
    port: 0,
    stop: () => {
      timers.forEach(clearTimeout);
      server.forceShutdown();
    },
  };
  server.addService(probeServiceDefinition, {
    call: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback(null, Buffer.from(name));
      }, backend.delayMs);
      timers.add(timer);
    },
    // A short server stream (three messages, 50 ms apart), to show callMarker.
    watch: (call: ServerWritableStream<Buffer, Buffer>) => {
      let sent = 0;
      const timer = setInterval(() => {
        call.write(Buffer.from(name));
        if (++sent === 3) {
          clearInterval(timer);
          timers.delete(timer);
          call.end();
        }
      }, 50);
      timers.add(timer);
    },
  });
  backend.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  backend.address = `127.0.0.1:${backend.port}`;
  return backend;
}

/** Starts one backend per entry of `delaysMs`, named b0, b1, ... */
export function startDemoBackends(delaysMs: readonly number[]): Promise<DemoBackend[]> {
  return Promise.all(delaysMs.map((delayMs, i) => startDemoBackend(`b${i}`, delayMs)));
}
