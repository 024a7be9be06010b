/**
 * Tables for the terminal and the report, docs/benchmarks.md with its SVG
 * charts (docs/benchmarks/*.svg), all from one BenchResults object (which
 * `--json` saves, so `--report-from` can regenerate the report without
 * re-running).
 */
import * as fs from 'fs';
import * as path from 'path';
import { DiscardedRun, STALL_RERUNS } from './stalls';
import { aggregate, AggregateRow, P999_MIN_SAMPLES_PER_CLIENT, regimeOfRun, rowsFor } from './aggregate';
import { barChart, lineChart, trailingMean } from './charts';
import { BenchOptions, parseArgs } from './args';
import type { CpuPerRpcResult } from './cpu-per-rpc';
import type { ScenarioResult } from './loadtest';
import type { MachineDescription } from './machine';
import { gitCommit } from './machine';
import { REPO_ROOT } from './package-under-test';
import type { PickPathReport } from './pick-path';
import type { UpdateTimeReport } from './update-time';
import { ClientKind, clientLabel, PolicyId, POLICY_IDS, POLICY_LABELS } from './policies';
import { formatMs, formatPercent } from './progress';
import { REFERENCE_OVERHEAD, REFERENCE_RECOVERY_S, REFERENCE_RESULTS, ReferencePolicy } from '../lib/reference-numbers';
import { behaviourOf, DEFAULT_BEHAVIOUR, FleetKind, fleetRoles, SINGLE_METHOD } from '../model';
import { planLoadRuns, planWallTimeS, RUN_OVERHEAD_S } from './plan';
import { isLowConcurrency, LOW_CONCURRENCY_SCALES, LOW_CONCURRENCY_TIME_FACTOR, MACHINE_BUDGET_RPS, offeredLoad, overMachineBudget, REFERENCE_SCALE, Regime, regimeKey, regimeLabel, regimeShort, slotsText } from './scale';
import { MergedSession, runKind } from './merge';
import { scenarioById } from './scenarios';
import { mean, median } from './stats';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { LOOP_DELAY_RESOLUTION_MS } from './loop-delay';
import { markdownTable, Table, withInterval } from './tables';
import {
  cpuVerdicts,
  groupName,
  isLoadVerdict,
  LoadVerdict,
  loadVerdicts,
  lowConcurrencyVerdicts,
  Outcome,
  pairedRatio,
  pickVerdicts,
  Verdict,
  WINNER_RULE,
} from './verdicts';
import { SimulatorSummary, simulatorOrderingVerdicts, simulatorTable } from './simulator';
import { methodSections } from './method-tables';

export interface BenchResults {
  readonly startedAt: string;
  /** Which src/ the benchmarks ran: "HEAD <commit>" or "work tree". */
  readonly packageSource?: string;
  readonly machine: MachineDescription;
  readonly options: BenchOptions;
  readonly load: (ScenarioResult & { repeat?: number })[];
  pick: PickPathReport | null;
  cpu: CpuPerRpcResult[] | null;
  update?: UpdateTimeReport | null;
  simulator?: SimulatorSummary | null;
  /** Later sessions whose load-test runs replaced this file's of the same kinds (merge.ts, --merge-load). */
  merged?: readonly MergedSession[];
  /** Load-test runs the stall rule discarded and ran again (`--max-stall`, stalls.ts). */
  discarded?: DiscardedRun[];
}

export const policyLabel = clientLabel;

function seconds(value: number | null): string {
  return value === null ? '–' : `${Math.round(value)} s`;
}

/** One run's per-policy table for the terminal. */
export function loadTable(result: ScenarioResult): Table {
  const fault = result.faultyBackends.length > 0;
  return {
    headers: [
      'policy',
      fault ? 'p50 (fault)' : 'p50',
      fault ? 'p99 (fault)' : 'p99',
      'p99.9',
      'p99 all calls',
      'errors',
      ...(fault ? ['detect', 'recover'] : []),
      'CPU µs/call',
      'loop delay p99',
    ],
    rows: result.policies.map((p) => [
      policyLabel(p.policy),
      formatMs(p.headline.okLatency.p50Ms),
      formatMs(p.headline.okLatency.p99Ms),
      formatMs(p.headline.okLatency.p999Ms),
      formatMs(p.headline.allLatency.p99Ms),
      formatPercent(p.headline.errorRate),
      ...(fault ? [seconds(p.detectS), seconds(p.recoverS)] : []),
      p.cpuMicrosPerCall.toFixed(0),
      formatMs(p.clientLoopDelayMs.p99),
    ]),
  };
}

export function pickTable(report: PickPathReport): Table {
  const counts = Array.from(new Set(report.results.map((r) => r.endpoints)));
  const policies = Array.from(new Set(report.results.map((r) => r.policy)));
  return {
    headers: ['endpoints', ...policies.flatMap((p) => [`${POLICY_LABELS[p]} mean ns`, 'p50', 'p99', 'exitIdle'])],
    rows: counts.map((n) => [
      String(n),
      ...policies.flatMap((p) => {
        const r = report.results.find((x) => x.policy === p && x.endpoints === n);
        return r
          ? [r.meanNs.toFixed(0), String(r.p50Ns), String(r.p99Ns), r.exitIdleNs === undefined ? '–' : r.exitIdleNs.toFixed(0)]
          : ['–', '–', '–', '–'];
      }),
    ]),
  };
}

export function updateTimeTable(report: UpdateTimeReport): Table {
  return {
    headers: ['endpoints', 'policy', 'median ms', '× round_robin'],
    rows: report.results.map((r) => [String(r.endpoints), POLICY_LABELS[r.policy], r.medianMs.toFixed(2), r.vsRoundRobin.toFixed(2)]),
  };
}

export function cpuTable(results: readonly CpuPerRpcResult[]): Table {
  const counts = Array.from(new Set(results.map((r) => r.backends)));
  const policies = Array.from(new Set(results.map((r) => r.policy)));
  const bothXds = policies.includes('peak_ewma_xds') && policies.includes('round_robin_xds');
  return {
    headers: [
      'backends',
      ...policies.map((p) => `${clientLabel(p)} µs/call`),
      ...policies.filter((p) => p !== 'round_robin').map((p) => `${clientLabel(p)} / rr`),
      ...(bothXds ? ['peak_ewma via xDS / round_robin via xDS'] : []),
      'calls/s (rr)',
    ],
    rows: counts.map((n) => {
      const of = (p: ClientKind) => results.find((r) => r.policy === p && r.backends === n);
      return [
        String(n),
        ...policies.map((p) => of(p)?.cpuMicrosPerCall.toFixed(1) ?? '–'),
        ...policies.filter((p) => p !== 'round_robin').map((p) => of(p)?.ratioToRoundRobin.toFixed(3) ?? '–'),
        ...(bothXds ? [xdsRatio(of('peak_ewma_xds'), of('round_robin_xds'))] : []),
        of('round_robin')?.callsPerSecond.toFixed(0) ?? '–',
      ];
    }),
  };
}

function xdsRatio(peakEwma: CpuPerRpcResult | undefined, roundRobin: CpuPerRpcResult | undefined): string {
  return peakEwma && roundRobin ? pairedRatio(peakEwma, roundRobin).toFixed(3) : '–';
}

// ---- the Markdown report ----

const HEADLINE_POLICIES: readonly ReferencePolicy[] = ['peak_ewma', 'least_request', 'lr_od', 'round_robin'];

