/**
 * A mixed-language fleet on loopback, measured: grpc-js backends that serve
 * any number of calls at once beside Python (grpcio) backends with one worker
 * thread (scripts/lib/python-probe-server.py), each as fast per call; several
 * client channels, each keeping a fixed number of calls in flight (a closed
 * loop), under round_robin, least_request_experimental and
 * peak_ewma_experimental in turn.
 *
 *   npx tsx scripts/bench/python-fleet.ts [--mode queue|shed|both] [--repeats 3]
 *
 * Modes: `queue`, the Python pods queue what they cannot serve yet (grpcio's
 * thread pool); `shed`, they also run with maximum_concurrent_rpcs=1 and answer
 * RESOURCE_EXHAUSTED at once to a call that finds the worker busy.
 *
 * Options (defaults in brackets; the default fleet and load are
 * test/policy/python-backends.e2e.test.ts's):
 *   --node N [3]          grpc-js backends
 *   --python N [3]        Python backends
 *   --service-ms MS [40]  every backend's fixed service time
 *   --clients N [4]       channels
 *   --in-flight N [4]     calls each channel keeps in flight
 *   --duration S [5]      measured window per policy and repeat, after
 *   --warmup S [1]        of the same load on the same channels
 *   --deadline-ms MS [1000]
 *   --repeats N [3]       each repeat runs every policy once, in turn
 *   --policies LIST       [round_robin,least_request,peak_ewma]; also
 *                         peak_ewma_f1 (errorPenaltyFactor 1) and variants:
 *   --variant NAME=JSON   (repeatable) policy NAME is this one
 *                         loadBalancingConfig entry, e.g.
 *                         'c6={"peak_ewma_experimental":{"choiceCount":6}}'
 *   --view                after each run of our policies, the estimates,
 *                         ejections and failures in a row that channel 0's
 *                         balancer held for each Python and grpc-js endpoint
 *
 * Printed per policy and repeat: p50 and p99 over all calls of the window,
 * a failed call counted at the deadline (it failed: as slow as a call that
 * timed out); p99 of the OK calls alone, and of those served by each kind;
 * the failed share and failures by status; OK calls per second; the share
 * of OK calls the Python pods served, and the share of all calls sent to
 * them (OK ones plus those they refused). Then the median over repeats of
 * each number. Each run checks which policy every channel ran
 * (getLoadBalancerStats; grpc-js's round_robin lists none) and stops if
 * one fell back.
 *
 * Each channel has its own subchannels ('grpc.use_local_subchannel_pool'),
 * like a client in its own process; the grpc-js backends and all clients
 * share this process, so its CPU is the load generator's too. Needs Debian's
 * python3-grpcio (/usr/bin/python3).
 */
import { credentials, ServiceError, status } from '@grpc/grpc-js';
import { parseArgs } from 'node:util';
import { BalancerStats, getLoadBalancerStats, register, STATS_LABEL_OPTION, validateServiceConfig } from '../../src';
import { callOnce, createProbeClient, ProbeClient } from '../lib/probe-service';
import { Histogram, newHistogram, recordMs, summarize } from './histogram';
import { median } from './stats';
import { TestBackend } from '../../test/support/backends';
import { PythonBackend, startPythonBackends, stopPythonBackends } from '../../test/support/python-backend';

register();

const POLICY_CONFIGS: Record<string, object> = {
  round_robin: { round_robin: {} },
  least_request: { least_request_experimental: {} },
  peak_ewma: { peak_ewma_experimental: {} },
  peak_ewma_f1: { peak_ewma_experimental: { errorPenaltyFactor: 1 } },
};
const POLICY_NAMES: Record<string, string> = {
  round_robin: 'round_robin',
  least_request: 'least_request_experimental',
  peak_ewma: 'peak_ewma_experimental',
  peak_ewma_f1: 'peak_ewma_experimental',
};

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    node: { type: 'string', default: '3' },
    python: { type: 'string', default: '3' },
    'service-ms': { type: 'string', default: '40' },
    clients: { type: 'string', default: '4' },
    'in-flight': { type: 'string', default: '4' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    'deadline-ms': { type: 'string', default: '1000' },
    repeats: { type: 'string', default: '3' },
    policies: { type: 'string', default: 'round_robin,least_request,peak_ewma' },
    view: { type: 'boolean', default: false },
    variant: { type: 'string', multiple: true, default: [] },
  },
});

