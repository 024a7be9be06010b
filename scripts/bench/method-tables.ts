/**
 * Per-method-group figures of a workload of several methods (issue 16): each
 * policy's p50 / p99 / p99.9 / p99 over all calls per method group, beside
 * its all-methods figures, as tables for the terminal, the report and the
 * methods page (docs/benchmarks/methods.md), and issue 16's target on them.
 *
 * The groups are folded over repeats by aggregate.ts itself: each run is
 * seen once per group, with the group's window stats as every policy's
 * headline, so the means, intervals and the p99.9 rule are the report's
 * own. Per-method figures are over the whole measurement window (the
 * clients record them so, load-recorder.ts), failures at that method's own
 * deadline; the all-methods row is the same window.
 */
import * as fs from 'fs';
import * as path from 'path';
import { aggregate, AggregateRow } from './aggregate';
import { P999_MIN_SAMPLES } from '../lib/percentile-rules';
import type { ScenarioResult } from './loadtest';
import { gitCommit } from './machine';
import { planLoadRuns, planWallTimeS } from './plan';
import { REPO_ROOT } from './package-under-test';
import { clientLabel, PolicyId, POLICY_IDS } from './policies';
import { formatMs } from './progress';
import type { BenchResults } from './report';
import { regimeKey, regimeLabel } from './scale';
import { liesBelow, ratio } from './stats';
import { markdownTable, Table } from './tables';
import { allP99Cell, errorCell, p99Cell, repeatsWord } from './row-cells';
import { CLIENT_ONLY_COMPETITORS, groupName, outcomeOf, Verdict } from './verdicts';

/** The group of every call, whatever its method. */
export const ALL_METHODS = 'all methods';

/** Joins a scenario id and a group name into the key aggregate() groups by (neither contains it). */
const SEPARATOR = '\u0000';

export interface MethodRow extends AggregateRow {
  /** A method group's name, or ALL_METHODS. */
  readonly method: string;
}

/** The method groups of a run, in the workload's order; empty for a one-method workload. */
export function methodNamesOf(run: ScenarioResult): string[] {
  return Array.from(new Set(run.policies.flatMap((p) => Object.keys(p.methods ?? {}))));
}

/** `run` as aggregate() should see group `group`: each policy's headline is the group's window. */
function asGroupRun(run: ScenarioResult, group: string): ScenarioResult {
  const policies = run.policies.flatMap((p) => {
    const stats = group === ALL_METHODS ? p.window : p.methods?.[group];
    return stats ? [{ ...p, headline: stats }] : [];
  });
  return { ...run, scenario: `${run.scenario}${SEPARATOR}${group}`, policies };
}

/** One row per scenario, layout, regime, policy and method group (all methods included), over repeats. */
export function aggregateMethods(results: readonly ScenarioResult[]): MethodRow[] {
  const runs = results.flatMap((run) => {
    const names = methodNamesOf(run);
    return names.length === 0 ? [] : [...names, ALL_METHODS].map((group) => asGroupRun(run, group));
  });
  return aggregate(runs).map((row) => {
    const [scenario, method] = row.scenario.split(SEPARATOR);
    return { ...row, scenario, method };
  });
}

