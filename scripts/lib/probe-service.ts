/**
 * The `loadtest.Probe` service used by tests, the demo and the load test,
 * defined without .proto files: messages are raw bytes. A unary response
 * carries the serving backend's id as UTF-8, so a client can count who
 * served it.
 */
import {
  CallOptions,
  Client,
  ChannelCredentials,
  ChannelOptions,
  ClientReadableStream,
  ClientUnaryCall,
  makeGenericClientConstructor,
  Metadata,
  ServiceDefinition,
  ServiceError,
} from '@grpc/grpc-js';

/** The (de)serializer of every Probe method: messages are raw bytes. */
export const identity = (buffer: Buffer): Buffer => buffer;

/** The path of the Probe method `name`. */
export function probePath(name: string): string {
  return `/loadtest.Probe/${name}`;
}

function method(name: string, responseStream: boolean) {
  return {
    path: probePath(name),
    requestStream: false,
    responseStream,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  };
}

export const probeServiceDefinition = {
  call: method('Call', false),
  watch: method('Watch', true),
} satisfies ServiceDefinition;

/**
 * The Probe service with one more unary method per name in `unaryNames`
 * (each `/loadtest.Probe/<name>`, keyed by its name), beside Call and Watch:
 * a service whose methods a client tells apart by path alone.
 */
export function probeServiceDefinitionWith(unaryNames: readonly string[]): ServiceDefinition {
  const definition: Record<string, ReturnType<typeof method>> = { ...probeServiceDefinition };
  for (const name of unaryNames) {
    if (name in definition || name === 'Call' || name === 'Watch') {
      throw new RangeError(`Probe method "${name}" is already defined`);
    }
    definition[name] = method(name, false);
  }
  return definition satisfies ServiceDefinition;
}

export interface ProbeClient extends Client {
  call(
    request: Buffer,
    metadata: Metadata,
    options: CallOptions,
    callback: (error: ServiceError | null, response?: Buffer) => void,
  ): ClientUnaryCall;
  watch(request: Buffer, metadata: Metadata, options?: CallOptions): ClientReadableStream<Buffer>;
}

const ProbeClientConstructor = makeGenericClientConstructor(probeServiceDefinition, 'Probe');

export function createProbeClient(
  target: string,
  credentials: ChannelCredentials,
  options: ChannelOptions = {},
): ProbeClient {
  return new ProbeClientConstructor(target, credentials, options) as unknown as ProbeClient;
}

/** One unary call; resolves to the serving backend's id, rejects with the ServiceError. */
export function callOnce(client: ProbeClient, deadlineMs: number, metadata = new Metadata()): Promise<string> {
  return new Promise((resolve, reject) => {
    client.call(Buffer.alloc(0), metadata, { deadline: Date.now() + deadlineMs }, (error, response) => {
      if (error) {
        reject(error);
      } else {
        resolve(response!.toString('utf8'));
      }
    });
  });
}
