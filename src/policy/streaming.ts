/**
 * Telling the picker which method a call is for, and which calls are streams.
 *
 * A grpc-js picker sees the call's metadata and nothing else: no method, no
 * call type. Per-method scoring (`methodScoring`) needs the method; and a
 * stream's duration is not a round-trip time (a 30 s watch is not a 30 s
 * RTT), so peak_ewma must not sample it nor count it as in flight. The
 * interceptor below tells the picker both without putting anything on the
 * wire: it gives a copy of the call's Metadata a fresh options object that
 * carries, under a symbol of its own, the call's method path and whether it is
 * a stream (a symbol, not a WeakMap keyed by the object: a WeakMap entry per
 * call cost ~1 µs of CPU, the symbol ~30 ns; symbol keys are invisible to
 * JSON and to grpc-js, which reads only its own option names). It marks a copy because grpc-js hands interceptors
 * the caller's own object, which apps reuse (one Metadata with an auth
 * header for every call): marking it would mark every later call made with
 * it. grpc-js clones Metadata on its way to the picker, but
 * `Metadata.clone()` hands the same options object to the copy, so the
 * picker finds it there. Nothing is sent, and nothing leaks: the info goes
 * with the object, with the call.
 *
 * A timed call's info is one object per method path, shared by every call
 * of that method (`timedInfoOf`): it carries the engine's `MethodKey`, whose
 * one-entry cache saves the picker a table lookup per call (methods.ts), and
 * the marker allocates nothing for it. At most `MAX_INTERNED_METHODS` paths
 * are kept, per copy of the package; a client calling more distinct paths
 * than that (a generic proxy) gets a fresh info per call for the others,
 * scored the same, only without the cache.
 *
 * Without the interceptor the picker sees no method: every call scores as
 * one estimate per endpoint, exactly as before per-method scoring existed.
 */
import { InterceptingCall, Interceptor, Metadata } from '@grpc/grpc-js';
import { MethodKey } from '../core/methods';

/**
 * What the interceptor tells the picker about one call, format 1. Another
 * copy of this package (an application's and a library's, one grpc-js:
 * package-copies.ts) may have made it: its `method` is then that copy's
 * MethodKey, read here by `name` only. A change to this shape needs another
 * key.
 */
interface CallInfo {
  /** The method (its path, e.g. "/pkg.Service/Get") of a timed call; undefined for untimed ones. */
  readonly method: MethodKey | { readonly name: string } | undefined;
  /** A stream (or a call marked by `markUntimed`): left out of latency and load. */
  readonly untimed: boolean;
}

// Symbol.for, not a private symbol: the copy whose callMarker marks a call need not be the one whose picker serves it.
const CALL_INFO = Symbol.for('grpc-js-peak-ewma.callInfo.v1');

/** The info of every untimed call: a stream has no latency to judge, per method or at all. */
const UNTIMED: CallInfo = { method: undefined, untimed: true };

/** Method paths whose timed info is kept for reuse, per copy of the package (~150 bytes each with its key). */
export const MAX_INTERNED_METHODS = 1024;

interface TimedInfo extends CallInfo {
  readonly method: MethodKey;
}

const timedInfos = new Map<string, TimedInfo>();

/** The info of a timed call of `path`: the same object for every call of it while interned. */
function timedInfoOf(path: string): TimedInfo {
  let info = timedInfos.get(path);
  if (info === undefined) {
    info = { method: new MethodKey(path), untimed: false };
    if (timedInfos.size < MAX_INTERNED_METHODS) {
      timedInfos.set(path, info);
    }
  }
  return info;
}

/** The options object of a call marked by `callMarker`. */
type MarkedOptions = ReturnType<Metadata['getOptions']> & { [CALL_INFO]?: CallInfo };

function callInfoOf(metadata: Metadata): CallInfo | undefined {
  return (metadata.getOptions() as MarkedOptions)[CALL_INFO];
}

/**
 * Marks `metadata` itself as belonging to calls whose duration is not
 * latency: every call made with this very object (or a clone of it) is left
 * out. To mark one call of a Metadata you reuse, pass `metadata.clone()`.
 */
export function markUntimed(metadata: Metadata): void {
  const options: MarkedOptions = { ...metadata.getOptions(), [CALL_INFO]: UNTIMED };
  metadata.setOptions(options);
}

/** Whether `metadata` belongs to a streaming call or one marked by `markUntimed`. */
export function isUntimed(metadata: Metadata): boolean {
  return callInfoOf(metadata)?.untimed === true;
}

/**
 * The method of a timed call marked by `callMarker`, or undefined (no
 * marker, or a stream: a stream has no latency to judge per method).
 */
export function timedMethodOf(metadata: Metadata): MethodKey | undefined {
  const info = callInfoOf(metadata);
  if (info === undefined || info.untimed || info.method === undefined) {
    return undefined;
  }
  // Another copy's key: ours for its name, so that the engine's cache is written only into our keys.
  return info.method instanceof MethodKey ? info.method : timedInfoOf(info.method.name).method;
}

/**
 * A client interceptor that tells peak_ewma each call's method (for
 * per-method scoring) and marks every streaming call (client, server or
 * bidirectional) so that it is left out of latency and load.
 *
 *   new Client(target, credentials, { interceptors: [callMarker] })
 */
export const callMarker: Interceptor = (options, nextCall) => {
  const definition = options.method_definition;
  const streaming = definition.requestStream || definition.responseStream;
  const method = definition.path;
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      next(markedCopy(metadata, method, streaming), listener);
    },
  });
};

/**
 * A copy of `metadata` that tells the picker the call is for `method` (and
 * untimed if `streaming` or already marked by `markUntimed`). @internal
 * (the interceptor's own step; the pick benchmark uses it to mark calls).
 */
export function markedCopy(metadata: Metadata, method: string, streaming: boolean): Metadata {
  const marked = metadata.clone();
  const callOptions = marked.getOptions() as MarkedOptions;
  const untimed = streaming || callOptions[CALL_INFO]?.untimed === true;
  const fresh: MarkedOptions = { ...callOptions, [CALL_INFO]: untimed ? UNTIMED : timedInfoOf(method) };
  marked.setOptions(fresh);
  return marked;
}

/** The name `callMarker` had when it marked only streams; the same interceptor. */
export const streamingCallMarker: Interceptor = callMarker;