const p99Cell = (r: AggregateRow): string => withInterval(r.p99Ms, r.p99CiMs, r.repeats, formatMs);
const allP99Cell = (r: AggregateRow): string => withInterval(r.allP99Ms, r.allP99CiMs, r.repeats, formatMs);
const errorCell = (r: AggregateRow): string => withInterval(r.errorRate, r.errorRateCi, r.repeats, (x) => formatPercent(x));
const shareCell = (r: AggregateRow): string => withInterval(r.faultyShare, r.faultyShareCi, r.repeats, (x) => formatPercent(x, 1));

/**
 * Whether a regime is the reference's in every dimensionless quantity: its 8
 * slots, with the timeline and the policies' time constants scaled with the
 * service time (scale.ts). Only then do ms ÷ the time factor compare with
 * the reference's (and the simulator's) numbers.
 */
export function likeReference(regime: Regime): boolean {
  return regime.slots === DEFAULT_BEHAVIOUR.slots && regime.timeScaled && regime.backends === REFERENCE_BACKENDS;
}

/** The reference's fleet size, which its scenario summaries ("20 identical pods") assume. */
const REFERENCE_BACKENDS = 20;

/** A row in the reference's units (ms ÷ the time factor); only for regimes `likeReference`. */
function inReferenceUnits(row: AggregateRow): AggregateRow {
  const f = row.regime.timeFactor;
  const scaled = (x: readonly [number, number]): [number, number] => [x[0] / f, x[1] / f];
  return {
    ...row,
    p50Ms: row.p50Ms / f,
    p99Ms: row.p99Ms / f,
    p99CiMs: scaled(row.p99CiMs),
    p999Ms: row.p999Ms / f,
    allP99Ms: row.allP99Ms / f,
    allP99CiMs: scaled(row.allP99CiMs),
  };
}

/** Real seconds per timeline second: the time factor (older runs scaled service times only: 1). */
function timelineSecondS(regime: Regime): number {
  return regime.timeScaled ? regime.timeFactor : 1;
}

/** The regimes present, the reference stand-in first, then by slots (most first). */
function regimesOf(rows: readonly AggregateRow[]): Regime[] {
  const byKey = new Map<string, Regime>();
  for (const row of rows) byKey.set(regimeKey(row.regime), row.regime);
  return Array.from(byKey.values()).sort(
    (a, b) => Number(likeReference(b)) - Number(likeReference(a)) || b.slots - a.slots || a.medianMs - b.medianMs,
  );
}

/**
 * A run's title with its own fault length and fleet (the scenario summaries
 * describe the reference's: "for 40 s", "20 identical pods", the 20-pod het
 * fleet's roles).
 */
export function runTitle(run: Pick<ScenarioResult, 'title' | 'timeline' | 'faultWindow' | 'backendCount'>): string {
  const { timeline, backendCount: n } = run;
  let title = run.faultWindow ? run.title.replace(/ for \d+ s$/, '') + ` for ${timeline.faultEndS - timeline.faultStartS} s` : run.title;
  if (n !== REFERENCE_BACKENDS) {
    const bad = fleetRoles('het', n).filter((r) => r !== 'normal');
    const counts = Array.from(new Set(bad), (role) => `${bad.filter((r) => r === role).length > 1 ? `${bad.filter((r) => r === role).length} ` : ''}${role}`);
    title = title.replace(/^20 identical pods/, `${n} identical pods`).replace(/^het fleet \([^)]*\)/, `het fleet of ${n} (${counts.join(', ')})`);
  }
  return title;
}

/**
 * Reference-layout scenarios × the headline policies in the reference's
 * units, each cell "ours / the reference's", then peak_ewma+od and wrr,
 * which the reference did not run.
 */
function versusReference(
  results: BenchResults,
  rows: readonly AggregateRow[],
  scenarios: readonly string[],
  regime: Regime,
  kind: 'p99' | 'errors',
): Table {
  return {
    headers: ['scenario', ...HEADLINE_POLICIES.map((p) => `${POLICY_LABELS[p]} ours / ref`), 'peak_ewma+od', 'wrr (ORCA)'],
    rows: scenarios.map((s) => {
      const mine = rowsFor(rows, s, 'reference', regime).map(inReferenceUnits);
      const published = REFERENCE_RESULTS[s];
      const own = (p: PolicyId): string => {
        const r = mine.find((x) => x.policy === p);
        return r ? (kind === 'p99' ? p99Cell(r) : errorCell(r)) : '–';
      };
      const theirs = (p: ReferencePolicy): string =>
        published ? (kind === 'p99' ? formatMs(published.p99Ms[p]) : formatPercent(published.errorRate[p])) : '–';
      return [`${s} ${mine[0] ? titleOf(results, mine[0]) : ''}`, ...HEADLINE_POLICIES.map((p) => `${own(p)} / ${theirs(p)}`), own('peak_ewma_od'), own('wrr_orca')];
    }),
  };
}

/** A row's title with its runs' own fault length. */
function titleOf(results: BenchResults, row: AggregateRow): string {
  const run = results.load.find((r) => r.scenario === row.scenario && r.layout === row.layout && regimeKey(regimeOfRun(r)) === regimeKey(row.regime));
  return run ? runTitle(run) : row.title;
}

function detailTable(rows: readonly AggregateRow[]): Table {
  const faulty = rows.some((r) => Number.isFinite(r.faultyShare));
  return {
    headers: [
      'policy',
      'p50',
      'p99 [95 % CI]',
      'p99.9',
      'p99 all calls [95 % CI]',
      'errors [95 % CI]',
      ...(faulty ? ['share to faulty [95 % CI]', 'detect', 'recover'] : []),
      'client CPU µs/call',
    ],
    rows: rows.map((r) => [
      policyLabel(r.policy),
      formatMs(r.p50Ms),
      p99Cell(r),
      formatMs(r.p999Ms),
      allP99Cell(r),
      errorCell(r),
      ...(faulty ? [`${shareCell(r)} (fair ${formatPercent(r.fairShare, 0)})`, seconds(r.detectS), seconds(r.recoverS)] : []),
      r.cpuMicrosPerCall.toFixed(0),
    ]),
  };
}

/** A run whose worst loop-delay p99 exceeds this share of its median service time measured the harness as much as the policies. */
export const NOISY_LOOP_SHARE = 0.1;

/** A run's event-loop delays, ms beyond the monitor's resolution, and its worst p99 as a share of its median. */
function loopDelays(run: ScenarioResult) {
  const regime = regimeOfRun(run);
  // Older runs recorded the monitor's whole interval, resolution included.
  const less = (ms: number): number => (regime.timeScaled ? ms : Math.max(0, ms - LOOP_DELAY_RESOLUTION_MS));
  const p99 = less(Math.max(...run.policies.map((p) => p.clientLoopDelayMs?.p99 ?? NaN)));
  const max = less(Math.max(...run.policies.map((p) => p.clientLoopDelayMs?.max ?? NaN)));
  const hosts = run.backendLoopDelayMs ? { p99: less(run.backendLoopDelayMs.p99), max: less(run.backendLoopDelayMs.max) } : undefined;
  const worstP99 = Math.max(p99, hosts ? hosts.p99 : 0);
  return { regime, p99, max, hosts, worstP99, share: worstP99 / regime.medianMs };
}

/** How many of a regime's runs measured the harness as much as the policies (NOISY_LOOP_SHARE), in a sentence. */
function noisyRunsText(runs: readonly ScenarioResult[]): string {
  if (runs.length === 0) return '';
  const delays = runs.map(loopDelays);
  const noisy = delays.filter((d) => d.share > NOISY_LOOP_SHARE).length;
  if (noisy === 0) return '';
  return (
    ` Event-loop delay p99 above ${formatPercent(NOISY_LOOP_SHARE, 0)} of the median in ${noisy} of ${runs.length} runs ` +
    `(median over runs ${formatMs(median(delays.map((d) => d.worstP99)))} against a ${delays[0].regime.medianMs} ms median; see "How noisy the harness was").`
  );
}

