/**
 * A run's measurements reduced to what the report and the JSON keep, per
 * policy group. Plain data: it crosses worker boundaries.
 */
import {
  busiestHealthy,
  detectionAndRecovery,
  freshShare,
  lostShareSeconds,
  PHASES,
  sharePerSecond,
  summariseLatency,
  Window,
  windowSeconds,
  LatencySummary,
  MethodLatency,
  summariseMethod,
} from './metrics';
import { RunOutput } from './world';
import { GroupTally } from './tally';

export interface FreshResult {
  backend: number;
  /** Seconds into the measured window. */
  atS: number;
  /** The fresh backend's share over its first second, relative to fair. */
  firstSecond: number;
  /** Its highest 100 ms share in that second, relative to fair. */
  peakBin: number;
}

export interface PolicyResult extends LatencySummary {
  policy: string;
  clients: number;
  /** The window p50…errorRate and share cover: "fault" or "window". */
  window: Window;
  recoverySeconds: number | null;
  /** The faulty backends' share lacked over the 5 s after the fault (metrics.ts `lostShareSeconds`); null without a fault. */
  lostShareSeconds: number | null;
  detectionSeconds: number | null;
  /** Share of the group's calls per backend over the window. */
  share: number[];
  /** The busiest healthy backend's share relative to fair (1 / backends published): p95 over seconds, and over the window. */
  busiestHealthy: { p95: number; window: number };
  /** OK calls per second per client. */
  goodputRps: number;
  phases: Record<string, LatencySummary>;
  /** Per second × backend share (rounded), for charts. */
  shareBySecond: number[][];
  fresh?: FreshResult[];
  /** With several methods: per method group (pooled over the group's clients), over `window`. */
  methods?: Record<string, MethodLatency>;
}

export interface RunResult {
  scenario: string;
  groups: PolicyResult[];
  ratePerClientRps: number;
  /** Closed loop only: callers per client, mean think time (ms), the most calls a client had in flight. */
  closedLoop?: { workers: number; thinkMs: number; maxInFlight: number };
  /** With `--tally`: the calls by pod and pick path (tally.ts). */
  tally?: readonly GroupTally[];
  calls: number;
  events: number;
  wallMs: number;
}

const round = (x: number, digits: number): number => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

export function summariseRun(output: RunOutput): RunResult {
  const { metrics, scenario } = output;
  // The phases the metrics were kept in (world.ts: the scenario's, e.g. s08's shorter fault phase).
  const timeline = metrics.layout.timeline;
  const window: Window = scenario.faultWindow ? 'fault' : 'window';
  const backendsUsed = output.backendCount;
  const groups = output.spec.groups.map((_, g): PolicyResult => {
    const clients = output.clientGroups.flatMap((cg, c) => (cg === g ? [c] : []));
    const latency = summariseLatency(metrics, clients, window);
    const perSecond = sharePerSecond(metrics, g);
    const [from, to] = windowSeconds(window, timeline);
    const sent = metrics.sentByBackend(g, from * 10, to * 10);
    const total = sent.reduce((a, b) => a + b, 0);
    const faulty = scenario.faulty;
    const faultyFairShare = faulty.length / metrics.publishedCount(0);
    const { detectionSeconds, recoverySeconds } =
      faulty.length > 0 ? detectionAndRecovery(perSecond, faulty, faultyFairShare, timeline) : { detectionSeconds: null, recoverySeconds: null };
    const lostShare = faulty.length > 0 ? round(lostShareSeconds(perSecond, faulty, faultyFairShare, timeline), 4) : null;
    const phases: Record<string, LatencySummary> = {};
    for (const phase of [...PHASES, 'window'] as const) {
      const summary = summariseLatency(metrics, clients, phase);
      phases[phase] = roundLatency(summary);
    }
    const result: PolicyResult = {
      policy: output.policies[g].label,
      clients: clients.length,
      window,
      ...phases[window],
      recoverySeconds,
      lostShareSeconds: lostShare,
      detectionSeconds,
      share: Array.from(sent.subarray(0, backendsUsed), (x) => round(total > 0 ? x / total : 0, 5)),
      busiestHealthy: mapValues(busiestHealthy(metrics, g, output.healthy, window), (x) => round(x, 3)),
      goodputRps: round(latency.okCalls / clients.length / (to - from), 1),
      phases,
      shareBySecond: perSecond.map((row) => Array.from(row.subarray(0, backendsUsed), (x) => round(x, 4))),
    };
    const methods = scenario.methods;
    if (methods.length > 1) {
      result.methods = Object.fromEntries(
        methods.map((method, m) => [method.name, roundLatency(summariseMethod(metrics, g, m, window))]),
      );
    }
    if (output.fresh.length > 0) {
      result.fresh = output.fresh.map((event) => {
        const share = freshShare(metrics, g, event.backend, event.atMs, 1000, event.publishedCount);
        return {
          backend: event.backend,
          atS: round((event.atMs - metrics.measureStartMs) / 1000, 3),
          firstSecond: round(share.firstSecond, 3),
          peakBin: round(share.peakBin, 3),
        };
      });
    }
    return result;
  });
  return {
    scenario: scenario.name,
    groups,
    ratePerClientRps: output.ratePerClientRps,
    ...(output.closedLoop === undefined ? {} : { closedLoop: { ...output.closedLoop, thinkMs: round(output.closedLoop.thinkMs, 3) } }),
    ...(output.tally === undefined ? {} : { tally: output.tally }),
    calls: output.calls,
    events: output.events,
    wallMs: Math.round(output.wallMs),
  };
}

/** Percentiles to the µs, error rates to 6 digits, the rest as is. */
function roundLatency<T extends MethodLatency | LatencySummary>(summary: T): T {
  const pooled = 'p99AllPooled' in summary ? { p99AllPooled: round(summary.p99AllPooled, 3) } : {};
  return {
    ...summary,
    ...pooled,
    p50: round(summary.p50, 3),
    p99: round(summary.p99, 3),
    p999: round(summary.p999, 3),
    p99All: round(summary.p99All, 3),
    errorRate: round(summary.errorRate, 6),
  };
}

function mapValues<T extends Record<string, number>>(obj: T, f: (x: number) => number): T {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v)])) as T;
}
