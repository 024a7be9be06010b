/**
 * The open-loop load generator: calls at a fixed period (deterministic, as
 * the reference's LoadGen), each sent at or after its intended time and timed
 * from it, so a stalled client or a slow backend cannot hide latency
 * (no coordinated omission). One Node timer is armed for the next intended
 * time; if the loop wakes late, every call already due goes out at once.
 *
 * Each method goes on its own path (method-paths.ts: one method stays on
 * Call) through the channel's interceptors, as a generated client's method
 * would (a generic client's `call` is `makeUnaryRequest` with Call's path),
 * and is recorded in its method group when the recorder keeps them.
 */
import { Metadata, ServiceError, status } from '@grpc/grpc-js';
import { identity, ProbeClient } from '../lib/probe-service';
import { MethodSpec } from '../model';
import { RandomSource } from '../../src/core/random';
import { LoadRecorder } from './load-recorder';
import { methodPaths } from './method-paths';
import { encodeProbeRequest } from './probe-request';

export interface OpenLoopOptions {
  /** The channel to send on; read per call, so a client restart (s11) takes effect at once. */
  readonly client: () => ProbeClient;
  readonly rateRps: number;
  readonly methods: readonly MethodSpec[];
  /** performance.now() of t = 0 (start of measurement); sending starts warmupS earlier. */
  readonly zeroAtMs: number;
  readonly warmupS: number;
  readonly measureS: number;
  /** Offset of this client's first call within one period, in [0, 1). */
  readonly phaseOffset: number;
  readonly random: RandomSource;
  readonly recorder: LoadRecorder;
  /** Backend index from the serving backend's id (OK calls) or the peer address (any call); -1 unknown. */
  readonly backendOf: (responseId: string | null, peer: string) => number;
}

/** Picks methods by weight from a seeded source, so every run sends the same mix. */
export function methodPicker(methods: readonly MethodSpec[], random: RandomSource): () => MethodSpec {
  if (methods.length === 1) {
    return () => methods[0];
  }
  const total = methods.reduce((sum, m) => sum + m.weight, 0);
  return () => {
    let x = random() * total;
    for (const method of methods) {
      x -= method.weight;
      if (x < 0) {
        return method;
      }
    }
    return methods[methods.length - 1];
  };
}

export function runOpenLoop(options: OpenLoopOptions): Promise<void> {
  const periodMs = 1000 / options.rateRps;
  const startMs = options.zeroAtMs - options.warmupS * 1000 + options.phaseOffset * periodMs;
  const endMs = options.zeroAtMs + options.measureS * 1000;
  const nextMethod = methodPicker(options.methods, options.random);
  const paths = methodPaths(options.methods);
  // Per method: its request body, path and method group (-1 when the recorder keeps none).
  const requests = new Map(
    options.methods.map((m, i) => [
      m,
      { body: encodeProbeRequest(m.medianMs), path: paths[i], group: options.recorder.methods.findIndex((g) => g.name === m.name) },
    ]),
  );
  let nextMs = startMs;
  let inFlight = 0;
  let sendingDone = false;
  return new Promise<void>((resolve) => {
    const maybeFinish = (): void => {
      if (sendingDone && inFlight === 0) {
        resolve();
      }
    };
    const send = (intendedMs: number): void => {
      const method = nextMethod();
      const request = requests.get(method)!;
      inFlight++;
      const call = options.client().makeUnaryRequest(
        request.path,
        identity,
        identity,
        request.body,
        new Metadata(),
        { deadline: Date.now() + method.deadlineMs },
        (error: ServiceError | null, response?: Buffer) => {
          const latencyMs = performance.now() - intendedMs;
          const ok = error === null;
          const backend = options.backendOf(ok && response ? response.toString('utf8') : null, call.getPeer());
          options.recorder.record(
            intendedMs - options.zeroAtMs,
            latencyMs,
            ok,
            backend,
            ok ? status.OK : error.code,
            request.group,
          );
          inFlight--;
          maybeFinish();
        },
      );
    };
    const tick = (): void => {
      const nowMs = performance.now();
      while (nextMs <= nowMs && nextMs < endMs) {
        send(nextMs);
        nextMs += periodMs;
      }
      if (nextMs < endMs) {
        setTimeout(tick, Math.max(0, nextMs - performance.now()));
      } else {
        sendingDone = true;
        maybeFinish();
      }
    };
    setTimeout(tick, Math.max(0, startMs - performance.now()));
  });
}
