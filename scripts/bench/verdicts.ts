/**
 * Issue 6's targets, checked against measured numbers. A verdict is met,
 * missed, or not measured (null), always with the numbers that decided it.
 */
import type { AggregateRow } from './aggregate';
import type { CpuPerRpcResult } from './cpu-per-rpc';
import type { PickPathReport } from './pick-path';
import { clientLabel, isMarkedClient, isXdsClient, PolicyId, POLICY_LABELS } from './policies';
import { formatMs, formatPercent } from './progress';
import { isLowConcurrency, MACHINE_BUDGET_RPS, overMachineBudget, Regime, regimeKey, regimeShort } from './scale';
import { SavedRun, SideBySide, sideBySide } from './side-by-side';
import { liesBelow, median } from './stats';
import { errorCell, repeatsText } from './row-cells';

export interface Verdict {
  readonly target: string;
  /**
   * Met, missed, or neither: not measured, or measured and `unresolved`
   * (for load verdicts also a tie or a split, see LoadVerdict.outcome).
   */
  readonly met: boolean | null;
  /** Measured, but the interval holds the limit: the data say neither met nor missed. */
  readonly unresolved?: true;
  readonly detail: string;
}

/** Competitors that need no server help (peak_ewma+od is reported, not a competitor of itself). */
export const CLIENT_ONLY_COMPETITORS: readonly PolicyId[] = ['round_robin', 'least_request', 'lr_od'];

/**
 * The reference's winner rule (reference-load-test.md §5, report.py): A beats
 * B if its p99 is at least 20 % *and* at least 2 ms lower, or its error rate
 * at least 0.1 percentage points *and* 1.5× lower, or it recovers at least 5
 * s sooner. Anything else is a tie. Recovery compares only policies that both
 * moved away from the faulty backend: round_robin never does, so its
 * "recovery" of 1 s is no achievement (the reference compared peak with
 * least_request and lr_od only, which both do). On a shared 2-core machine two runs of
 * the same policy differ by more than 5 %, so a narrower band would report
 * noise.
 */
export const WINNER_RULE = { p99Ratio: 0.8, p99Ms: 2, errorPoints: 0.001, errorRatio: 1.5, recoveryS: 5 } as const;

/** What the rule reads of one policy in one scenario; absent numbers decide nothing. */
export interface Contender {
  readonly p99Ms: number;
  readonly errorRate?: number;
  /** Time to recover after the fault, s; null: not measured or never. */
  readonly recoverS?: number | null;
  /**
   * Time to detect the fault, s; null: never moved away (round_robin), so it
   * has nothing to recover from and recovery does not compare. Absent: no
   * detection measured (recovery compares as given).
   */
  readonly detectS?: number | null;
}

export type Criterion = 'p99' | 'errors' | 'recovery';

/** The criteria on which `a` beats `b` by the rule. */
export function winsOn(a: Contender, b: Contender): Criterion[] {
  const out: Criterion[] = [];
  if (a.p99Ms <= b.p99Ms * WINNER_RULE.p99Ratio && b.p99Ms - a.p99Ms >= WINNER_RULE.p99Ms) {
    out.push('p99');
  }
  if (
    a.errorRate !== undefined &&
    b.errorRate !== undefined &&
    b.errorRate - a.errorRate >= WINNER_RULE.errorPoints &&
    a.errorRate * WINNER_RULE.errorRatio <= b.errorRate
  ) {
    out.push('errors');
  }
  const bothDetected = a.detectS !== null && b.detectS !== null;
  if (bothDetected && a.recoverS != null && b.recoverS != null && b.recoverS - a.recoverS >= WINNER_RULE.recoveryS) {
    out.push('recovery');
  }
  return out;
}

/** A pair's outcome for its first side: a split is a win on one criterion and a loss on another. */
export type Outcome = 'win' | 'tie' | 'split' | 'loss';

