/**
 * Messages between the load test's parent and its child processes, and the
 * little helpers to fork a child and await one reply.
 */
import { ChildProcess, fork } from 'child_process';
import * as path from 'path';
import type { Behaviour, MethodSpec } from '../model';
import type { Phase, RecordedRun } from './load-recorder';
import type { PolicyId } from './policies';
import type { ProbeBackendStats } from './probe-backend';

// ---- backend host ----

export interface BackendSpec {
  readonly id: string;
  readonly behaviour: Partial<Behaviour>;
  readonly seed: number;
  readonly gcPhaseMs?: number;
}

export type ToBackendHost =
  /** `methodNames`: unary methods served beside Call, one per method group (method-paths.ts). */
  | { type: 'start'; backends: BackendSpec[]; orca: boolean; maxConnectionAgeMs?: number; methodNames?: string[] }
  | { type: 'set'; ids: string[]; patch: Partial<Behaviour> }
  | { type: 'add'; backends: BackendSpec[] }
  | { type: 'retire'; ids: string[]; graceMs: number }
  | { type: 'restart'; id: string; downMs: number; graceMs: number }
  | { type: 'stats' }
  | { type: 'stop' };

export type FromBackendHost =
  | { type: 'listening'; ports: Record<string, number> }
  | { type: 'stats'; stats: ProbeBackendStats[]; loopDelayMs: { p99: number; max: number } }
  | { type: 'done' }
  /** A message the host could not carry out (backend-host.ts's handler). */
  | { type: 'error'; message: string };

// ---- client host ----

export interface ClientPrepare {
  readonly type: 'prepare';
  readonly policy: PolicyId;
  /** How the channel finds the backends: a static list, or the parent's updates (churn). */
  readonly addresses: readonly string[];
  readonly dynamicAddresses: boolean;
  /** Backend index by address, for attributing failed calls (OK answers carry the backend's id, `b<index>`). */
  readonly addressIndex: Readonly<Record<string, number>>;
  /** Backends at the start (more may join). */
  readonly backendCount: number;
  /** xDS instead of a service config: the fake control plane's bootstrap JSON. */
  readonly xdsBootstrap?: string;
  readonly xdsTarget?: string;
  readonly seed: number;
  /** The run's time factor: the policies' time constants are this many times the reference's (scale.ts). */
  readonly timeFactor: number;
  /**
   * The workload has several methods, each on its own path: the channel gets
   * the `callMarker` interceptor, as a user's channel (README), so the picker
   * sees each call's method. Absent or false: no interceptor, as before.
   */
  readonly markMethods?: boolean;
  /** Fields set on peak_ewma's config (`--peak-ewma-config`); absent: the defaults. */
  readonly peakEwmaConfig?: Readonly<Record<string, unknown>>;
  /** Attempts per call that fails UNAVAILABLE (`--retry-attempts`); absent: no retries. */
  readonly retryAttempts?: number;
}

export interface ClientRun {
  readonly type: 'run';
  readonly zeroAtEpochMs: number;
  /** Timeline seconds (the recorder's buckets and phases); each lasts `timeFactor` real seconds. */
  readonly warmupS: number;
  readonly measureS: number;
  readonly timeFactor: number;
  readonly rateRps: number;
  readonly methods: readonly MethodSpec[];
  readonly phases: readonly Phase[];
  readonly phaseOffset: number;
  readonly deadlineMs: number;
}

export type ToClientHost =
  | ClientPrepare
  | ClientRun
  | { type: 'addresses'; addresses: string[]; addressIndex: Record<string, number> }
  /** Replace the channel now (s11: cold balancer, warm fleet). */
  | { type: 'restart' }
  | { type: 'stop' };

export interface PolicyEvidence {
  /**
   * Our balancers alive in the client, by policy name, with calls they
   * accounted, its picks by the path that made each and its refused turns by
   * reason (stats' `picks` and `refusals`; absent before a balancer's first
   * update) and, under per-method scoring, the calls each method started
   * (getLoadBalancerStats' method view: proof the picker saw the methods).
   */
  readonly balancers: {
    policy: string;
    callsStarted: number;
    picks?: Readonly<Record<string, number>>;
    refusals?: Readonly<Record<string, number>>;
    methods?: { method: string; calls: number }[];
  }[];
}

export type FromClientHost =
  | { type: 'ready' }
  | { type: 'progress'; second: number; ok: number; failed: number; okP99Ms: number }
  | {
      type: 'result';
      run: RecordedRun;
      cpuMicros: number;
      evidence: PolicyEvidence;
      /** The client's event-loop delay during measurement, ms (10 ms resolution). */
      loopDelayMs: { p99: number; max: number };
    }
  | { type: 'error'; message: string };

// ---- helpers ----

/** Forks a TypeScript entry in scripts/bench under the same tsx loader as this process. */
export function forkChild(entry: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  // BENCH_CHILD_NODE_ARGS: extra node flags for children, e.g. "--cpu-prof" when profiling.
  const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0);
  return fork(path.join(__dirname, entry), [], {
    execArgv: [...process.execArgv, ...extra],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The next message from `child` that satisfies `accept`; rejects if it exits first or after `timeoutMs`. */
export function nextMessage<T>(child: ChildProcess, accept: (message: unknown) => message is T, timeoutMs = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if (message && typeof message === 'object' && (message as { type?: string }).type === 'error') {
        cleanup();
        reject(new Error(`child ${child.pid}: ${(message as { message: string }).message}`));
      } else if (accept(message)) {
        cleanup();
        resolve(message);
      }
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`child ${child.pid} exited (${code}) before replying`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`child ${child.pid} did not reply within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** A guard for messages of one `type`: `isType<Extract<FromClientHost, { type: 'ready' }>>('ready')`. */
export function isType<M extends { type: string }>(type: M['type']): (message: unknown) => message is M {
  return (message: unknown): message is M =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}