function bounded(name: string, min: number, max: number): number {
  const value = Number(values[name as keyof typeof values]);
  if (!Number.isFinite(value) || value < min || value > max) {
    console.error(`--${name} must be a number in [${min}, ${max}], got ${JSON.stringify(values[name as keyof typeof values])}`);
    process.exit(2);
  }
  return value;
}

const NODE = bounded('node', 1, 32);
const PYTHON = bounded('python', 1, 32);
const SERVICE_MS = bounded('service-ms', 1, 1_000);
const CLIENTS = bounded('clients', 1, 32);
const IN_FLIGHT = bounded('in-flight', 1, 64);
const DURATION_MS = bounded('duration', 0.5, 120) * 1000;
const WARMUP_MS = bounded('warmup', 0, 60) * 1000;
const DEADLINE_MS = bounded('deadline-ms', 10, 60_000);
const REPEATS = bounded('repeats', 1, 20);
const MODES = values.mode === 'both' ? ['queue', 'shed'] : [values.mode!];
for (const variant of values.variant!) {
  const at = variant.indexOf('=');
  const name = variant.slice(0, at);
  let config: object;
  try {
    config = JSON.parse(variant.slice(at + 1));
    validateServiceConfig({ loadBalancingConfig: [config] });
  } catch (error) {
    console.error(`--variant ${variant}: expected NAME=JSON, one loadBalancingConfig entry (${(error as Error).message})`);
    process.exit(2);
  }
  if (at < 1 || name in POLICY_CONFIGS) {
    console.error(`--variant ${variant}: NAME must be new and non-empty`);
    process.exit(2);
  }
  POLICY_CONFIGS[name] = config;
  const text = JSON.stringify(config);
  POLICY_NAMES[name] = ['peak_ewma_experimental', 'least_request_experimental'].find((ours) => text.includes(`"${ours}"`)) ?? 'round_robin';
}
const POLICIES = values.policies!.split(',');
const VIEW = values.view!;
for (const mode of MODES) {
  if (mode !== 'queue' && mode !== 'shed') {
    console.error(`--mode must be queue, shed or both, got ${mode}`);
    process.exit(2);
  }
}
for (const policy of POLICIES) {
  if (!(policy in POLICY_CONFIGS)) {
    console.error(`unknown policy ${policy}; known: ${Object.keys(POLICY_CONFIGS).join(', ')}`);
    process.exit(2);
  }
}

/** A measured window: latency histograms (the load test's, histogram.ts) and counts. */
class Window {
  readonly all: Histogram = newHistogram(); // every call, a failed one at the deadline
  readonly ok: Histogram = newHistogram();
  readonly okOnNode: Histogram = newHistogram(); // OK calls served by a grpc-js backend
  readonly okOnPython: Histogram = newHistogram(); // OK calls served by a Python backend
  readonly failures = new Map<string, number>();
  refusedByPython = 0; // RESOURCE_EXHAUSTED "Concurrent RPC limit exceeded!": grpcio's answer
  total = 0;
}

/** `clients` closed loops of IN_FLIGHT workers each, for `durationMs`, recorded into `window` if given. */
async function load(clients: ProbeClient[], durationMs: number, pythonIds: Set<string>, window: Window | null): Promise<void> {
  const stopAt = Date.now() + durationMs;
  const worker = async (client: ProbeClient) => {
    while (Date.now() < stopAt) {
      const started = process.hrtime.bigint();
      let servedBy: string | undefined;
      let error: ServiceError | undefined;
      try {
        servedBy = await callOnce(client, DEADLINE_MS);
      } catch (thrown) {
        error = thrown as ServiceError;
      }
      if (!window) continue;
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      window.total++;
      if (error) {
        const name = status[error.code] ?? String(error.code);
        window.failures.set(name, (window.failures.get(name) ?? 0) + 1);
        recordMs(window.all, DEADLINE_MS);
        if (error.code === status.RESOURCE_EXHAUSTED && error.details.includes('Concurrent RPC limit')) {
          window.refusedByPython++;
        }
      } else {
        recordMs(window.all, elapsedMs);
        recordMs(window.ok, elapsedMs);
        recordMs(pythonIds.has(servedBy!) ? window.okOnPython : window.okOnNode, elapsedMs);
      }
    }
  };
  await Promise.all(clients.flatMap((client) => Array.from({ length: IN_FLIGHT }, () => worker(client))));
}