/** The runs the stall rule discarded (`--max-stall`), one line, or nothing if it was off or discarded none. */
export function discardedLines(results: BenchResults): string[] {
  const discarded = results.discarded ?? [];
  const bound = results.options.maxStallMs;
  if (bound === undefined) {
    return [];
  }
  const runs = discarded.map((run) => `${run.scenario} ${run.layout} ${run.policies.join('+')} ${run.slots} slots #${run.repeat + 1} (${formatMs(run.stallMs)})`);
  return [
    `Stall rule, declared before the run (\`--max-stall ${bound}\`): a run whose clients' or backend hosts' event loop stalled longer than ${formatMs(bound)} was run again, at most ${STALL_RERUNS} times; ` +
      (runs.length === 0 ? 'none was.' : `${runs.length} ${runs.length === 1 ? 'was' : 'were'}: ${runs.join(', ')}.`),
    '',
  ];
}

function noiseTable(results: BenchResults): Table {
  return {
    headers: ['run', 'regime', 'clients p99 / max', 'backend hosts p99 / max', 'worst p99 ÷ median', 'load average'],
    rows: results.load.map((run) => {
      const { regime, p99, max, hosts, share } = loopDelays(run);
      return [
        `${run.scenario} ${run.layout}${run.layout === 'uniform' ? ` ${policyLabel(run.policies[0].policy)}` : ''}` +
          (run.repeat === undefined ? '' : ` #${run.repeat + 1}`),
        regimeShort(regime),
        `${p99.toFixed(1)} / ${max.toFixed(0)}`,
        hosts ? `${hosts.p99.toFixed(1)} / ${hosts.max.toFixed(0)}` : '–',
        share > NOISY_LOOP_SHARE ? `**${formatPercent(share, 0)}**` : formatPercent(share, 0),
        run.loadAverage ? `${run.loadAverage[0]} / ${run.loadAverage[1]}` : '–',
      ];
    }),
  };
}

const OUTCOME_CELL: Readonly<Record<Outcome, string>> = { win: '**win**', tie: 'tie', split: '**split**', loss: '**loss**' };

function verdictTable(verdicts: readonly Verdict[]): Table {
  return {
    headers: ['target', 'result', 'numbers'],
    numeric: false,
    rows: verdicts.map((v) => [
      v.target,
      isLoadVerdict(v) && v.outcome !== null ? OUTCOME_CELL[v.outcome] : v.met === null ? 'not measured' : v.met ? '**met**' : '**missed**',
      v.detail,
    ]),
  };
}

interface Chart {
  readonly file: string;
  readonly svg: string;
  readonly caption: string;
}

/** Element-wise mean of equally long series (per-second shares over repeats). */
function meanSeries(series: readonly (readonly number[])[]): number[] {
  const length = Math.min(...series.map((s) => s.length));
  return Array.from({ length }, (_, t) => mean(series.map((s) => s[t])));
}

function charts(results: BenchResults, rows: readonly AggregateRow[]): Chart[] {
  const out: Chart[] = [];
  const main = regimesOf(rows.filter((r) => r.layout === 'reference'))[0];
  if (main) {
    const mine = rows.filter((r) => r.layout === 'reference' && regimeKey(r.regime) === regimeKey(main));
    const scenarios = Array.from(new Set(mine.map((r) => r.scenario)));
    const policies = POLICY_IDS.filter((p) => mine.some((r) => r.policy === p));
    const series = (field: 'p99Ms' | 'p999Ms' | 'allP99Ms') =>
      policies.map((p) => ({
        name: POLICY_LABELS[p],
        values: scenarios.map((s) => mine.find((r) => r.scenario === s && r.policy === p)?.[field] ?? null),
      }));
    const regime = regimeShort(main);
    const bar = (file: string, field: 'p99Ms' | 'p999Ms' | 'allP99Ms', title: string, caption: string): void => {
      out.push({
        file,
        caption: `${caption}, reference layout, ${regimeLabel(main)}; log scale`,
        svg: barChart({ title: `${title}, ${regime}`, yLabel: 'ms (log)', groups: scenarios, series: series(field), logScale: true }),
      });
    };
    bar('p99.svg', 'p99Ms', 'p99 latency (OK calls)', 'p99 of OK calls per scenario and policy (fault phase for fault scenarios), mean over repeats');
    // No chart of nothing: p99.9 is published only with enough samples per client.
    if (mine.some((r) => Number.isFinite(r.p999Ms))) bar('p999.svg', 'p999Ms', 'p99.9 latency (OK calls)', `p99.9 of OK calls where every client had ${P999_MIN_SAMPLES_PER_CLIENT.toLocaleString('en-US')} OK calls (else no bar)`);
    bar('p99-all-calls.svg', 'allP99Ms', 'p99 latency (all calls, failures at deadline)', 'p99 over all calls, failures counted at the deadline');
    for (const scenario of ['s03', 's10']) {
      const runs = results.load.filter(
        (r) => r.scenario === scenario && r.layout === 'reference' && regimeKey(regimeOfRun(r)) === regimeKey(main),
      );
      const run = runs[0];
      if (!run || run.faultyBackends.length === 0) continue;
      const fair = run.faultyBackends.length / run.backendCount;
      const plural = run.faultyBackends.length > 1 ? 's' : '';
      const title = runTitle(run);
      const second = timelineSecondS(main) === 1 ? 'real s' : `× ${timelineSecondS(main)} real s`;
      out.push({
        file: `${scenario}-share.svg`,
        caption:
          `${scenario} (${title}; ${regimeLabel(main)}): share of each policy's calls sent to the faulty backend${plural} per ` +
          `timeline second (${second}), mean of ${runs.length} repeat${runs.length > 1 ? 's' : ''}, 3-point trailing mean; fault window shaded, fair share dashed`,
        svg: lineChart({
          title: `${scenario} ${title}, ${regime}: share of calls to the faulty backend${plural}`,
          xLabel: `timeline seconds after warm-up (${second})`,
          yLabel: 'share of calls',
          series: run.policies.map((p) => ({
            name: policyLabel(p.policy),
            // Bucket t covers (t, t + 1]: plotted at its end, smoothed as the reference's detection is.
            points: trailingMean(
              meanSeries(runs.map((r) => r.policies.find((q) => q.policy === p.policy)?.faultyShare ?? [])),
              3,
            ).map((share, t) => [t + 1, Number.isFinite(share) ? share : 0] as const),
          })),
          bands: [{ fromX: run.timeline.faultStartS, toX: run.timeline.faultEndS, label: 'fault' }],
          referenceLines: [{ y: fair, label: 'fair share' }],
        }),
      });
    }
  }
  // The low-concurrency regimes (scale.ts): fewer slots, the reference's time.
  for (const regime of regimesOf(rows.filter((r) => r.layout === 'uniform')).filter(isLowConcurrency)) {
    const mine = rows.filter((r) => r.layout === 'uniform' && regimeKey(r.regime) === regimeKey(regime));
    // In scenario order, not the shuffled order the runs happened to come in.
    const scenarios = Array.from(new Set(mine.map((r) => r.scenario))).sort();
    const policies = POLICY_IDS.filter((p) => mine.some((r) => r.policy === p));
    const run = results.load.find((r) => r.layout === 'uniform' && regimeKey(regimeOfRun(r)) === regimeKey(regime))!;
    const scale = lowConcurrencyScale(regime, mine, run.timeline);
    out.push({
      file: `low-concurrency-${regime.slots}-slot.svg`,
      caption: `p99 over all calls (failures at the deadline), uniform layout, ${scale.join(', ')}; mean of ${mine[0].repeats} repeat${mine[0].repeats > 1 ? 's' : ''}; log scale`,
      svg: barChart({
        // The chart alone states its run's scale: it is its own regime, not the reference's.
        title: [`p99 all calls, uniform layout: ${scale[0]}`, ...scale.slice(1)].join('\n'),
        yLabel: 'ms (log)',
        groups: scenarios,
        series: policies.map((p) => ({
          name: POLICY_LABELS[p],
          values: scenarios.map((s) => mine.find((r) => r.scenario === s && r.policy === p)?.allP99Ms ?? null),
        })),
        logScale: true,
      }),
    });
  }
  return out;
}