/** The rows of one scenario × layout × regime each, method by method (all methods last), policies in POLICY_IDS order. */
function groupsOf(rows: readonly MethodRow[]): MethodRow[][] {
  const groups = new Map<string, MethodRow[]>();
  for (const row of rows) {
    const key = `${row.scenario}|${row.layout}|${regimeKey(row.regime)}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const methodOrder = Array.from(new Set(rows.map((r) => r.method)));
  const rank = (r: MethodRow): number => methodOrder.indexOf(r.method) * 100 + policyRank(r.policy);
  return Array.from(groups.values(), (group) => group.slice().sort((a, b) => rank(a) - rank(b)));
}

/** A client kind's place in POLICY_IDS (xDS clients after every policy). */
function policyRank(kind: MethodRow['policy']): number {
  const i = (POLICY_IDS as readonly string[]).indexOf(kind);
  return i < 0 ? POLICY_IDS.length : i;
}

/** One group's rows as a table: method by method, each policy with its p99 as a multiple of peak_ewma's. */
export function methodTable(rows: readonly MethodRow[]): Table {
  const peakP99 = (method: string): number => rows.find((r) => r.method === method && r.policy === 'peak_ewma')?.p99Ms ?? NaN;
  return {
    headers: ['method', 'policy', 'p50', 'p99 [95 % CI]', 'p99.9', 'p99 all calls [95 % CI]', 'errors [95 % CI]', "p99 ÷ peak_ewma's"],
    rows: rows.map((r) => {
      const toPeak = ratio(r.p99Ms, peakP99(r.method));
      return [
        r.method,
        clientLabel(r.policy),
        formatMs(r.p50Ms),
        p99Cell(r),
        formatMs(r.p999Ms),
        allP99Cell(r),
        errorCell(r),
        Number.isFinite(toPeak) ? `${toPeak.toFixed(2)}×` : '–',
      ];
    }),
  };
}

/** One run's per-method table for the terminal; null for a one-method workload. */
export function methodRunTable(result: ScenarioResult): Table | null {
  const groups = groupsOf(aggregateMethods([result]));
  return groups.length === 0 ? null : methodTable(groups[0]);
}

/** The workload's cheapest method (lowest nominal median) in a group's runs. */
function cheapestMethod(results: readonly ScenarioResult[], rows: readonly MethodRow[]): string | undefined {
  const { scenario, layout, regime } = rows[0];
  const run = results.find((r) => r.scenario === scenario && r.layout === layout && r.methods && regimeKey(r.regime ?? regime) === regimeKey(regime));
  const methods = run?.methods ?? [];
  return methods.length === 0 ? undefined : methods.reduce((a, b) => (b.medianMs < a.medianMs ? b : a)).name;
}

/**
 * Issue 16's real-gRPC target in one group: the cheap method's p99 (OK
 * calls) under peak_ewma lower than under every other client-only policy.
 * Met when lower in mean than each; the detail gives each pair's ratio, the
 * intervals, whether they are disjoint and the report's winner rule on the
 * p99 (≥ 20 % and ≥ 2 ms lower), so a lead inside the noise reads as one.
 */
export function cheapMethodVerdict(results: readonly ScenarioResult[], rows: readonly MethodRow[]): Verdict {
  const { scenario, layout, regime } = rows[0];
  const cheap = cheapestMethod(results, rows);
  const target = `${groupName(scenario, layout, regime)}: the cheap method's p99 under peak_ewma lower than under every other client-only policy`;
  const peak = rows.find((r) => r.method === cheap && r.policy === 'peak_ewma');
  const others = CLIENT_ONLY_COMPETITORS.flatMap((p: PolicyId) => rows.filter((r) => r.method === cheap && r.policy === p));
  if (cheap === undefined || !peak || others.length === 0) {
    return { target, met: null, detail: 'not measured' };
  }
  const pairs = others.map((other) => {
    const disjoint = liesBelow(peak.p99CiMs, other.p99CiMs);
    const rule = outcomeOf({ p99Ms: peak.p99Ms }, { p99Ms: other.p99Ms }).outcome;
    return `${clientLabel(other.policy)} ${p99Cell(other)} (${ratio(other.p99Ms, peak.p99Ms).toFixed(2)}×; intervals ${disjoint ? 'disjoint' : 'overlap'}; winner rule: ${rule})`;
  });
  return {
    target,
    met: others.every((other) => peak.p99Ms < other.p99Ms),
    detail: `${cheap}, ${repeatsWord(peak.repeats)}: peak_ewma ${p99Cell(peak)}; ${pairs.join('; ')}`,
  };
}

/** Calls per method our balancers counted in a group's runs, by policy: proof the picker saw the methods. */
function pickerEvidence(results: readonly ScenarioResult[], rows: readonly MethodRow[]): string[] {
  const { scenario, layout, regime } = rows[0];
  const runs = results.filter((r) => r.scenario === scenario && r.layout === layout && regimeKey(r.regime ?? regime) === regimeKey(regime));
  const byPolicy = new Map<string, Map<string, number>>();
  for (const policy of runs.flatMap((r) => r.policies)) {
    for (const balancer of policy.evidence) {
      for (const { method, calls } of balancer.methods ?? []) {
        const counts = byPolicy.get(policy.policy) ?? new Map<string, number>();
        counts.set(method, (counts.get(method) ?? 0) + calls);
        byPolicy.set(policy.policy, counts);
      }
    }
  }
  return Array.from(byPolicy, ([policy, counts]) =>
    `${clientLabel(policy as PolicyId)}: ${Array.from(counts, ([method, calls]) => `${method} ${calls.toLocaleString('en-US')}`).join(', ')}`,
  );
}

/** Markdown for every multi-method group in `results`: table, picker evidence, target. Empty without any. */
export function methodSections(results: readonly ScenarioResult[], heading = '###'): string[] {
  const rows = aggregateMethods(results);
  if (rows.length === 0) {
    return [];
  }
  const lines = [
    `${heading} Per method group`,
    '',
    "Real ms, each method's calls over the whole measurement window, its failures counted at its own deadline in " +
      `"p99 all calls"; "${ALL_METHODS}" is every call of the same window. Mean over repeats [95 % bootstrap interval]; ` +
      `p99.9 only where every client had ${P999_MIN_SAMPLES.toLocaleString('en-US')} OK calls of the group. ` +
      "The last column is the policy's p99 as a multiple of peak_ewma's for the same method (above 1: peak_ewma lower).",
    '',
  ];
  for (const group of groupsOf(rows)) {
    const { scenario, layout, regime, title, repeats } = group[0];
    const verdict = cheapMethodVerdict(results, group);
    const evidence = pickerEvidence(results, group);
    lines.push(
      `**${scenario} ${title}** (${layout} layout; ${regimeLabel(regime)}; ${repeatsWord(repeats)})`,
      '',
      markdownTable(methodTable(group)),
      '',
      ...(evidence.length > 0 ? [`Calls per method as our balancers counted them (\`getLoadBalancerStats()\`, warm-up included): ${evidence.join('; ')}.`, ''] : []),
      `Target — ${verdict.target}: **${verdict.met === null ? 'not measured' : verdict.met ? 'met' : 'missed'}**. ${verdict.detail}.`,
      '',
    );
  }
  return lines;
}

export const METHODS_PAGE_PATH = path.join(REPO_ROOT, 'docs', 'benchmarks', 'methods.md');

/** The command that produces the methods page (package.json `bench:methods`). */
export const METHODS_COMMAND = 'npm run bench:methods';

/** docs/benchmarks/methods.md: the multi-method runs of `results`. */
export function renderMethodsPage(results: BenchResults): string {
  const m = results.machine;
  const o = results.options;
  return [
    '# Benchmarks: a service with several methods',
    '',
    '<!-- Generated by `npm run bench:methods` (scripts/bench/method-tables.ts). Do not edit by hand. -->',
    '',
    `Measured ${results.startedAt.slice(0, 10)} on ${m.cpus} × ${m.cpuModel}, ${m.platform}, Node ${m.node}, ` +
      `@grpc/grpc-js ${m.grpcJs}, package built from ${results.packageSource ?? `commit ${gitCommit(REPO_ROOT)}`}; ` +
      `load average at start ${m.loadAverage.join(' / ')} (a shared machine: compare side by side, not across pages).`,
    '',
    'Issue 16\'s real-gRPC target: with a cheap and a costly method on the uneven fleet, the cheap method\'s p99 under ' +
      'peak_ewma (default `methodScoring: "latency"`) lower than under round_robin, least_request and lr+od. Each method ' +
      'is its own gRPC method, `/loadtest.Probe/<name>`, on channels with the `callMarker` interceptor (as the README ' +
      'puts it on every channel), so the picker sees each call\'s method; the backends are the simulator\'s model ' +
      '(scripts/model), the service time named by the request. Layouts, regimes and intervals as in ' +
      '[benchmarks.md](../benchmarks.md).',
    '',
    `Regenerate (${planLoadRuns(o).length} runs, about ${Math.round(planWallTimeS(planLoadRuns(o), o) / 60)} min), or the page alone from the saved results:`,
    '',
    '```sh',
    METHODS_COMMAND,
    'npm run bench -- --report-from docs/benchmarks/methods.json --methods-report',
    '```',
    '',
    ...workloadText(results.load),
    ...methodSections(results.load, '##'),
  ].join('\n');
}

/**
 * The workloads' methods at their run's scale (the regime label's median is
 * the reference's 10 ms method's, which a mix does not have), and how busy
 * the machine was: load average and the worst event-loop delays.
 */
function workloadText(load: readonly ScenarioResult[]): string[] {
  const runs = load.filter((r) => r.methods);
  if (runs.length === 0) {
    return [];
  }
  const mixes = Array.from(
    new Set(
      runs.map((r) => {
        const f = r.regime?.timeFactor ?? 1;
        const methods = r.methods!.map((m) => `${m.name} ${formatMs(m.medianMs * f)} median, ${formatMs(m.deadlineMs)} deadline, weight ${m.weight}`);
        return `${r.scenario} at time × ${f}: ${methods.join('; ')}`;
      }),
    ),
  );
  const worst = (pick: (r: ScenarioResult) => number): string => formatMs(Math.max(...runs.map(pick)));
  const averages = runs.map((r) => `${r.loadAverage[0]}→${r.loadAverage[1]}`).join(', ');
  return [
    `Methods (service times and deadlines × the time factor): ${mixes.join('. ')}.`,
    '',
    `How busy the machine was: 1-minute load average before→after each run ${averages} (2 cores); worst event-loop ` +
      `delay p99 ${worst((r) => Math.max(...r.policies.map((p) => p.clientLoopDelayMs.p99)))} in the clients, ` +
      `${worst((r) => r.backendLoopDelayMs.p99)} in the backend hosts (max ${worst((r) => Math.max(...r.policies.map((p) => p.clientLoopDelayMs.max)))} / ` +
      `${worst((r) => r.backendLoopDelayMs.max)}): late answers every policy pays alike, side by side.`,
    '',
  ];
}

/** Writes the methods page; returns its path relative to the repo. */
export function writeMethodsPage(results: BenchResults): string {
  fs.writeFileSync(METHODS_PAGE_PATH, renderMethodsPage(results));
  return path.relative(REPO_ROOT, METHODS_PAGE_PATH);
}
