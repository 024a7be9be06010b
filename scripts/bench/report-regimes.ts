/**
 * Which regime a number belongs to, said in the report's words: the reference's stand-in
 * in the reference's units, every other regime as its own, each run's own title and scale.
 */
import { AggregateRow, regimeOfRun, rowsFor } from './aggregate';
import type { ScenarioResult } from './loadtest';
import { PolicyId, POLICY_LABELS } from './policies';
import { formatMs, formatPercent } from './progress';
import { REFERENCE_RESULTS, ReferencePolicy } from '../lib/reference-numbers';
import { DEFAULT_BEHAVIOUR, fleetRoles } from '../model';
import { MACHINE_BUDGET_RPS, overMachineBudget, Regime, regimeKey, regimeLabel, regimeShort, slotsText } from './scale';
import { Table } from './tables';
import type { BenchResults } from './report';
import { noisyRunsText } from './report-noise';
import { errorCell, p99Cell } from './row-cells';

const HEADLINE_POLICIES: readonly ReferencePolicy[] = ['peak_ewma', 'least_request', 'lr_od', 'round_robin'];

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
export function inReferenceUnits(row: AggregateRow): AggregateRow {
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
export function timelineSecondS(regime: Regime): number {
  return regime.timeScaled ? regime.timeFactor : 1;
}

/** The regimes present, the reference stand-in first, then by slots (most first). */
export function regimesOf(rows: readonly AggregateRow[]): Regime[] {
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
  // The summaries say the reference's "for 40 s", at the end or before a clause ("…for 40 s; s13's five methods").
  const faultS = timeline.faultEndS - timeline.faultStartS;
  let title = !run.faultWindow ? run.title : / for \d+ s\b/.test(run.title) ? run.title.replace(/ for \d+ s\b/, ` for ${faultS} s`) : `${run.title} for ${faultS} s`;
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
export function versusReference(
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
export function titleOf(results: BenchResults, row: AggregateRow): string {
  const run = results.load.find((r) => r.scenario === row.scenario && r.layout === row.layout && regimeKey(regimeOfRun(r)) === regimeKey(row.regime));
  return run ? runTitle(run) : row.title;
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

/** Calls/s per client of several runs: "55", or "51–55" where they differ. */
export function rateRange(rates: readonly number[]): string {
  const [low, high] = [Math.min(...rates), Math.max(...rates)];
  return low === high ? String(low) : `${low}–${high}`;
}

/**
 * The rate per client of a group of rows: "50 calls/s", or per scenario where
 * they differ, "50 (s02, s03) / 45 (s01) calls/s" (the rate follows each
 * scenario's fleet capacity: the het fleet's is lower), scenarios in order.
 * A scenario whose runs went at different rates (a repeat with one more
 * client, an xDS one, sharing the same fleet load) reads as its range, "51–55".
 */
export function perClientRates(rows: readonly AggregateRow[]): string {
  const byScenario = new Map<string, number[]>();
  for (const row of [...rows].sort((a, b) => a.scenario.localeCompare(b.scenario))) {
    byScenario.set(row.scenario, [...(byScenario.get(row.scenario) ?? []), ...row.perClientRpsByRepeat]);
  }
  const rates = new Map<string, string[]>();
  for (const [scenario, scenarioRates] of byScenario) {
    const rate = rateRange(scenarioRates);
    rates.set(rate, [...(rates.get(rate) ?? []), scenario]);
  }
  return rates.size === 1
    ? `${Array.from(rates.keys())[0]} calls/s`
    : `${Array.from(rates, ([rps, names]) => `${rps} (${names.join(', ')})`).join(' / ')} calls/s`;
}

/** Each regime of the results, described once. */
export function regimeText(rows: readonly AggregateRow[], results: BenchResults): string[] {
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
