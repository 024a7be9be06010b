/**
 * Client CPU per RPC: peak_ewma and least_request against round_robin, at
 * several backend counts, side by side in one run.
 *
 * Backends answer at once (U0, unlimited slots) from backend-host processes.
 * One client process per policy, each driven in closed loop (fixed calls in
 * flight, so it runs flat out) for short segments; a round gives every
 * client one segment, so each round yields a paired ratio to round_robin.
 * CPU time is per process (`process.cpuUsage`). Reported per policy: median
 * µs of CPU per completed call over the rounds, and the median of the
 * per-round ratios to round_robin.
 *
 * Schedules:
 * - `alternating` (default): within a round the clients run one after
 *   another, in a fresh random order, so no client competes with another
 *   for the two cores. A saturated gRPC client's CPU per call depends on
 *   how many completions each event-loop turn handles; when five clients
 *   share two cores, which one gets descheduled (and so batches more) is
 *   luck, and that luck showed up as several per cent between rounds.
 * - `concurrent`: all clients at once (the first version): identical
 *   conditions per round, at the price of that contention.
 */
import { ChildProcess } from 'child_process';
import type { FromCpuClient, ToCpuClient } from './cpu-client';
import { Fleet } from './fleet';
import { forkChild, isType, nextMessage } from './ipc';
import { prebuildForChildren } from './package-under-test';
import { ClientKind, clientLabel, isMarkedClient, isXdsClient, XDS_CLUSTER_FIXTURES } from './policies';
import { startXdsControlPlane, XdsSetup } from './xds-run';
import { median, shuffled } from './stats';

export interface CpuPerRpcOptions {
  readonly backendCounts: readonly number[];
  readonly policies: readonly ClientKind[];
  readonly rounds: number;
  readonly segmentS: number;
  readonly warmupS: number;
  readonly concurrency: number;
  readonly backendHosts: number;
  readonly schedule: 'alternating' | 'concurrent';
}

export const DEFAULT_CPU_OPTIONS: CpuPerRpcOptions = {
  backendCounts: [10, 50, 500],
  policies: ['round_robin', 'peak_ewma', 'peak_ewma_marked', 'least_request', 'peak_ewma_xds', 'round_robin_xds'],
  rounds: 12,
  segmentS: 2,
  warmupS: 3,
  concurrency: 32,
  backendHosts: 2,
  schedule: 'alternating',
};

export interface CpuPerRpcResult {
  readonly backends: number;
  readonly policy: ClientKind;
  /** Median over rounds of client CPU µs per completed call. */
  readonly cpuMicrosPerCall: number;
  /** Median over rounds of (this policy's µs per call) / (round_robin's in the same round). */
  readonly ratioToRoundRobin: number;
  /** Median calls per second while saturated. */
  readonly callsPerSecond: number;
  readonly rounds: number;
  readonly perRound: readonly number[];
}

type Segment = Extract<FromCpuClient, { type: 'segment' }>;

async function runSegment(child: ChildProcess, seconds: number, concurrency: number): Promise<Segment> {
  const reply = nextMessage(child, isType<Segment>('segment'), (seconds + 60) * 1000);
  child.send({ type: 'segment', seconds, concurrency } satisfies ToCpuClient);
  return reply;
}

export async function runCpuPerRpcBenchmark(
  options: CpuPerRpcOptions = DEFAULT_CPU_OPTIONS,
  onProgress: (line: string) => void = () => {},
): Promise<CpuPerRpcResult[]> {
  prebuildForChildren();
  const results: CpuPerRpcResult[] = [];
  for (const backends of options.backendCounts) {
    const fleet = await Fleet.start(
      Array.from({ length: backends }, (_, i) => ({ id: `c${i}`, behaviour: { slots: 0, sigma: 0 }, seed: i + 1 })),
      { hosts: options.backendHosts, orca: false },
    );
    const clients = new Map<ClientKind, ChildProcess>();
    // One control plane per xDS client, each serving that client's cluster.
    const xdsSetups = new Map<ClientKind, XdsSetup>();
    try {
      const addresses = Array.from(fleet.addresses.values());
      for (const kind of options.policies) {
        if (isXdsClient(kind)) {
          xdsSetups.set(kind, await startXdsControlPlane(addresses, XDS_CLUSTER_FIXTURES[kind]));
        }
      }
      for (const kind of options.policies) {
        const child = forkChild('cpu-client.ts');
        clients.set(kind, child);
        const ready = nextMessage(child, isType<Extract<FromCpuClient, { type: 'ready' }>>('ready'), 120_000);
        const xds = xdsSetups.get(kind);
        child.send({
          type: 'prepare',
          kind,
          addresses,
          ...(xds ? { xds: { target: xds.target, bootstrap: xds.bootstrap } } : {}),
        } satisfies ToCpuClient);
        await ready;
      }
      const all = async (seconds: number): Promise<Segment[]> => {
        if (options.schedule === 'concurrent') {
          return Promise.all(options.policies.map((policy) => runSegment(clients.get(policy)!, seconds, options.concurrency)));
        }
        const segments: Segment[] = new Array(options.policies.length);
        for (const i of shuffled(options.policies.map((_, index) => index))) {
          segments[i] = await runSegment(clients.get(options.policies[i])!, seconds, options.concurrency);
        }
        return segments;
      };
      await all(options.warmupS);
      const perRound = new Map(options.policies.map((p) => [p, [] as Segment[]]));
      for (let round = 0; round < options.rounds; round++) {
        const segments = await all(options.segmentS);
        options.policies.forEach((policy, i) => {
          const segment = segments[i];
          if (policy !== 'round_robin' && policy !== 'round_robin_xds' && segment.accounted < segment.calls * 0.9) {
            throw new Error(`${policy}: accounted ${segment.accounted} of ${segment.calls} calls; the policy did not run`);
          }
          if (isMarkedClient(policy) && segment.methodsTracked === 0) {
            throw new Error(`${policy}: no method reached the picker; the marker did not run`);
          }
          if (segment.failed > 0) {
            throw new Error(`${policy}: ${segment.failed} of ${segment.calls} calls failed at ${backends} backends`);
          }
          perRound.get(policy)!.push(segment);
        });
      }
      const usPerCall = (s: Segment): number => s.cpuMicros / s.calls;
      const rr = perRound.get('round_robin');
      for (const policy of options.policies) {
        const segments = perRound.get(policy)!;
        const values = segments.map(usPerCall);
        results.push({
          backends,
          policy,
          cpuMicrosPerCall: median(values),
          ratioToRoundRobin: rr ? median(segments.map((s, i) => usPerCall(s) / usPerCall(rr[i]))) : NaN,
          callsPerSecond: median(segments.map((s) => (s.calls * 1000) / s.wallMs)),
          rounds: segments.length,
          perRound: values,
        });
      }
      onProgress(
        `cpu per rpc @${backends}: ` +
          results
            .filter((r) => r.backends === backends)
            .map((r) => `${clientLabel(r.policy)} ${r.cpuMicrosPerCall.toFixed(1)} µs (×${r.ratioToRoundRobin.toFixed(3)})`)
            .join(', '),
      );
    } finally {
      for (const child of clients.values()) {
        if (child.connected) child.send({ type: 'stop' } satisfies ToCpuClient);
      }
      for (const xds of xdsSetups.values()) xds.close();
      await fleet.stop();
    }
  }
  return results;
}

