/**
 * A client whose own event loop is busy at times, calling identical fast
 * backends: what its noise does to peak_ewma's shares and tail beside
 * round_robin's.
 *
 * Why. A client measures each call from its pick to its answer, so time its
 * event loop spends on other work lands in whichever answers are waiting.
 * At single-digit-ms services that noise is as large as the service itself,
 * and the ejection line (1.5 × the small fleet's median mean) and the
 * rotation's gate (1.45 × the fleet average) can read it as one backend
 * being slower than its peers. A cold trial of the package saw one of two
 * identical 2 ms backends at a 1:2 split for 40 calls (docs/tuning-log.md
 * §55). The simulator cannot show it: its clients have no event loop.
 *
 * The backends are the load test's (probe-backend.ts over the shared
 * queueing model: 8 slots, σ 0.3, the given median), in a child process of
 * their own so the client's noise does not reach them. The client process
 * busy-waits for a uniform [0, noise] ms every 5–25 ms (seeded), the way an
 * application's own work holds the loop, and sends `calls` calls from
 * `concurrency` workers one after another (a closed loop), each with a 5 s
 * deadline. Per run: p50 / p99 / p99.9 of the client-side latency, each
 * backend's share, the lowest share any backend had in a window of 200
 * consecutive calls, the picks' paths and refusals from the package's stats,
 * and the client's event-loop delay p99 (the noise as the loop saw it).
 *
 *   npx tsx scripts/bench/client-noise.ts [--calls 3000] [--repeats 3] [--median-ms 2]
 *       [--noise 0,4,12] [--concurrency 1,4] [--backends 4]
 *
 * Runs are interleaved (policy inside noise inside concurrency inside
 * repeat), so round_robin and peak_ewma see the same machine.
 */
import { fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseCommandLine } from '../lib/command-line';
import { credentials, Metadata } from '@grpc/grpc-js';
import { seededRandom } from '../../src/core/random';
import { createProbeClient, ProbeClient } from '../lib/probe-service';
import { RealTimeScheduler } from '../model';
import { loadPackage } from './package-under-test';
import { ProbeBackend } from './probe-backend';
import { encodeProbeRequest } from './probe-request';

const WINDOW_CALLS = 200;
const DEADLINE_MS = 5_000;
let runs = 0;

/** The child: serves `count` backends (the median comes in each request) and sends their ports. */
async function serve(count: number): Promise<void> {
  const scheduler = new RealTimeScheduler();
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const backend = new ProbeBackend({ id: `b${i}`, scheduler, random: seededRandom(100 + i), behaviour: {} });
    ports.push(await backend.start());
  }
  process.send?.({ ports });
}

interface RunResult {
  readonly policy: string;
  readonly noiseMs: number;
  readonly concurrency: number;
  readonly latencyMs: { p50: number; p99: number; p999: number };
  readonly shares: number[];
  readonly lowestWindowShare: number;
  readonly loopDelayP99Ms: number;
  readonly picks: unknown;
  readonly refusals: unknown;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function callWithMedian(client: ProbeClient, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    client.call(request, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (error, response) => (error ? reject(error) : resolve(response!.toString('utf8'))));
  });
}

