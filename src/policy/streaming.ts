/**
 * Telling the picker which calls are streams.
 *
 * A grpc-js picker sees the call's metadata and nothing else: no method, no
 * call type. A stream's duration is not a round-trip time (a 30 s watch is not
 * a 30 s RTT), so peak_ewma must not sample it nor count it as in flight. The
 * interceptor below marks streaming calls without putting anything on the
 * wire: it gives a copy of the call's Metadata a fresh options object and
 * remembers that object in a WeakSet. It marks a copy because grpc-js hands
 * interceptors the caller's own object, which apps reuse (one Metadata with
 * an auth header for every call): marking it would mark every later unary
 * call made with it. grpc-js clones Metadata on its way to the picker, but
 * `Metadata.clone()` hands the same options object to the copy, so the picker
 * recognises it by identity. Nothing is sent, and nothing leaks: the WeakSet
 * forgets the object with the call.
 */
import { InterceptingCall, Interceptor, Metadata } from '@grpc/grpc-js';

const untimedCallOptions = new WeakSet<object>();

/**
 * Marks `metadata` itself as belonging to calls whose duration is not
 * latency: every call made with this very object (or a clone of it) is left
 * out. To mark one call of a Metadata you reuse, pass `metadata.clone()`.
 */
export function markUntimed(metadata: Metadata): void {
  const options = { ...metadata.getOptions() };
  untimedCallOptions.add(options);
  metadata.setOptions(options);
}

/** Whether `metadata` belongs to a call marked by `markUntimed`. */
export function isUntimed(metadata: Metadata): boolean {
  return untimedCallOptions.has(metadata.getOptions());
}

/**
 * A client interceptor that marks every streaming call (client, server or
 * bidirectional) so that peak_ewma leaves it out of latency and load.
 *
 *   new Client(target, credentials, { interceptors: [streamingCallMarker] })
 */
export const streamingCallMarker: Interceptor = (options, nextCall) => {
  const definition = options.method_definition;
  if (!definition.requestStream && !definition.responseStream) {
    return new InterceptingCall(nextCall(options));
  }
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      const marked = metadata.clone();
      markUntimed(marked);
      next(marked, listener);
    },
  });
};
