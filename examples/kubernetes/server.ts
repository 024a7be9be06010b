/**
 * The server a pod of orders-server.yaml runs (here the Probe service as a
 * stand-in for yours). The point is the connection age: grpc-js servers keep
 * a client's HTTP/2 connection forever by default, so a client that resolved
 * DNS before a scale-up never connects to the new pods. With
 * `grpc.max_connection_age_ms` the server sends GOAWAY after that age; the
 * client reconnects, and grpc-js re-resolves the name when a connection it
 * was using goes away, picking up the current set of pods.
 *
 *   PORT=50051 GRPC_MAX_CONNECTION_AGE_MS=30000 npx tsx examples/kubernetes/server.ts
 */
import { Server, ServerCredentials, ServerUnaryCall, ServerWritableStream, sendUnaryData } from '@grpc/grpc-js';
import * as os from 'os';
import { probeServiceDefinition } from '../../scripts/lib/probe-service';

export interface OrdersServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxConnectionAgeMs: number;
  readonly maxConnectionAgeGraceMs: number;
  /** Answers identify the pod. */
  readonly name: string;
}

export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): OrdersServerOptions {
  return {
    host: env.HOST ?? '0.0.0.0',
    port: Number(env.PORT ?? 50051),
    maxConnectionAgeMs: Number(env.GRPC_MAX_CONNECTION_AGE_MS ?? 30_000),
    maxConnectionAgeGraceMs: Number(env.GRPC_MAX_CONNECTION_AGE_GRACE_MS ?? 10_000),
    name: env.HOSTNAME ?? os.hostname(),
  };
}

/** Starts the server; resolves to it and its bound port. */
export async function startOrdersServer(options: OrdersServerOptions): Promise<{ server: Server; port: number }> {
  const server = new Server({
    // After this age (grpc-js adds up to ±10 % jitter) the server sends GOAWAY...
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs,
    // ...and gives calls in progress this long to finish before closing.
    'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs,
  });
  server.addService(probeServiceDefinition, {
    call: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, Buffer.from(options.name)),
    watch: (call: ServerWritableStream<Buffer, Buffer>) => call.end(),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port };
}

if (require.main === module) {
  const options = optionsFromEnv();
  startOrdersServer(options).then(({ server, port }) => {
    console.log(`orders server ${options.name} on port ${port}, max connection age ${options.maxConnectionAgeMs} ms`);
    // Kubernetes sends SIGTERM, then SIGKILL after terminationGracePeriodSeconds.
    process.once('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
  });
}