/** Worst first: a scenario's outcome is its worst pair's. */
const OUTCOME_ORDER: readonly Outcome[] = ['loss', 'split', 'tie', 'win'];

export function outcomeOf(a: Contender, b: Contender): { outcome: Outcome; won: Criterion[]; lost: Criterion[] } {
  const won = winsOn(a, b);
  const lost = winsOn(b, a);
  const outcome = won.length > 0 ? (lost.length > 0 ? 'split' : 'win') : lost.length > 0 ? 'loss' : 'tie';
  return { outcome, won, lost };
}

/** Whether `valueMs` is lowest or tied by the rule's p99 criterion alone. */
export function isTieOrBetter(valueMs: number, bestOtherMs: number): boolean {
  return !winsOn({ p99Ms: bestOtherMs }, { p99Ms: valueMs }).includes('p99');
}

/** A load-test verdict: peak_ewma against each client-only competitor, by the winner rule. */
export interface LoadVerdict extends Verdict {
  /** How the report names the rows judged: "s03 uniform (2 slots × 20 ms)". */
  readonly name: string;
  readonly scenario: string;
  readonly layout: AggregateRow['layout'];
  /** `reference`: OK-call p99, errors and recovery (the reference's rule); `allCalls`: p99 over all calls alone. */
  readonly measure: 'reference' | 'allCalls';
  /** The worst of the pairs; null when not measured. */
  readonly outcome: Outcome | null;
  readonly pairs: readonly { readonly policy: PolicyId; readonly outcome: Outcome }[];
}

export function isLoadVerdict(verdict: Verdict): verdict is LoadVerdict {
  return 'outcome' in verdict;
}

function contender(row: AggregateRow, measure: LoadVerdict['measure']): Contender {
  return measure === 'reference'
    ? { p99Ms: row.p99Ms, errorRate: row.errorRate, recoverS: row.recoverS, detectS: row.detectS }
    : { p99Ms: row.allP99Ms };
}

function describe(row: AggregateRow, measure: LoadVerdict['measure']): string {
  const ci = measure === 'reference' ? row.p99CiMs : row.allP99CiMs;
  const interval = row.repeats > 1 && Number.isFinite(ci[0]) ? ` [${formatMs(ci[0])}, ${formatMs(ci[1])}]` : '';
  const p99 = `${formatMs(measure === 'reference' ? row.p99Ms : row.allP99Ms)}${interval}`;
  if (measure === 'allCalls') return p99;
  const recovery = row.recoverS === null ? '' : `, recovery ${row.recoverS.toFixed(0)} s`;
  return `${p99}, errors ${formatPercent(row.errorRate)}${recovery}`;
}

/** `name`: how the target names the rows' scenario and layout, e.g. "s03" or "s03 uniform". */
function judge(rows: readonly AggregateRow[], measure: LoadVerdict['measure'], scenario: string, layout: AggregateRow['layout'], name: string): LoadVerdict {
  const label = measure === 'reference' ? 'p99 (OK calls), errors, recovery' : 'p99 over all calls (failures at the deadline)';
  const target = `${name}: peak_ewma vs each client-only policy, ${label}`;
  const peak = rows.find((r) => r.policy === 'peak_ewma');
  const others = CLIENT_ONLY_COMPETITORS.flatMap((p) => rows.filter((r) => r.policy === p));
  if (!peak || others.length === 0) {
    return { target, met: null, detail: 'not measured', name, scenario, layout, measure, outcome: null, pairs: [] };
  }
  const pairs = others.map((other) => ({ policy: other.policy as PolicyId, other, ...outcomeOf(contender(peak, measure), contender(other, measure)) }));
  const outcome = OUTCOME_ORDER.find((o) => pairs.some((p) => p.outcome === o))!;
  const decided = (criteria: Criterion[]): string => (criteria.length > 0 ? ` on ${criteria.join(' and ')}` : '');
  const detail =
    `peak_ewma ${describe(peak, measure)}; ` +
    pairs
      .map((p) => `${p.outcome} vs ${POLICY_LABELS[p.policy]} ${describe(p.other, measure)}${decided(p.outcome === 'loss' ? p.lost : p.won)}${p.outcome === 'split' ? ` (lost${decided(p.lost)})` : ''}`)
      .join('; ');
  return {
    target,
    met: outcome === 'loss' ? false : outcome === 'win' ? true : null,
    detail,
    name,
    scenario,
    layout,
    measure,
    outcome,
    pairs: pairs.map((p) => ({ policy: p.policy, outcome: p.outcome })),
  };
}

