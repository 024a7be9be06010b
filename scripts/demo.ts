/**
 * `npm start`: the main job in about a minute. Five local backends (real
 * grpc-js servers on 127.0.0.1, answering from the load test's queueing
 * model), one of them five times slower; peak_ewma, least_request and
 * round_robin each on its own channel, all at once, open loop; a live
 * progress line; then latency per policy and each backend's share of calls.
 *
 *   npm start                       # 60 s
 *   npm start -- --duration 20      # shorter
 *   npm start -- --rate 50          # calls/s per policy (default 50)
 */
import { ChannelOptions, credentials } from '@grpc/grpc-js';
import { seededRandom } from '../src/core/random';
import { createProbeClient, ProbeClient } from './lib/probe-service';
import { parseMethod } from './model';
import { decodeHistogram, summarize } from './bench/histogram';
import { LoadRecorder } from './bench/load-recorder';
import { LogicalClockScheduler } from './bench/logical-scheduler';
import { runOpenLoop } from './bench/open-loop';
import { loadPackage } from './bench/package-under-test';
import { PolicyId, POLICY_LABELS, registerPolicies, serviceConfigJson } from './bench/policies';
import { ProbeBackend } from './bench/probe-backend';
import { formatMs, formatPercent, ProgressLine } from './bench/progress';
import { textTable } from './bench/tables';

const POLICIES: readonly PolicyId[] = ['peak_ewma', 'least_request', 'round_robin'];
const BACKENDS = 5;
const SLOW_BACKEND = 2;
/** Demo backends: 4 slots, 10 ms median (σ 0.3); the slow one 5× slower. */
const NORMAL = { slots: 4, sigma: 0.3, latencyFactor: 1 };
const SLOW = { ...NORMAL, latencyFactor: 5 };
const WARMUP_S = 5;

function parseDemoArgs(argv: readonly string[]): { durationS: number; ratePerPolicy: number } {
  let durationS = 60;
  let ratePerPolicy = 50;
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=', 2);
    const value = Number(inline ?? argv[++i]);
    if (name === '--duration' && value >= WARMUP_S + 5) {
      durationS = value;
    } else if (name === '--rate' && value > 0 && value <= 2000) {
      ratePerPolicy = value;
    } else {
      throw new RangeError(
        `usage: npm start -- [--duration SECONDS (>= ${WARMUP_S + 5}, default 60)] [--rate CALLS_PER_S_PER_POLICY (default 50)]`,
      );
    }
  }
  return { durationS, ratePerPolicy };
}