/**
 * A low-concurrency regime's scale in words, for its chart: slots, median
 * and fleet; clients and their rate (which follows each scenario's fleet
 * capacity, so it is given per scenario where it differs); the window.
 */
export function lowConcurrencyScale(regime: Regime, rows: readonly AggregateRow[], timeline: ScenarioResult['timeline']): string[] {
  const rateText = perClientRates(rows);
  // Real seconds, as the run took them; the timeline's own seconds beside them when time is scaled.
  const f = timelineSecondS(regime);
  const window = `${timeline.measureS * f} s window after ${(timeline.warmupMs / 1000) * f} s warm-up, fault ${timeline.faultStartS * f}–${timeline.faultEndS * f} s`;
  return [
    `${slotsText(regime.slots)}, ${regime.medianMs} ms median${f === 1 ? '' : ` (time × ${f}: ms ÷ ${f} are the reference's units)`}, ${regime.backends} backends`,
    `${regime.clientsPerPolicy} clients of one policy at ${rateText} each`,
    f === 1 ? window : `${window} (timeline seconds × ${f}: ${timeline.measureS} s after ${timeline.warmupMs / 1000} s, fault ${timeline.faultStartS}–${timeline.faultEndS} s)`,
  ];
}

/**
 * The rate per client of a group of rows: "50 calls/s", or per scenario where
 * they differ, "50 (s02, s03) / 45 (s01) calls/s" (the rate follows each
 * scenario's fleet capacity: the het fleet's is lower), scenarios in order.
 */
export function perClientRates(rows: readonly AggregateRow[]): string {
  const rates = new Map<number, string[]>();
  for (const row of [...rows].sort((a, b) => a.scenario.localeCompare(b.scenario))) {
    const names = rates.get(row.regime.perClientRps) ?? [];
    if (!names.includes(row.scenario)) rates.set(row.regime.perClientRps, [...names, row.scenario]);
  }
  return rates.size === 1
    ? `${Array.from(rates.keys())[0]} calls/s`
    : `${Array.from(rates, ([rps, names]) => `${rps} (${names.join(', ')})`).join(' / ')} calls/s`;
}

/** Each regime of the results, described once. */
function regimeText(rows: readonly AggregateRow[], results: BenchResults): string[] {
  const first = results.load[0];
  if (!first) return ['No load test in this run.'];
  const { timeline } = first;
  const order = regimesOf(rows).map(regimeKey);
  // One line per regime and layout: the layouts differ in clients and their rate.
  const byLayout = new Map<string, AggregateRow[]>();
  for (const row of rows) {
    const key = `${order.indexOf(regimeKey(row.regime))}|${row.layout}`;
    byLayout.set(key, [...(byLayout.get(key) ?? []), row]);
  }
  const lines = Array.from(byLayout.keys()).sort().map((key) => {
    const mine = byLayout.get(key)!;
    const { regime, layout } = mine[mine.length - 1];
    const f = timelineSecondS(regime);
    const real = (s: number): string => `${s * f} s`;
    return (
      `- **${regimeShort(regime)}**, ${layout} layout: ${regimeLabel(regime, perClientRates(mine))}` +
      `; ${regimeUnitsText(regime, f)}; ` +
      `warm-up ${real(timeline.warmupMs / 1000)}, measurement ${real(timeline.measureS)}, fault ${real(timeline.faultStartS)}–${real(timeline.faultEndS)}` +
      (f === 1 ? '' : ` (timeline ${timeline.warmupMs / 1000} / ${timeline.measureS} / ${timeline.faultStartS}–${timeline.faultEndS} s × ${f})`) +
      '.' +
      overMachineBudgetText(layout, regime) +
      noisyRunsText(results.load.filter((run) => run.layout === layout && regimeKey(regimeOfRun(run)) === regimeKey(regime)))
    );
  });
  return lines;
}

/**
 * How a regime's numbers read: the reference stand-in's in the reference's
 * units once ÷ F; any other regime (fewer slots, another fleet) is its own,
 * and where its time is scaled (the low-concurrency regimes, time × 2) ÷ F
 * still turns its ms into the reference's 10 ms-median units.
 */
export function regimeUnitsText(regime: Regime, f: number): string {
  if (likeReference(regime)) return `the reference's regime, time × ${f}: ms ÷ ${f} are the reference's units`;
  const own = "its own regime, not the reference's: its numbers compare only with each other";
  return f === 1 ? own : `${own}; time × ${f}: ms ÷ ${f} are in the reference's units (10 ms median)`;
}

/** The warning a one-policy-per-run regime over the machine's budget gets (scale.ts, overMachineBudget). */
export function overMachineBudgetText(layout: string, regime: Regime): string {
  if (layout !== 'uniform' || !overMachineBudget(regime)) return '';
  const totalRps = regime.perClientRps * regime.clientsPerPolicy;
  return (
    ` **Over this machine's budget:** ${Math.round(totalRps)} calls/s in total against the ~${MACHINE_BUDGET_RPS} it serves ` +
    'without its own stalls reaching the median, so the host processes stall under the load itself and even identical ' +
    "backends are not a healthy fleet: read this regime's numbers as the machine's as much as the policies'."
  );
}

/** Result files from before issue 18's harness, re-judged: say what they were measured with. */
function legacyText(results: BenchResults): string[] {
  if (!results.load.some((run) => !regimeOfRun(run).timeScaled)) return [];
  return [
    "**These runs predate today's harness** (issue 18): one client per policy, one run per scenario and policy in a fixed " +
      'order, ORCA on only in the runs with a wrr client, the timeline and the policies\' time constants not scaled with the ' +
      'service time, phases binned by intended start, loop delays recorded with the monitor\'s 10 ms resolution in them (shown here less it), and a queued ' +
      'call could start before it arrived after an event-loop stall. The tables and verdicts are recomputed from the saved ' +
      'results by today\'s rules (the reference\'s winner rule, regimes kept apart); there are no intervals (one run each) and ' +
      `no p99.9 (samples per client were not recorded). \`npm run bench:report\` measures afresh: ${benchReportCost()}.`,
    '',
  ];
}

/** The options `npm run <script>` runs the bench with (its arguments read from package.json). */
function optionsOf(script: string): BenchOptions {
  const scripts = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const argv = scripts[script].split(/\s+/);
  return parseArgs(argv.slice(argv.indexOf('scripts/bench/cli.ts') + 1));
}

/** What a plan measures, in a phrase. */
function planSummary(options: BenchOptions): string {
  const parts: string[] = [];
  const all = (policies: readonly PolicyId[]): string => (policies.length === POLICY_IDS.length ? 'every policy' : policies.join(', '));
  if (options.layouts.includes('reference')) parts.push(`${options.scenarios.join(', ')} in the reference layout (every policy side by side)`);
  if (options.layouts.includes('uniform')) parts.push(`${options.uniformScenarios.join(', ')} in the uniform layout (${all(options.uniformPolicies)})`);
  if (options.lowConcurrency) parts.push(`${options.lowScenarios.join(', ')} at 1 and 2 slots (${all(options.uniformPolicies)})`);
  return `${parts.join('; ')}; ${options.durationS} s windows, ${options.repeats} repeats`;
}

/** The 1-minute load average at the start of a merged session's runs: what the machine was doing while they ran. */
function sessionLoadText(results: BenchResults, session: MergedSession): string {
  const loads = results.load.filter((run) => session.kinds.includes(runKind(run)) && run.loadAverage).map((run) => run.loadAverage![0]);
  if (loads.length === 0) return '';
  return ` (at its runs' starts: median ${median(loads).toFixed(1)}, range ${Math.min(...loads)}–${Math.max(...loads)})`;
}

/** Which runs a later session measured in place of this file's (merge.ts), with its date and load. */
function mergedText(results: BenchResults): string {
  const words: Record<MergedSession['kinds'][number], string> = {
    reference: 'reference-layout',
    uniform: 'uniform-layout',
    'low-concurrency': 'low-concurrency',
  };
  return (results.merged ?? [])
    .map(
      (s) =>
        ` The ${s.kinds.map((k) => words[k]).join(' and ')} runs (${s.runs}, ${s.repeats} repeats) are a later session's, measured ` +
        `${s.startedAt.slice(0, 16).replace('T', ' ')} UTC with the package built from ${s.packageSource ?? 'an unrecorded source'}, load average at start ` +
        `${s.loadAverage.join(' / ')}${sessionLoadText(results, s)}, merged in with \`--merge-load\` in place of this file's own.`,
    )
    .join('');
}

/** What `npm run <script>` costs in load-test wall time. */
function benchReportCost(script = 'bench:report'): string {
  const options = optionsOf(script);
  const plan = planLoadRuns(options);
  return `${plan.length} load-test runs, about ${(planWallTimeS(plan, options) / 3600).toFixed(1)} h on this machine`;
}

export const REPORT_PATH = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
export const CHART_DIR = path.join(REPO_ROOT, 'docs', 'benchmarks');

/** What regenerating the report costs on this machine, from the options it was run with (absent in older files). */
function costText(results: BenchResults): string {
  const options = results.options;
  if (options.clientsPerPolicy === undefined || results.load.length === 0) return '';
  // A merged file holds runs its own options did not plan: count the runs it holds.
  const runs = results.merged && results.merged.length > 0 ? results.load : planLoadRuns(options);
  const hours = planWallTimeS(runs, options) / 3600;
  const merged = results.merged ?? [];
  const sessions = merged.length > 0 ? `, in ${merged.length + 1} sessions` : '';
  const repeats = (n: number): string => `${n} repeat${n > 1 ? 's' : ''}`;
  // Each session ran its own repeat count: say each, not the first session's for all.
  const repeatText =
    merged.length > 0
      ? `${repeats(options.repeats)} of each of this file's own runs, ${merged.map((m) => repeats(m.repeats)).join(' and ')} of each merged one, interleaved in random order within a session`
      : `${repeats(options.repeats)} of each, interleaved in random order`;
  return (
    `This report's load test is ${runs.length} runs${sessions} (${repeatText}): about ${hours.toFixed(1)} h of wall time on this machine (each run's timeline × its time factor, plus ~${RUN_OVERHEAD_S} s to start and stop its processes), before the overhead benchmarks. ` +
    `\`npm run bench:report\` is sized to fit a working session on this 2-core machine: ${planSummary(optionsOf('bench:report'))}. ` +
    `The whole suite (\`npm run bench:report:full\`: seven scenarios, every policy in both layouts and at 1–2 slots, 45 s windows) is ${benchReportCost('bench:report:full')}: a quiet machine's job.`
  );
}

export function renderReport(results: BenchResults): { markdown: string; charts: Chart[] } {
  const rows = aggregate(results.load);
  const chartList = charts(results, rows);
  const loads = loadVerdicts(rows);
  const comparable = rows.filter((r) => r.layout === 'reference' && likeReference(r.regime)).map(inReferenceUnits);
  const simulatorVerdicts = results.simulator
    ? comparable.length > 0
      ? simulatorOrderingVerdicts(comparable, results.simulator)
      : [{ target: 'real ordering agrees with the simulator', met: null, detail: "not compared: no reference-layout run in the simulator's regime (8 slots, timeline and time constants scaled)" }]
    : [];
  const verdicts: Verdict[] = [...loads, ...lowConcurrencyVerdicts(rows), ...simulatorVerdicts, ...cpuVerdicts(results.cpu), ...pickVerdicts(results.pick)];
  const m = results.machine;
  const lines: string[] = [
    '# Benchmarks',
    '',
    '<!-- Generated by `npm run bench:report` (scripts/bench/report.ts). Do not edit by hand. -->',
    '',
    `Measured ${results.startedAt.slice(0, 10)} on ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, ` +
      `Node ${m.node}, @grpc/grpc-js ${m.grpcJs}, package built from ${results.packageSource ?? `commit ${gitCommit(REPO_ROOT)}`}. ` +
      `Load average at start: ${m.loadAverage.join(' / ')} (the machine is shared; absolute numbers move with it, ` +
      'side-by-side comparisons much less).' +
      mergedText(results),
    '',
    'Regenerate everything (load test, overhead benchmarks, this file and its charts):',
    '',
    '```sh',
    'npm run bench:report',
    '```',
    '',
    'A service with several methods, each its own gRPC method (issue 16: per-method groups, the cheap method\'s p99 per ' +
      'policy): [benchmarks/methods.md](benchmarks/methods.md), `npm run bench:methods`.',
    '',
    ...(costText(results) ? [costText(results), ''] : []),
    '## Regimes',
    '',
    'Every number below belongs to one regime (slots per backend, median service time, fleet size, clients and their ' +
      'rate); numbers of different regimes are never compared. Intervals are 95 % percentile-bootstrap intervals of the ' +
      'mean over repeats (2,000 resamples, seeded per cell).',
    '',
    ...regimeText(rows, results),
    '',
    ...legacyText(results),
    '## Targets',
    '',
    markdownTable(verdictTable(verdicts)),
    '',
    ...findings(results, rows, verdicts, loads),
  ];
  const referenceRegimes = regimesOf(rows.filter((r) => r.layout === 'reference'));
  for (const regime of referenceRegimes) {
    if (!likeReference(regime)) continue;
    const scenarios = Array.from(new Set(rowsFor(rows, undefined, 'reference', regime).map((r) => r.scenario)));
    const f = regime.timeFactor;
    lines.push(
      `## Load test beside the reference (${regimeLabel(regime)})`,
      '',
      `p99 of OK calls in the reference's units (ms ÷ ${f}, the time factor), latency from the intended start; the fault phase for fault scenarios, ` +
        'the whole window otherwise (the reference\'s "worst-case p99"), mean over repeats [95 % interval]. ' +
        '"ref" = the reference\'s published number (`cluster-2026-10-05-fixes`, 2 repeats, reference-load-test.md §6).',
      '',
      markdownTable(versusReference(results, rows, scenarios, regime, 'p99')),
      '',
      'Error rate (fault phase for fault scenarios):',
      '',
      markdownTable(versusReference(results, rows, scenarios, regime, 'errors')),
      '',
    );
  }
  for (const chart of chartList) {
    lines.push(`![${chart.caption}](benchmarks/${chart.file})`, '', `*${chart.caption}.*`, '');
  }
  const groups = new Map<string, AggregateRow[]>();
  for (const row of rows) {
    const key = `${regimeKey(row.regime)}|${row.layout}|${row.scenario}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  if (groups.size > 0) {
    lines.push('### Per scenario, layout and regime', '', `Real ms. p99.9 only where every client had ${P999_MIN_SAMPLES_PER_CLIENT.toLocaleString('en-US')} OK calls in the window.`, '');
  }
  const regimeOrder = regimesOf(rows).map(regimeKey);
  const rank = (row: AggregateRow): number => regimeOrder.indexOf(regimeKey(row.regime)) * 2 + (row.layout === 'reference' ? 0 : 1);
  for (const mine of Array.from(groups.values()).sort((a, b) => rank(a[0]) - rank(b[0]))) {
    const { scenario, layout, regime, repeats } = mine[0];
    lines.push(`**${scenario} ${titleOf(results, mine[0])}** (${layout} layout; ${regimeLabel(regime)}; ${repeats} repeat${repeats > 1 ? 's' : ''})`, '');
    lines.push(markdownTable(detailTable(mine)), '');
    const rec = REFERENCE_RECOVERY_S[scenario];
    if (rec && layout === 'reference' && likeReference(regime)) {
      lines.push(`Reference recovery: peak ${rec.peak_ewma} s, least_request ${rec.least_request} s (here: timeline seconds, the same unit).`, '');
    }
  }
  lines.push(...methodSections(results.load));
  if (results.simulator) {
    lines.push(
      '## Simulator beside the real runs',
      '',
      `The simulator (\`${results.simulator.source}\`) runs the same scenario definitions in virtual time in the ` +
        "reference's regime (8 slots, 10 ms), with src/ as it stood in the work tree when it ran. Only real runs of the same " +
        "regime are compared (8 slots, time-scaled; real ms ÷ the time factor); orderings, not milliseconds. Both take " +
        "latency by completion per phase and count every client in the all-calls p99, a client with no OK call included " +
        "(its failures at the deadline). One difference in bookkeeping remains: a policy's simulated percentile is the " +
        "mean of its clients' (the reference's report.py), the load test's is that of its clients' merged histograms; " +
        "the clients of one policy send at the same rate, so the two differ only where one client fares much worse than " +
        "its peers.",
      '',
      markdownTable(simulatorTable(comparable, results.simulator)),
      '',
    );
  }
  if (results.load.length > 0) {
    lines.push(
      '## How noisy the harness was',
      '',
      "Event-loop delay (p99 / max, ms beyond the monitor's 10 ms resolution) of the client processes and backend hosts " +
        "during measurement, and the machine's 1-minute load average before / after each run. A client that runs late " +
        'sends late, and the latency is counted from the intended start, so this delay lands in every policy\'s numbers alike; ' +
        `"worst p99 ÷ median" sets it against the run's median service time, in bold above ${formatPercent(NOISY_LOOP_SHARE, 0)}: ` +
        'such a run measured the machine as much as the policies.',
      '',
      markdownTable(noiseTable(results)),
      '',
      ...discardedLines(results),
    );
  }
  if (results.cpu) {
    lines.push(
      '## Client CPU per RPC',
      '',
      'Closed loop at saturation (32 calls in flight per client, backends answer at once), one client process per ' +
        'policy; each round runs every client for 2 s, one after another in a fresh random order, so clients never ' +
        'compete for the cores and each round gives paired ratios; ' +
        '`process.cpuUsage()` (user + system) per completed call, per process. ' +
        `Ratios are medians of per-round ratios to round_robin. Reference: ${REFERENCE_OVERHEAD.cpuRatioAt10}× at 10 ` +
        `backends, ${REFERENCE_OVERHEAD.cpuRatioAt500}× at 500.`,
      '',
      markdownTable(cpuTable(results.cpu)),
      '',
    );
  }
  if (results.pick) {
    lines.push(
      '## Pick path',
      '',
      'ns per call for `pick()` + `onCallStarted()` + `onCallEnded()`: the mean of timed batches of 2,000 calls, ' +
        'and p50/p99 of calls timed one by one with `performance.now()` ' +
        `(its own cost, ${results.pick.timerOverheadNs.toFixed(0)} ns per pair, subtracted; round_robin\'s p50 sits at the ` +
        'timer\'s resolution). "exitIdle": mean ns of the balancer\'s `exitIdle()`, which grpc-js calls on every call. ' +
        'Pickers are built by grpc-js ' +
        'itself (`ChildLoadBalancerHandler` + `parseLoadBalancingConfig`, i.e. the registry) over READY fake ' +
        'subchannels, and our package is the tsc-style build, not tsx (see scripts/bench/package-under-test.ts). ' +
        `Reference: pick p99 ${REFERENCE_OVERHEAD.pickP99At500Us} µs at 500 backends.`,
      '',
      markdownTable(pickTable(results.pick)),
      '',
    );
  }
  if (results.update) {
    lines.push(
      '## Address-update time',
      '',
      'ms for one `updateAddressList` over an unchanged list of READY endpoints (what every DNS re-resolution or ' +
        'EDS update costs the event loop), the synchronous call plus the work it queued, median of interleaved ' +
        'rounds; balancers built by grpc-js over READY fake subchannels (scripts/bench/update-time.ts). ' +
        'Target: ≤ 1.5× round_robin, linear growth.',
      '',
      markdownTable(updateTimeTable(results.update)),
      '',
    );
  }
    lines.push(methodNotes(results));
  return { markdown: lines.join('\n'), charts: chartList };
}

/** The reference's per-client rate for a fleet kind (its 20 pods, 8 clients, 70 %): 1,338 homo, 1,169 het. */
function referencePerClientRps(fleet: FleetKind): number {
  const behaviours = fleetRoles(fleet, 20).map(behaviourOf);
  return offeredLoad(behaviours, SINGLE_METHOD, 8, REFERENCE_SCALE).perClientRps;
}

const OUTCOME_WORDS: readonly [Outcome, string][] = [
  ['win', 'wins'],
  ['tie', 'ties'],
  ['split', 'splits (wins on one criterion, loses on another)'],
  ['loss', 'loses'],
];

/**
 * The load test's headline, one sentence per measure, built from the
 * verdicts alone: every scenario named under "wins" has a win in the
 * verdict table, and every loss there is named here.
 */
export function loadHeadline(loads: readonly LoadVerdict[]): string[] {
  const out: string[] = [];
  const rule =
    `p99 ≥ ${Math.round((1 - WINNER_RULE.p99Ratio) * 100)} % and ≥ ${WINNER_RULE.p99Ms} ms lower, or errors ≥ ${WINNER_RULE.errorPoints * 100} pp and ` +
    `${WINNER_RULE.errorRatio}× lower, or recovery ≥ ${WINNER_RULE.recoveryS} s sooner`;
  for (const [measure, what] of [
    ['reference', `by the reference's winner rule (${rule}), against each of round_robin, least_request and lr+od that ran in the same layout and regime; the worst pair decides`],
    ['allCalls', 'on p99 over all calls (failures at the deadline), by the same p99 rule'],
  ] as const) {
    const mine = loads.filter((v) => v.measure === measure && v.outcome !== null);
    if (mine.length === 0) continue;
    const parts = OUTCOME_WORDS.flatMap(([outcome, word]) => {
      const names = mine.filter((v) => v.outcome === outcome).map((v) => v.name);
      return names.length > 0 ? [`${word} in ${names.join(', ')}`] : [];
    });
    out.push(`- **Load test, ${what}**: peak_ewma ${parts.join('; ')}.`);
    for (const v of mine.filter((x) => x.outcome === 'loss' || x.outcome === 'split')) {
      out.push(`  - ${v.name}: ${v.detail}.`);
    }
  }
  return out;
}

/** Plain-language reading of the numbers; every figure in it comes from `results`. */
function findings(results: BenchResults, rows: readonly AggregateRow[], verdicts: readonly Verdict[], loads: readonly LoadVerdict[]): string[] {
  const out: string[] = [];
  const others = verdicts.filter((v) => !isLoadVerdict(v));
  const count = (outcome: Outcome): number => loads.filter((v) => v.measure === 'reference' && v.outcome === outcome).length;
  if (loads.length > 0) {
    out.push(
      `Load test, by the reference's rule: ${count('win')} wins, ${count('tie')} ties, ${count('split')} splits, ${count('loss')} losses. ` +
        `Other targets: ${others.filter((v) => v.met === true).length} met, ${others.filter((v) => v.met === false).length} missed, ` +
        `${others.filter((v) => v.met === null).length} not measured.`,
      '',
    );
  } else {
    out.push(`${others.filter((v) => v.met === true).length} targets met, ${others.filter((v) => v.met === false).length} missed, ${others.filter((v) => v.met === null).length} not measured.`, '');
  }
  out.push(...loadHeadline(loads));
  // Slowdowns (not crashes or black holes): where calls sent to the faulty backend wait in its queue.
  const SLOWDOWNS = ['s03', 's06', 's10'];
  for (const peak of rows.filter((r) => r.layout === 'reference' && r.policy === 'peak_ewma' && SLOWDOWNS.includes(r.scenario))) {
    const run = results.load.find((r) => r.scenario === peak.scenario && r.layout === 'reference' && regimeKey(regimeOfRun(r)) === regimeKey(peak.regime));
    if (!run || !(peak.faultyShare > peak.fairShare / 3)) continue;
    const fleet = scenarioById(peak.scenario).fleet;
    const f = peak.regime.timeFactor;
    out.push(
      `- **${groupName(peak.scenario, 'reference', peak.regime)}**: peak_ewma still sent ${shareCell(peak)} of its fault-phase calls to the ` +
        `faulty backend${run.faultyBackends.length > 1 ? 's' : ''} (fair: ${formatPercent(peak.fairShare, 0)}), ` +
        `detection in ${peak.detectS === null ? '–' : peak.detectS.toFixed(0)} timeline s; those calls, queued behind round_robin's traffic at that ` +
        `backend, set its p99. Each client sends ${run.load.perClientRps} calls/s${f === 1 ? '' : ` (${run.load.perClientRps * f} per timeline second)`} ` +
        `(the reference: ${referencePerClientRps(fleet).toLocaleString('en-US')}) over a ${run.timeline.faultEndS - run.timeline.faultStartS} timeline-s fault ` +
        '(the reference: 40 s); the uniform layout, without round_robin\'s queue, shows the policy alone.',
    );
  }
  const crash = rows.find((r) => r.scenario === 's04' && r.layout === 'reference' && r.policy === 'peak_ewma' && likeReference(r.regime));
  const crashRun = crash && results.load.find((r) => r.scenario === 's04' && r.layout === 'reference' && regimeKey(regimeOfRun(r)) === regimeKey(crash.regime));
  if (crash && crashRun) {
    const { probeFairShares: fairShares, maxEjectionMs, decayMs } = PEAK_EWMA_DEFAULTS;
    const backends = crashRun.backendCount;
    // Per timeline second: the time constants scale with the run, so these are the reference's units.
    const rate = crashRun.load.perClientRps * crash.regime.timeFactor;
    out.push(
      `- **s04** (crash loop): peak_ewma's error rate is ${errorCell(crash)} (the reference's: ` +
        `${formatPercent(REFERENCE_RESULTS.s04?.errorRate.peak_ewma ?? NaN)}); it kept sending ${shareCell(crash)} of its ` +
        `fault-phase calls to the pod that fails them at once (fair: ${formatPercent(crash.fairShare, 0)}). Mostly probes: an avoided endpoint is ` +
        `admitted again when its estimate is stale — \`maxEjectionTime\` (${maxEjectionMs / 1000} s) without a sample *and* ${fairShares} fair shares of ` +
        `the client's own calls since (${fairShares} × ${backends} = ${fairShares * backends} calls: ${((fairShares * backends) / rate).toFixed(1)} s at ${rate} calls per timeline second) — or when its ` +
        `estimate has decayed (τ = ${decayMs / 1000} s, both × the time factor here) back near the fleet average, whichever comes first. ` +
        `The reference's clients send ${referencePerClientRps('homo').toLocaleString('en-US')} calls/s, so each probe is a smaller share of their calls.`,
    );
  }
  const rr = results.cpu?.find((r) => r.policy === 'round_robin' && r.backends === 10);
  const pick10 = results.pick?.results.find((r) => r.policy === 'peak_ewma' && r.endpoints === 10);
  const rrPick10 = results.pick?.results.find((r) => r.policy === 'round_robin' && r.endpoints === 10);
  if (pick10 && rrPick10) {
    const share = rr ? ` (${((pick10.meanNs / 1000 / rr.cpuMicrosPerCall) * 100).toFixed(2)} % of the ${rr.cpuMicrosPerCall.toFixed(0)} µs of client CPU a call costs)` : '';
    out.push(
      `- **Pick path**: round_robin's picker does no per-call work: it advances an index and returns its child's ` +
        `pick, with no callbacks (${rrPick10.meanNs.toFixed(0)} ns per call on average at 10 endpoints). A load-aware ` +
        'picker must choose among candidates and account each call\'s start and end (clock reads, the cost model, ' +
        'a result object and two callbacks), so a ratio to round_robin\'s picker of 1.2 is out of reach for any of ' +
        `them. peak_ewma must read the clock three times per call (pick, start, end), and one \`performance.now()\` ` +
        `costs about ${(results.pick!.timerOverheadNs / 2).toFixed(0)} ns on this machine (half the timed pair); ` +
        'least_request reads it never. The absolute cost is what counts: ' +
        `peak_ewma's pick path is ${pick10.meanNs.toFixed(0)} ns per call on ` +
        `average at 10 endpoints${share}. Growth from 10 to 1000 endpoints is memory, not work: each pick touches two ` +
        'random endpoints\' state, which stops fitting in cache.',
    );
  }
  if (results.cpu) {
    const ours = results.cpu.filter((r) => r.policy === 'peak_ewma' || r.policy === 'least_request');
    out.push(
      `- **CPU per RPC**: ${ours.map((r) => `${clientLabel(r.policy)} ${r.ratioToRoundRobin.toFixed(3)}× at ${r.backends}`).join(', ')} ` +
        '(medians of per-round ratios; on this shared machine a round-to-round spread of several % is normal, see ' +
        'the per-round values in the JSON).',
    );
    const xdsRows = results.cpu.filter((r) => r.policy === 'peak_ewma_xds');
    const xdsParts = xdsRows.flatMap((pe) => {
      const rr = results.cpu!.find((r) => r.policy === 'round_robin_xds' && r.backends === pe.backends);
      return rr
        ? [`${pe.backends}: round_robin via xDS ${rr.ratioToRoundRobin.toFixed(3)}× round_robin, peak_ewma via xDS ${pairedRatio(pe, rr).toFixed(3)}× round_robin via xDS`]
        : [];
    });
    if (xdsParts.length > 0) {
      out.push(
        '- **xDS**: grpc-js-xds\'s layers (cds, xds_cluster_impl with its per-call counters, priority, and for ' +
          'round_robin wrr_locality and weighted_target) cost every policy; what this package adds is the ratio of ' +
          `peak_ewma via xDS to round_robin via xDS, each with its own fake control plane (${xdsParts.join('; ')}). ` +
          'The converter runs once per CDS update, never per call.',
      );
    }
  }
  out.push(
    '- **Found on the way** (not in this package): grpc-js 1.14.7 reloads the ORCA .proto on every per-call load ' +
      'report (`loadOrcaProto()` never caches), 60–260 ms of CPU per call on both sides, so weighted_round_robin runs ' +
      'here on out-of-band reports; grpc-js\'s outlier_detection accepts durations only as `{seconds, nanos}` ' +
      'objects, not the proto3 JSON strings ("10s") of gRFC A50\'s examples; grpc-js calls the balancer\'s ' +
      '`exitIdle()` on every call (ours was O(endpoints), ~21 µs per call at 500 endpoints, fixed in 9d7aa58); and ' +
      'tsx (esbuild `keepNames`) adds ~2 µs per call to code with per-call closures, so the benchmarks load a ' +
      'tsc-style build of the package.',
    '',
  );
  return out;
}

/**
 * Client CPU per call in the open-loop runs (not saturated), µs: the median
 * over policies and runs; NaN without any. At a few dozen calls/s the
 * process's fixed costs per second (timers, HTTP/2 pings, ORCA streams) are
 * spread over few calls, so this is well above the saturated figure.
 */
function openLoopCpuMicros(results: BenchResults): number {
  return median(results.load.flatMap((run) => run.policies.map((p) => p.cpuMicrosPerCall)).filter(Number.isFinite));
}

/** What a call costs the client: the closed-loop figure (round_robin, 10 backends) and the open-loop runs' median. */
function cpuText(results: BenchResults): string {
  const saturated = results.cpu?.find((r) => r.policy === 'round_robin' && r.backends === 10)?.cpuMicrosPerCall;
  const open = openLoopCpuMicros(results);
  const parts = [
    ...(saturated !== undefined ? [`${Math.round(saturated)} µs of client CPU at saturation (closed loop, round_robin, 10 backends)`] : []),
    ...(Number.isFinite(open) ? [`${Math.round(open)} µs per call in these open-loop runs (median over policies and runs; fixed per-second costs spread over few calls)`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'client CPU measured per run';
}

function methodNotes(results: BenchResults): string {
  const { decayMs, maxEjectionMs } = PEAK_EWMA_DEFAULTS;
  const lowTimeFactor = LOW_CONCURRENCY_TIME_FACTOR;
  const options = results.options;
  return [
    '## How it runs',
    '',
    '- **Backends**: real grpc-js servers on 127.0.0.1 in 4 backend-host processes. Each answers from the ' +
      'shared queueing model (scripts/model: slots + FIFO, lognormal service times capped at 50× median, errors ' +
      'before queueing, black hole, GC completion gate, deadline skipping), so a GC pause holds one backend\'s ' +
      'completions only. The model runs under real timers with a logical clock (scripts/bench/logical-scheduler.ts): ' +
      'a late timer delays the answer but does not cost the backend capacity, and a queued call never starts before it ' +
      'arrived. Timers have ~1 ms granularity (the reference used a scheduled executor). Every run serves ORCA ' +
      'out-of-band reports, whichever policies it runs. Behaviour changes at run time over IPC.',
    '- **Scenarios**: the simulator\'s definitions (scripts/sim/scenarios.ts) run against the real fleet through a ' +
      'remote `ScenarioControl` (scripts/bench/remote-control.ts): faults, heals, pods joining and leaving (a resolver ' +
      'fed by the parent; a retired pod gets GOAWAY 1 s after it leaves the list, with 5 s grace, both × the time factor), ' +
      'client restarts, max connection age. Time to detect and recover use the simulator\'s function.',
    '- **Methods**: a one-method workload is sent on `/loadtest.Probe/Call`, on channels without interceptors. A workload ' +
      'of several (s13, m2) sends each method on a path of its own, `/loadtest.Probe/<name>`, on channels with the ' +
      '`callMarker` interceptor as the README puts it on a user\'s channel, so the picker sees each call\'s method ' +
      '(per-method scoring); each client keeps a histogram pair per method group, failures at the method\'s own deadline ' +
      '(scripts/bench/method-paths.ts, method-tables.ts).',
    `- **Clients**: the reference layout runs ${options.clientsPerPolicy ?? 1} client process${(options.clientsPerPolicy ?? 1) > 1 ? 'es' : ''} per policy ` +
      '(the reference: 2), all at once against the same fleet; the uniform layout runs ' +
      `${options.uniformClients ?? 'a fixed number of'} clients of one policy per run, whatever the policy list. Open loop at a fixed period, latency from the intended start, OK-call p99 and ` +
      'all-call p99 (failures at the deadline) from HDR histograms merged exactly over the clients (the reference averaged its 2 clients\' p99s). ' +
      'Latency is binned into phases by completion, as the reference\'s 1 s interval histograms and the simulator; the per-second ' +
      'shares (who got the calls) by intended start. Repeats run in blocks, each block in a random order (scripts/bench/plan.ts).',
    '- **Policies**: round_robin (grpc-js), least_request_experimental (choiceCount 2), lr+od = least_request in ' +
      'outlier_detection with the reference\'s settings, peak_ewma_experimental (defaults), peak_ewma+od, and ' +
      'weighted_round_robin with ORCA as the server-assisted bar (out-of-band reports, 1 s period × the time factor: per-call ' +
      'reports cost 60–260 ms of CPU per call in grpc-js 1.14.7, whose `loadOrcaProto()` never caches). Every run checks ' +
      'that our policies accounted the calls (grpc-js silently falls back to pick_first on a bad config). ' +
      'peak_ewma via xDS gets Envoy\'s PeakEwma cluster from the fake control plane (scripts/xds), with Envoy\'s and our ' +
      'defaults unscaled: it shows the xDS path works, not a regime.',
    `- **Scale**: the reference offered 10,707 calls/s from 8 JVM clients on 18 cores. Here a unary call costs ` +
      cpuText(results) +
      ' plus the backend host\'s share, and the 2 cores are shared with other work. Where the load test stands in for the ' +
      "reference it keeps the reference's 8 slots and multiplies every time by the time factor F: service times, the deadline " +
      '(500 ms × F, 50 nominal medians), GC pauses and periods, the timeline (warm-up, measurement, fault window, the per-second ' +
      `buckets) and the policies' time constants (peak_ewma's decayTime ${decayMs / 1000} s × F, maxEjectionTime ${maxEjectionMs / 1000} s × F and defaultRtt; ` +
      "outlier_detection's interval and ejection times; WRR's periods), so the offered rate is 1/F of the reference's and " +
      `every dimensionless quantity is kept (scripts/bench/scale.ts). The low-concurrency regimes run at time × ${lowTimeFactor} ` +
      `(${10 * lowTimeFactor} ms median, the same scaling: ms ÷ ${lowTimeFactor} are the reference's units), each as its own regime, on ${LOW_CONCURRENCY_SCALES.map((s) => `${s.backends} backends × ${slotsText(s.slots)}`).join(' and ')}: ` +
      "the same slots in total, so the same 70 % of capacity is the same rate from the same clients and the regimes differ only in how the slots are split; " +
      "a fleet of 6 at 2 slots offered 800 calls/s, over this machine's budget, and the reference's 10 ms itself (400 calls/s) was more than this machine served " +
      "even alone (event-loop delay p99 median 39 ms, round_robin with 16–33 % errors on identical backends), hence time × 2 (200 calls/s). " +
      "Measured alone: `npm run bench:low`, merged into the saved results with `npm run bench:low:merge`.",
    '',
  ].join('\n');
}

/** Writes docs/benchmarks.md and the charts; returns the paths written. */
export function writeReport(results: BenchResults): string[] {
  const { markdown, charts: chartList } = renderReport(results);
  fs.mkdirSync(CHART_DIR, { recursive: true });
  const written = [REPORT_PATH];
  fs.writeFileSync(REPORT_PATH, markdown);
  for (const chart of chartList) {
    const file = path.join(CHART_DIR, chart.file);
    fs.writeFileSync(file, chart.svg);
    written.push(file);
  }
  return written.map((p) => path.relative(REPO_ROOT, p));
}