/** The name of a group of rows in verdicts and headlines: scenario, layout, regime. */
export function groupName(scenario: string, layout: AggregateRow['layout'], regime: Regime): string {
  const overBudget = layout === 'uniform' && overMachineBudget(regime) ? ", over this machine's budget" : '';
  return `${scenario}${layout === 'reference' ? '' : ` ${layout}`} (${regimeShort(regime)}${overBudget})`;
}

export function loadVerdicts(rows: readonly AggregateRow[]): LoadVerdict[] {
  // Each scenario × layout × regime on its own rows: side by side on one fleet, or every client on one policy.
  const groups = new Map<string, AggregateRow[]>();
  for (const row of rows) {
    const key = `${row.layout}|${regimeKey(row.regime)}|${row.scenario}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return Array.from(groups.values()).flatMap((mine) => {
    const { scenario, layout, regime } = mine[0];
    const name = groupName(scenario, layout, regime);
    return [judge(mine, 'reference', scenario, layout, name), judge(mine, 'allCalls', scenario, layout, name)];
  });
}

/** Issue 15's bound on identical backends at 1–2 slots: peak_ewma's p99 over all calls ≤ 1.05× round_robin's. */
export const LOW_CONCURRENCY_IDENTICAL_LIMIT = 1.05;

/** Issue 15's scenarios where peak_ewma must have the lowest p99 over all calls of the client-only policies. */
export const LOW_CONCURRENCY_LOWEST_SCENARIOS = ['s01', 's03'] as const;

/**
 * Issue 15's real-gRPC targets in each regime with fewer slots than the
 * reference's 8 (uniform layout): on identical backends (s02) a policy turned
 * on for protection must not cost a healthy fleet more than 5 %; on the
 * uneven fleet (s01) and in the brownout (s03) peak_ewma's p99 over all
 * calls must be the lowest of the client-only policies (means over repeats,
 * strictly lower, or at a tie at the deadline fewer calls failed, apart on
 * their intervals: `rankOverAllCalls`; the winner rule's verdicts say by how
 * much).
 */
export function lowConcurrencyVerdicts(rows: readonly AggregateRow[], runs: readonly SavedRun[]): Verdict[] {
  const out: Verdict[] = [];
  const regimes = new Map<string, Regime>();
  for (const r of rows) if (r.layout === 'uniform' && isLowConcurrency(r.regime)) regimes.set(regimeKey(r.regime), r.regime);
  // Every regime's identical-fleet pairs at once: one pairing, one bootstrap per regime.
  const identical = regimes.size > 0 ? sideBySide(new Map([['report', runs]]), 'peak_ewma', 'round_robin', 's02') : [];
  for (const regime of regimes.values()) {
    out.push(identicalBackendsVerdict(rows, identical.find((g) => g.regime === regimeKey(regime)), regime));
    for (const scenario of LOW_CONCURRENCY_LOWEST_SCENARIOS) {
      const mine = uniformRowsOf(rows, scenario, regime);
      if (mine.length > 0) out.push(lowestVerdict(mine, scenario, regime));
    }
  }
  return out;
}

/** The uniform-layout rows of `scenario` in `regime`, one per policy. */
function uniformRowsOf(rows: readonly AggregateRow[], scenario: string, regime: Regime): AggregateRow[] {
  return rows.filter((r) => r.layout === 'uniform' && r.scenario === scenario && regimeKey(r.regime) === regimeKey(regime));
}

function lowestVerdict(mine: readonly AggregateRow[], scenario: string, regime: Regime): Verdict {
  const others = CLIENT_ONLY_COMPETITORS.flatMap((p) => mine.filter((r) => r.policy === p));
  const missing = CLIENT_ONLY_COMPETITORS.filter((p) => !others.some((r) => r.policy === p));
  const target = `${groupName(scenario, 'uniform', regime)}: peak_ewma p99 over all calls lowest of the client-only policies`;
  const peak = mine.find((r) => r.policy === 'peak_ewma');
  if (!peak || others.length === 0) return { target, met: null, detail: 'not measured' };
  const ranked = [peak, ...others].sort((a, b) => a.allP99Ms - b.allP99Ms);
  const ranks = others.map((r) => rankOverAllCalls(peak, r));
  const detail =
    ranked.map((r) => `${clientLabel(r.policy)} ${describe(r, 'allCalls')}`).join(' ≤ ') +
    ` (means of ${repeatsText([peak, ...others].map((r) => ({ label: clientLabel(r.policy), repeats: r.repeats })))}${missing.length > 0 ? `; not run: ${missing.map((p) => POLICY_LABELS[p]).join(', ')}` : ''})` +
    tieText(peak, others, ranks);
  if (ranks.every((r) => r === 'lower')) return { target, met: true, detail };
  if (ranks.includes('not lower')) return { target, met: false, detail };
  return { target, met: null, unresolved: true, detail: `not resolved: ${detail}` };
}

/** How peak_ewma ranks against one rival over all calls. */
type AllCallsRank = 'lower' | 'not lower' | 'not resolved';

/** Both failed 1 % or more of their calls, so both p99s over all calls are the deadline (a failure counts there). */
function tiedAtDeadline(peak: AggregateRow, other: AggregateRow): boolean {
  return other.allP99Ms === peak.allP99Ms && peak.errorRate >= 0.01 && other.errorRate >= 0.01;
}

/**
 * A lower p99 over all calls is lower. At a tie at the deadline p99 says
 * nothing, but the same distribution still ranks the two: the one with
 * fewer calls at the deadline is lower at every percentile above its own
 * share. So the tie goes to peak_ewma when it failed fewer calls and the
 * two error rates' intervals (over at least 2 repeats each) lie apart;
 * when they overlap the data say neither.
 */
function rankOverAllCalls(peak: AggregateRow, other: AggregateRow): AllCallsRank {
  if (peak.allP99Ms < other.allP99Ms) return 'lower';
  if (!tiedAtDeadline(peak, other) || peak.errorRate >= other.errorRate) return 'not lower';
  const apart = peak.repeats >= 2 && other.repeats >= 2 && liesBelow(peak.errorRateCi, other.errorRateCi);
  return apart ? 'lower' : 'not resolved';
}

/** The tie-break's numbers: each tied policy's share of failed calls, and how peak_ewma ranks (`ranks[i]` against `others[i]`). */
function tieText(peak: AggregateRow, others: readonly AggregateRow[], ranks: readonly AllCallsRank[]): string {
  const tied = others.map((row, i) => ({ row, rank: ranks[i] })).filter(({ row }) => tiedAtDeadline(peak, row));
  if (tied.length === 0) return '';
  const byErrors = [peak, ...tied.map((t) => t.row)].sort((a, b) => a.errorRate - b.errorRate);
  const overlapping = tied.filter((t) => t.rank === 'not resolved').map((t) => t.row);
  const verdict = tied.some((t) => t.rank === 'not lower')
    ? 'peak_ewma did not fail the fewest'
    : overlapping.length > 0
      ? `peak_ewma failed the fewest, but its interval overlaps ${overlapping.map((r) => `${clientLabel(r.policy)}'s`).join(' and ')}`
      : 'peak_ewma failed the fewest, its interval apart from each';
  return (
    `; tied at ${formatMs(peak.allP99Ms)}, where p99 cannot rank them (1 % or more of calls failed), ` +
    `so the share of calls at the deadline does: errors ${byErrors.map((r) => `${clientLabel(r.policy)} ${errorCell(r)}`).join(' ≤ ')}; ${verdict}`
  );
}

function identicalBackendsVerdict(rows: readonly AggregateRow[], paired: SideBySide | undefined, regime: Regime): Verdict {
  const mine = uniformRowsOf(rows, 's02', regime);
  const peak = mine.find((r) => r.policy === 'peak_ewma');
  const rr = mine.find((r) => r.policy === 'round_robin');
  const limit = LOW_CONCURRENCY_IDENTICAL_LIMIT;
  const target = `${groupName('s02', 'uniform', regime)}: peak_ewma p99 over all calls ≤ ${limit}× round_robin's`;
  if (!peak || !rr || !paired) {
    return { target, met: null, detail: 'not measured' };
  }
  if (overMachineBudget(regime)) {
    return {
      target,
      met: null,
      detail: `not judged: ${Math.round(regime.perClientRps * regime.clientsPerPolicy)} calls/s is over this machine's budget (~${MACHINE_BUDGET_RPS}), so the fleet was not healthy (${formatMs(peak.allP99Ms)} vs ${formatMs(rr.allP99Ms)}, ${paired.ratioOfMeans.toFixed(2)}×)`,
    };
  }
  // Judged on the interval, not the point: at one or two slots a run's p99 is
  // set by where the clients' fixed-period calls meet at the backends, which
  // the policies' random starts decide per run, so repeats of one policy
  // spread by ±15 % and a point ratio of a few repeats says little.
  const [low, high] = paired.ratioInterval;
  const numbers =
    `${formatMs(paired.policyMeanMs)} vs ${formatMs(paired.baselineMeanMs)}: ${paired.ratioOfMeans.toFixed(2)}× [${low.toFixed(2)}, ${high.toFixed(2)}] ` +
    `(ratio of the means over ${paired.pairs} paired repeats, 95 % bootstrap interval over the pairs; paired median ${paired.pairedMedian.toFixed(2)}×)`;
  if (high <= limit) return { target, met: true, detail: numbers };
  if (low > limit) return { target, met: false, detail: numbers };
  return { target, met: null, unresolved: true, detail: `not resolved, the interval holds ${limit}×: ${numbers}` };
}

export const CPU_LIMITS: Readonly<Record<number, number>> = { 10: 1.03, 50: 1.03, 500: 1.05 };

export function cpuVerdicts(results: readonly CpuPerRpcResult[] | null): Verdict[] {
  if (!results) {
    return [{ target: 'CPU per RPC vs round_robin', met: null, detail: 'not measured' }];
  }
  const verdicts: Verdict[] = results
    .filter((r) => r.policy !== 'round_robin' && !isXdsClient(r.policy))
    .map((r) => {
      const limit = CPU_LIMITS[r.backends] ?? 1.05;
      // The marker's own cost: the marked client against plain peak_ewma, same rounds.
      const unmarked = isMarkedClient(r.policy) ? results.find((u) => u.policy === 'peak_ewma' && u.backends === r.backends) : undefined;
      const markerCost = unmarked ? `; ${pairedRatio(r, unmarked).toFixed(3)}× peak_ewma without it` : '';
      return {
        target: `CPU per RPC, ${clientLabel(r.policy)} at ${r.backends} backends ≤ ${limit}× round_robin`,
        met: r.ratioToRoundRobin <= limit,
        detail: `${r.ratioToRoundRobin.toFixed(3)}× (${r.cpuMicrosPerCall.toFixed(1)} µs per call${markerCost})`,
      };
    });
  // The xDS path costs our policy nothing beyond what it costs xDS's own
  // default: grpc-js-xds's layers (cds, xds_cluster_impl, priority, ...) are
  // paid by any policy, and the converter runs per CDS update, not per call.
  for (const xds of results.filter((r) => r.policy === 'peak_ewma_xds')) {
    const baseline = results.find((r) => r.policy === 'round_robin_xds' && r.backends === xds.backends);
    if (!baseline) continue;
    const ratio = pairedRatio(xds, baseline);
    verdicts.push({
      target: `CPU per RPC via xDS, peak_ewma at ${xds.backends} backends ≤ ${CPU_LIMITS[xds.backends] ?? 1.05}× round_robin (both through the fake control plane)`,
      met: ratio <= (CPU_LIMITS[xds.backends] ?? 1.05),
      detail: `${ratio.toFixed(3)}× (${xds.cpuMicrosPerCall.toFixed(1)} vs ${baseline.cpuMicrosPerCall.toFixed(1)} µs per call)`,
    });
  }
  return verdicts;
}

/** Median of per-round ratios a/b when both ran in every round, else the ratio of medians. */
export function pairedRatio(a: CpuPerRpcResult, b: CpuPerRpcResult): number {
  return a.perRound.length === b.perRound.length && a.perRound.length > 0
    ? median(a.perRound.map((us, i) => us / b.perRound[i]))
    : a.cpuMicrosPerCall / b.cpuMicrosPerCall;
}

/** Flat: the p50 at the most endpoints within 1.2× of the p50 at the fewest. */
export const FLATNESS_LIMIT = 1.2;
export const PICK_RATIO_LIMIT = 1.2;

export function pickVerdicts(report: PickPathReport | null): Verdict[] {
  if (!report) {
    return [{ target: 'pick path vs round_robin', met: null, detail: 'not measured' }];
  }
  const verdicts: Verdict[] = [];
  const policies = Array.from(new Set(report.results.map((r) => r.policy))).filter((p) => p !== 'round_robin');
  const counts = Array.from(new Set(report.results.map((r) => r.endpoints))).sort((a, b) => a - b);
  for (const policy of policies) {
    for (const endpoints of counts) {
      const ours = report.results.find((r) => r.policy === policy && r.endpoints === endpoints);
      const rr = report.results.find((r) => r.policy === 'round_robin' && r.endpoints === endpoints);
      if (!ours || !rr) continue;
      // Means of timed batches: round_robin's single-call p50 sits at the timer's resolution.
      const ratio = ours.meanNs / Math.max(1, rr.meanNs);
      verdicts.push({
        target: `pick path, ${POLICY_LABELS[policy]} at ${endpoints} endpoints ≤ ${PICK_RATIO_LIMIT}× round_robin's picker`,
        met: ratio <= PICK_RATIO_LIMIT,
        detail:
          `mean ${ours.meanNs.toFixed(0)} vs ${rr.meanNs.toFixed(0)} ns (${ratio.toFixed(1)}×); ` +
          `p50 ${ours.p50Ns} vs ${rr.p50Ns} ns, p99 ${ours.p99Ns} vs ${rr.p99Ns} ns`,
      });
    }
    const first = report.results.find((r) => r.policy === policy && r.endpoints === counts[0]);
    const last = report.results.find((r) => r.policy === policy && r.endpoints === counts[counts.length - 1]);
    if (first && last) {
      const growth = last.meanNs / first.meanNs;
      const growth99 = last.p99Ns / first.p99Ns;
      verdicts.push({
        target: `pick path, ${POLICY_LABELS[policy]} flat from ${counts[0]} to ${counts[counts.length - 1]} endpoints`,
        met: growth <= FLATNESS_LIMIT && growth99 <= FLATNESS_LIMIT,
        detail:
          `mean ${first.meanNs.toFixed(0)} → ${last.meanNs.toFixed(0)} ns (${growth.toFixed(2)}×), ` +
          `p99 ${first.p99Ns} → ${last.p99Ns} ns (${growth99.toFixed(2)}×)`,
      });
    }
  }
  return verdicts;
}