async function main(): Promise<void> {
  const { durationS, ratePerPolicy } = parseDemoArgs(process.argv.slice(2));
  const measureS = durationS - WARMUP_S;
  const pkg = loadPackage();
  registerPolicies();

  const scheduler = new LogicalClockScheduler();
  const backends = Array.from(
    { length: BACKENDS },
    (_, i) =>
      new ProbeBackend({
        id: i === SLOW_BACKEND ? `b${i} (slow)` : `b${i}`,
        scheduler,
        random: seededRandom(1000 + i),
        behaviour: i === SLOW_BACKEND ? SLOW : NORMAL,
      }),
  );
  await Promise.all(backends.map((b) => b.start()));
  const loadTimer = setInterval(() => backends.forEach((b) => b.sampleLoad()), 100);
  const addresses = backends.map((b) => `127.0.0.1:${b.port}`);
  const backendIndex = new Map(backends.map((b, i) => [b.id, i]));
  const addressIndex = new Map(addresses.map((a, i) => [a, i]));

  console.log(
    `${BACKENDS} backends on 127.0.0.1 (4 slots, 10 ms median service time; ${backends[SLOW_BACKEND].id} is 5x slower), ` +
      `${POLICIES.map((p) => POLICY_LABELS[p]).join(', ')} side by side, ${ratePerPolicy} calls/s each, ` +
      `${WARMUP_S} s warm-up + ${measureS} s measured.`,
  );

  const method = parseMethod('U10_get');
  const clients: ProbeClient[] = [];
  const recorders = POLICIES.map(() => new LoadRecorder(measureS, [], BACKENDS, method.deadlineMs));
  for (const policy of POLICIES) {
    const options: ChannelOptions = {
      'grpc.service_config': serviceConfigJson(policy),
      'grpc.enable_channelz': 0,
      [pkg.STATS_LABEL_OPTION]: policy,
    };
    const client = createProbeClient(`ipv4:${addresses.join(',')}`, credentials.createInsecure(), options);
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(Date.now() + 10_000, (error) => (error ? reject(error) : resolve())),
    );
    clients.push(client);
  }

  const zeroAtMs = performance.now() + WARMUP_S * 1000;
  const progress = new ProgressLine(process.stderr, 10);
  const progressTimer = setInterval(() => {
    const t = Math.floor((performance.now() - zeroAtMs) / 1000);
    const parts = POLICIES.map((policy, i) => {
      const p = recorders[i].progress();
      const shares = recorders[i].bucket(Math.max(0, t - 1))?.perBackend ?? [];
      const total = shares.reduce((a, b) => a + b, 0);
      const slowShare = total > 0 ? shares[SLOW_BACKEND] / total : NaN;
      return `${POLICY_LABELS[policy]} p99 ${formatMs(p.okP99Ms)} err ${formatPercent(p.failed / Math.max(1, p.ok + p.failed), 1)} slow ${formatPercent(slowShare, 0)}`;
    });
    progress.update(`${t < 0 ? `warm-up ${-t}s` : `${t}/${measureS}s`}  ${parts.join('  |  ')}`);
  }, 1000);

  await Promise.all(
    POLICIES.map((_, i) =>
      runOpenLoop({
        client: () => clients[i],
        rateRps: ratePerPolicy,
        methods: [method],
        zeroAtMs,
        warmupS: WARMUP_S,
        measureS,
        phaseOffset: i / POLICIES.length,
        random: seededRandom(7 + i),
        recorder: recorders[i],
        backendOf: (id, peer) => (id !== null ? backendIndex.get(id) : undefined) ?? addressIndex.get(peer) ?? -1,
      }),
    ),
  );
  clearInterval(progressTimer);
  progress.done();

  const evidence = pkg.getLoadBalancerStats();
  const runs = recorders.map((r) => r.export());
  const latencyRows = POLICIES.map((policy, i) => {
    const ok = decodeHistogram(runs[i].okHistogram);
    const all = decodeHistogram(runs[i].allHistogram);
    const s = summarize(ok);
    const a = summarize(all);
    const calls = runs[i].ok + runs[i].failed;
    return [
      POLICY_LABELS[policy],
      String(calls),
      formatMs(s.p50Ms),
      formatMs(s.p99Ms),
      formatMs(s.p999Ms),
      formatMs(a.p99Ms),
      formatPercent(calls > 0 ? runs[i].failed / calls : NaN),
    ];
  });
  console.log('\nLatency from the intended start (OK calls; "all" counts failures at the 500 ms deadline):\n');
  console.log(textTable({ headers: ['policy', 'calls', 'p50', 'p99', 'p99.9', 'p99 all', 'errors'], rows: latencyRows }));

  const shareRows = backends.map((backend, b) => [
    backend.id,
    ...POLICIES.map((_, i) => {
      const counts = runs[i].seconds.reduce((sum, second) => sum + second.perBackend[b], 0);
      const total = runs[i].seconds.reduce((sum, second) => sum + second.perBackend.reduce((x, y) => x + y, 0), 0);
      return formatPercent(total > 0 ? counts / total : NaN, 1);
    }),
  ]);
  console.log(`\nShare of each policy's calls per backend (fair share ${formatPercent(1 / BACKENDS, 0)}):\n`);
  console.log(textTable({ headers: ['backend', ...POLICIES.map((p) => POLICY_LABELS[p])], rows: shareRows }));

  const ours = evidence.filter((s) => s.label === 'peak_ewma' || s.label === 'least_request');
  console.log(
    `\nProof the policies ran (getLoadBalancerStats): ${ours
      .map((s) => `${s.policy} accounted ${s.endpoints.reduce((sum, e) => sum + e.callsStarted, 0)} calls`)
      .join(', ')}.`,
  );
  console.log(
    '\nFull report with all scenarios, charts and overhead numbers: docs/benchmarks.md ' +
      '(regenerate with `npm run bench:report`; a load test of a few minutes: `npm run bench -- --quick`).',
  );

  clients.forEach((c) => c.close());
  clearInterval(loadTimer);
  scheduler.stop();
  await Promise.all(backends.map((b) => b.stop(0)));
  if (ours.length < 2 || ours.some((s) => s.endpoints.every((e) => e.callsStarted === 0))) {
    throw new Error('peak_ewma or least_request did not run (grpc-js may have fallen back to pick_first)');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
