/** How a gRPC status maps to the engine's CallOutcome. */
import { status } from '@grpc/grpc-js';
import { CallOutcome } from '../core/endpoint-load';

/**
 * Statuses that say the endpoint failed rather than answered: these get the
 * error penalty. Application errors (NOT_FOUND, INVALID_ARGUMENT, ...) are
 * answers and count as plain latency samples. The list follows the one
 * grpc-peak-ewma-lb (Java) uses for its failure penalty.
 */
const ENDPOINT_FAILURES: ReadonlySet<number> = new Set([
  status.UNAVAILABLE,
  status.INTERNAL,
  status.UNKNOWN,
  status.DATA_LOSS,
  status.UNIMPLEMENTED,
]);

/**
 * Statuses grpc-js produces for decisions that are not the endpoint's, by
 * code and the start of their details (texts from @grpc/grpc-js 1.14.7,
 * file named per entry). They say nothing about the endpoint: no sample, no
 * penalty, only the call leaves the in-flight count. Any other CANCELLED came
 * from the other side (a server's forceShutdown or a proxy resetting the
 * stream, "Call cancelled") and stays a failure.
 */
export const NOT_THE_ENDPOINT: ReadonlyMap<number, readonly string[]> = new Map([
  [
    status.CANCELLED,
    [
      'Cancelled on client', // call.ts: the application cancelled
      'Cancelled by parent call', // resolving-call.ts: cancellation propagation
    ],
  ],
  [
    status.INTERNAL,
    [
      'Request message serialization failure: ', // client-interceptors.ts: the client's serializer threw
      'Response message parsing error: ', // client-interceptors.ts: the client's deserializer threw
    ],
  ],
  [
    status.RESOURCE_EXHAUSTED,
    [
      // The client's own grpc.max_{send,receive}_message_length, or the same
      // limit on the server for this request: the message's size, which
      // every endpoint would refuse alike.
      'Attempted to send message with a size larger than ', // compression-filter.ts
      'Received message larger than max (', // stream-decoder.ts
      'Received message that decompresses to a size larger than ', // compression-filter.ts
    ],
  ],
  [
    status.UNAVAILABLE,
    [
      // subchannel-call.ts, RST_STREAM REFUSED_STREAM: a server going away
      // gracefully (GOAWAY on shutdown or max connection age) refuses streams
      // it never began; grpc-js retries them transparently. Not a failure:
      // the endpoint did no work, and a connection-age GOAWAY is routine on a
      // healthy endpoint (docs/design.md, "Call outcomes").
      'Stream refused by server',
    ],
  ],
]);

/**
 * The same for servers of other gRPC implementations: their RESOURCE_EXHAUSTED
 * for a message over their size limit is the message's, which every
 * endpoint would refuse alike, not a shed call (texts of grpc-go, grpc-java,
 * and C-core's and grpc-js's servers for a response over the limit).
 */
export const OTHER_SERVERS_NOT_THE_ENDPOINT: ReadonlyMap<number, readonly string[]> = new Map([
  [
    status.RESOURCE_EXHAUSTED,
    [
      'grpc: received message larger than max', // grpc-go
      'grpc: received message after decompression larger than max', // grpc-go
      'grpc: trying to send message larger than max', // grpc-go
      'gRPC message exceeds maximum size', // grpc-java
      'Sent message larger than max', // C-core, grpc-js servers
    ],
  ],
]);

/** Whether `details` starts with one of `texts`' prefixes for `code`. */
function startsWithOneOf(texts: ReadonlyMap<number, readonly string[]>, code: number, details: string): boolean {
  return texts.get(code)?.some((prefix) => details.startsWith(prefix)) ?? false;
}

// On every call's end that is neither OK nor a deadline: no closure made per call.
function isNotTheEndpoint(code: number, details: string): boolean {
  return startsWithOneOf(NOT_THE_ENDPOINT, code, details) || startsWithOneOf(OTHER_SERVERS_NOT_THE_ENDPOINT, code, details);
}

/**
 * retrying-call.ts: another attempt of the call answered first (a hedge lost
 * the race, or a retry committed to another attempt). Not a failure, and not
 * nothing: the endpoint had not answered by then (CallOutcome.OUTLASTED).
 */
export const OUTLASTED_DETAILS = 'Discarded in favor of other hedged attempt';

export function outcomeOfStatus(code: number, details: string): CallOutcome {
  if (code === status.OK) {
    return CallOutcome.SUCCESS;
  }
  if (code === status.DEADLINE_EXCEEDED) {
    return CallOutcome.DEADLINE_EXCEEDED;
  }
  if (code === status.CANCELLED && details.startsWith(OUTLASTED_DETAILS)) {
    return CallOutcome.OUTLASTED;
  }
  if (isNotTheEndpoint(code, details)) {
    return CallOutcome.CANCELLED;
  }
  if (code === status.CANCELLED) {
    return CallOutcome.FAILURE;
  }
  if (code === status.RESOURCE_EXHAUSTED) {
    // Full now (shed.ts), unless it names a quota: a caller's allowance, not the endpoint's capacity.
    return /quota/i.test(details) ? CallOutcome.FAILURE : CallOutcome.SHED;
  }
  return ENDPOINT_FAILURES.has(code) ? CallOutcome.FAILURE : CallOutcome.SUCCESS;
}