interface Row {
  p50: number;
  p99: number;
  p99ok: number;
  p99node: number;
  p99python: number;
  failedPct: number;
  failures: string;
  okPerS: number;
  pythonOkShare: number;
  pythonSentShare: number;
  ran: string;
  /** Our policies: what channel 0's balancer saw of each kind at the end of the window. */
  view: string;
}

/** Estimates (ms), ejections and failures in a row of the Python and the grpc-js endpoints, as one line. */
function balancerView(stats: BalancerStats | undefined, pythonAddresses: Set<string>): string {
  if (!stats) return '';
  const kind = (python: boolean) => {
    const endpoints = stats.endpoints.filter((e) => pythonAddresses.has(e.address) === python);
    const estimates = endpoints.map((e) => (e.estimateMs === null ? '-' : e.estimateMs.toFixed(0))).join('/');
    const ejected = endpoints.filter((e) => e.ejected).length;
    const inARow = endpoints.map((e) => e.failuresInARow).join('/');
    return `estimates ${estimates}, ejected ${ejected}, failures in a row ${inARow}`;
  };
  const fleet = stats.fleetRttMs === null ? '-' : stats.fleetRttMs.toFixed(1);
  return `fleet ${fleet} ms; python: ${kind(true)}; grpc-js: ${kind(false)}`;
}

async function measure(policy: string, label: string, target: string, pythonIds: Set<string>, pythonAddresses: Set<string>): Promise<Row> {
  const serviceConfig = { loadBalancingConfig: [POLICY_CONFIGS[policy]] };
  validateServiceConfig(serviceConfig);
  const clients = Array.from({ length: CLIENTS }, (_, i) =>
    createProbeClient(target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify(serviceConfig),
      'grpc.use_local_subchannel_pool': 1,
      [STATS_LABEL_OPTION]: `${label}-${i}`,
    }),
  );
  try {
    await load(clients, WARMUP_MS, pythonIds, null);
    const window = new Window();
    const started = Date.now();
    await load(clients, DURATION_MS, pythonIds, window);
    const seconds = (Date.now() - started) / 1000;
    // Which policy each channel ran: ours list themselves; round_robin (grpc-js's own) does not.
    const ran = clients.map((_, i) => getLoadBalancerStats().find((s) => s.label === `${label}-${i}`)?.policy ?? 'not ours');
    const expected = POLICY_NAMES[policy] === 'round_robin' ? 'not ours' : POLICY_NAMES[policy];
    if (ran.some((name) => name !== expected)) {
      throw new Error(`${policy}: channels ran ${ran.join(', ')}, not ${expected}`);
    }
    const view = balancerView(getLoadBalancerStats().find((s) => s.label === `${label}-0`), pythonAddresses);
    const all = summarize(window.all);
    const ok = window.ok.totalCount;
    const okOnPython = window.okOnPython.totalCount;
    return {
      p50: all.p50Ms,
      p99: all.p99Ms,
      p99ok: summarize(window.ok).p99Ms,
      p99node: summarize(window.okOnNode).p99Ms,
      p99python: summarize(window.okOnPython).p99Ms,
      failedPct: (100 * (window.total - ok)) / Math.max(window.total, 1),
      failures: [...window.failures].map(([name, count]) => `${name} ${count}`).join(', ') || '-',
      okPerS: ok / seconds,
      pythonOkShare: okOnPython / Math.max(ok, 1),
      pythonSentShare: (okOnPython + window.refusedByPython) / Math.max(window.total, 1),
      ran: ran[0] === 'not ours' ? 'round_robin (grpc-js)' : ran[0],
      view,
    };
  } finally {
    for (const client of clients) client.close();
  }
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function printRow(name: string, row: Row): void {
  console.log(
    [
      name.padEnd(22),
      fmt(row.p50).padStart(7),
      fmt(row.p99).padStart(7),
      fmt(row.p99ok).padStart(7),
      fmt(row.p99node).padStart(7),
      fmt(row.p99python).padStart(7),
      (fmt(row.failedPct, 2) + ' %').padStart(8),
      fmt(row.okPerS, 0).padStart(6),
      (fmt(100 * row.pythonOkShare) + ' %').padStart(8),
      (fmt(100 * row.pythonSentShare) + ' %').padStart(8),
      `  ${row.failures}`,
    ].join(' '),
  );
}

