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
  status.RESOURCE_EXHAUSTED,
  status.UNIMPLEMENTED,
]);

/**
 * CANCELLED details grpc-js uses when the client itself gave up (call.ts,
 * resolving-call.ts). Any other CANCELLED came from the other side — a
 * server's forceShutdown or a proxy resetting the stream — and says the
 * endpoint failed the call.
 */
const CLIENT_CANCEL_DETAILS: ReadonlySet<string> = new Set(['Cancelled on client', 'Cancelled by parent call']);

export function outcomeOfStatus(code: number, details: string): CallOutcome {
  if (code === status.OK) {
    return CallOutcome.SUCCESS;
  }
  if (code === status.DEADLINE_EXCEEDED) {
    return CallOutcome.DEADLINE_EXCEEDED;
  }
  if (code === status.CANCELLED) {
    return CLIENT_CANCEL_DETAILS.has(details) ? CallOutcome.CANCELLED : CallOutcome.FAILURE;
  }
  return ENDPOINT_FAILURES.has(code) ? CallOutcome.FAILURE : CallOutcome.SUCCESS;
}