async function run(ports: readonly number[], policy: string, noiseMs: number, concurrency: number, calls: number, medianMs: number, seed: number): Promise<RunResult> {
  const pkg = loadPackage();
  pkg.register();
  const label = `client-noise-${++runs}`;
  const config = policy === 'round_robin' ? { round_robin: {} } : { [policy]: {} };
  const target = 'ipv4:' + ports.map((port) => `127.0.0.1:${port}`).join(',');
  const client = createProbeClient(target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [config] }),
    [pkg.STATS_LABEL_OPTION]: label,
  });
  const request = encodeProbeRequest(medianMs);
  for (let i = 0; i < 20; i++) {
    await callWithMedian(client, request); // connect and warm, outside the measurement
  }
  const random = seededRandom(seed);
  let noiseTimer: NodeJS.Timeout | undefined;
  const busy = (): void => {
    const until = performance.now() + random() * noiseMs;
    while (performance.now() < until) {
      // the application's own work, holding the loop
    }
    noiseTimer = setTimeout(busy, 5 + random() * 20);
  };
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  if (noiseMs > 0) {
    busy();
  }
  const latencies: number[] = [];
  const servedBy: string[] = [];
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < calls) {
      issued++;
      const startedAt = performance.now();
      servedBy.push(await callWithMedian(client, request));
      latencies.push(performance.now() - startedAt);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  clearTimeout(noiseTimer);
  loopDelay.disable();
  const stats = pkg.getLoadBalancerStats().find((entry) => entry.label === label);
  if (policy !== 'round_robin' && stats === undefined) {
    // grpc-js falls back to pick_first in silence when a config does not parse.
    throw new Error(`${policy}: no balancer of the package's served the run`);
  }
  client.close();
  const ids = ports.map((_, i) => `b${i}`);
  const shareIn = (from: number, to: number, id: string): number => servedBy.slice(from, to).filter((x) => x === id).length / (to - from);
  let lowestWindowShare = 1;
  for (let from = 0; from + WINDOW_CALLS <= servedBy.length; from += WINDOW_CALLS) {
    for (const id of ids) {
      lowestWindowShare = Math.min(lowestWindowShare, shareIn(from, from + WINDOW_CALLS, id));
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    policy,
    noiseMs,
    concurrency,
    latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), p999: quantile(latencies, 0.999) },
    shares: ids.map((id) => shareIn(0, servedBy.length, id)),
    lowestWindowShare,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    picks: stats?.picks ?? null,
    refusals: stats?.refusals ?? null,
  };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine('npx tsx scripts/bench/client-noise.ts', {
    options: {
      serve: { type: 'string' },
      calls: { type: 'string', default: '3000' },
      repeats: { type: 'string', default: '3' },
      'median-ms': { type: 'string', default: '2' },
      noise: { type: 'string', default: '0,4,12' },
      concurrency: { type: 'string', default: '1,4' },
      backends: { type: 'string', default: '4' },
    },
  });
  const medianMs = Number(values['median-ms']);
  if (values.serve !== undefined) {
    return serve(Number(values.serve));
  }
  const list = (text: string): number[] => text.split(',').map(Number);
  const child = fork(__filename, ['--serve', values.backends], { execArgv: process.execArgv });
  const ports = await new Promise<number[]>((resolve) => child.once('message', (message: { ports: number[] }) => resolve(message.ports)));
  const results: RunResult[] = [];
  try {
    for (let repeat = 0; repeat < Number(values.repeats); repeat++) {
      for (const concurrency of list(values.concurrency)) {
        for (const noiseMs of list(values.noise)) {
          for (const policy of ['round_robin', 'peak_ewma_experimental']) {
            const result = await run(ports, policy, noiseMs, concurrency, Number(values.calls), medianMs, 1 + repeat);
            results.push(result);
            const f = (x: number): string => x.toFixed(1);
            console.log(
              `${policy.padEnd(22)} noise ${String(noiseMs).padStart(2)} ms  conc ${concurrency}  loop p99 ${f(result.loopDelayP99Ms).padStart(5)}  ` +
                `p50 ${f(result.latencyMs.p50)}  p99 ${f(result.latencyMs.p99)}  p99.9 ${f(result.latencyMs.p999)}  ` +
                `shares ${result.shares.map((s) => s.toFixed(3)).join(' ')}  lowest ${WINDOW_CALLS}-call window ${result.lowestWindowShare.toFixed(3)}` +
                (result.refusals ? `  refusals ${JSON.stringify(result.refusals)}` : ''),
            );
          }
        }
      }
    }
  } finally {
    child.kill();
  }
  console.log(JSON.stringify({ medianMs, backends: Number(values.backends), calls: Number(values.calls), results }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