async function main(): Promise<void> {

  console.log(
    `fleet: ${NODE} grpc-js backends (any number of calls at once) + ${PYTHON} Python backends (1 worker), ` +
      `each ${SERVICE_MS} ms per call; ${CLIENTS} channels × ${IN_FLIGHT} calls in flight (closed loop), ` +
      `deadline ${DEADLINE_MS} ms; ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run; ${REPEATS} repeats`,
  );
  console.log('p50/p99: all calls, a failed one at the deadline; p99 ok: OK calls only, ..node/..py: those served by grpc-js / Python pods; py ok: share of OK calls served by Python pods; py sent: share of all calls sent to them');
  for (const mode of MODES) {
    const nodeBackends = await Promise.all(
      Array.from({ length: NODE }, (_, i) => {
        const backend = new TestBackend(`node${i}`);
        backend.behaviour.delayMs = SERVICE_MS;
        return backend.start();
      }),
    );
    let pythonBackends: PythonBackend[] = [];
    try {
      pythonBackends = await startPythonBackends(PYTHON, 'py', {
        workers: 1,
        serviceMs: SERVICE_MS,
        ...(mode === 'shed' ? { maxConcurrentRpcs: 1 } : {}),
      });
      const pythonIds = new Set(pythonBackends.map((backend) => backend.id));
      // Interleaved so that the pods alternate in the address list.
      const addresses = Array.from({ length: Math.max(NODE, PYTHON) }, (_, i) => [nodeBackends[i]?.address, pythonBackends[i]?.address]).flat();
      const target = 'ipv4:' + addresses.filter(Boolean).join(',');
      console.log(`\nmode ${mode}: Python pods ${mode === 'shed' ? 'with maximum_concurrent_rpcs=1 (RESOURCE_EXHAUSTED when busy)' : 'queueing (thread pool of 1)'}; grpcio ${pythonBackends[0].grpcVersion}`);
      console.log(`${'policy, repeat'.padEnd(22)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'p99 ok'.padStart(7)} ${'..node'.padStart(7)} ${'..py'.padStart(7)} ${'failed'.padStart(8)} ${'ok/s'.padStart(6)} ${'py ok'.padStart(8)} ${'py sent'.padStart(8)}   failures`);
      const rows = new Map<string, Row[]>(POLICIES.map((policy) => [policy, []]));
      for (let repeat = 1; repeat <= REPEATS; repeat++) {
        for (const policy of POLICIES) {
          const row = await measure(policy, `pyfleet-${mode}-${policy}-${repeat}`, target, pythonIds, new Set(pythonBackends.map((b) => b.address)));
          rows.get(policy)!.push(row);
          printRow(`${policy} #${repeat}`, row);
          if (VIEW && row.view) console.log(`    ${row.view}`);
        }
      }
      console.log('median over repeats:');
      for (const [policy, list] of rows) {
        const pick = (key: keyof Row) => median(list.map((row) => row[key] as number));
        printRow(`${policy} (median)`, {
          p50: pick('p50'),
          p99: pick('p99'),
          p99ok: pick('p99ok'),
          p99node: pick('p99node'),
          p99python: pick('p99python'),
          failedPct: pick('failedPct'),
          okPerS: pick('okPerS'),
          pythonOkShare: pick('pythonOkShare'),
          pythonSentShare: pick('pythonSentShare'),
          failures: `ran ${list[0].ran}`,
          ran: list[0].ran,
          view: '',
        });
      }
      const stats = await Promise.all(pythonBackends.map((backend) => backend.stats()));
      console.log(`Python handlers at once, most seen: ${Math.max(...stats.map((s) => s.maxActive))} (one worker each)`);
    } finally {
      await stopPythonBackends(pythonBackends);
      for (const backend of nodeBackends) backend.stop();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
