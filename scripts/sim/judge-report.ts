/**
 * What `judge.ts` keeps of each run and how it prints a before/after
 * comparison: the regime grid's cells (issue 15) and the many-method
 * scenarios' per-method tails (issue 16), each over several seeds, as the
 * markdown tables docs/tuning-log.md records for every engine change.
 *
 * Pure: no simulation here, so the tables and target counts are tested on
 * small hand-made inputs (test/sim/judge-report.test.ts).
 */
import { mean, meanOfRead } from '../bench/stats';
import { PolicyResult } from './results';
import { ResultAt, SCORE_HEADER, ScoredLayout, scoreLine, scored, ScoredResult } from './reference-targets';
import { leads, regimeCell, regimeChecks, RegimeP99s, SMALL_FLEET_CLIENTS, SMALL_FLEETS } from './regimes';

/** What a judgement keeps of one policy's result: what the reference score reads, and the per-method tails. */
export interface JudgedResult extends ScoredResult {
  /** p99 over all calls with every client's calls in one histogram (absent in judgements written before it existed). */
  p99AllPooled?: number;
  /** OK calls per second per client over the window (absent in judgements written before it was kept). */
  goodputRps?: number;
  /** Per method group, with several methods. */
  methods?: Record<string, { p99All: number; errorRate: number }>;
}

/** What `meanRegimes` reads of one result: a judgement's, or a simulator grid's (`RegimeJson`). */
export type RegimeTail = Partial<Pick<JudgedResult, 'p99All' | 'p99AllPooled' | 'goodputRps' | 'errorRate' | 'p99'>>;
/** cell → scenario → policy → tails. */
export type RegimeTails = Record<string, Record<string, Record<string, RegimeTail>>>;

/** cell → scenario → policy → result, as `RegimeJson` with only what is judged. */
export type JudgedRegimes = Record<string, Record<string, Record<string, JudgedResult>>>;

export type JudgedLayout = 'uniform' | 'reference';

/** One seed's results. */
export interface JudgedSeed {
  seed: number;
  regimes: JudgedRegimes;
  /** The small fleets (regimes.ts SMALL_FLEETS), keyed like "3b-2x8"; absent in judgements written before them. */
  smallFleets?: JudgedRegimes;
  /** layout → scenario → policy → result, for the many-method scenarios. */
  methods: Record<JudgedLayout, Record<string, Record<string, JudgedResult>>>;
}

/** One seed of the reference regime's runs: layout → scenario → policy → result (reference-targets.ts). */
export interface ReferenceSeed {
  seed: number;
  results: Record<ScoredLayout, Record<string, Record<string, ScoredResult>>>;
}

/** A judge.ts JSON file. */
export interface Judgement {
  meta: Record<string, unknown>;
  seeds: JudgedSeed[];
  /** The reference regime's targets, over their own seeds (usually 10); absent if not measured. */
  reference?: ReferenceSeed[];
  /** The scale run (500 backends × 64 clients, s01's fleet) at `SCALE_SEED`: policy → tails; absent if not measured. */
  scale?: Record<string, ScaleTail>;
}

/**
 * The scale run's one seed. Read as a paired comparison (the same fleet and
 * draws before and after), not as a level: across seeds its peak_ewma p99
 * moves by 2 ms (25.7 / 23.7 / 24.0 ms at seeds 1–3, 2026-12-07), as much
 * as §65's regression did at seed 1.
 */
export const SCALE_SEED = 1;

/** What a judgement keeps of a scale run's result. */
export type ScaleTail = Pick<PolicyResult, 'p50' | 'p99' | 'p999' | 'p99All' | 'errorRate'>;

export function scaleTail(result: PolicyResult): ScaleTail {
  return { p50: result.p50, p99: result.p99, p999: result.p999, p99All: result.p99All, errorRate: result.errorRate };
}

/** The policies every target is judged against. */
export const RIVALS = ['round_robin', 'least_request', 'lr_od'] as const;
export const UNDER_TEST = 'peak_ewma';

export function judged(result: PolicyResult): JudgedResult {
  const kept: JudgedResult = { ...scored(result), p99AllPooled: result.p99AllPooled, goodputRps: result.goodputRps };
  if (result.methods !== undefined) {
    kept.methods = Object.fromEntries(Object.entries(result.methods).map(([name, m]) => [name, { p99All: m.p99All, errorRate: m.errorRate }]));
  }
  return kept;
}

/**
 * The cell-by-cell mean of p99All over seeds: what the targets are judged on
 * ("a 5-seed mean"). A cell, scenario or policy missing from any seed is left out.
 * With `field` "p99AllPooled", the pooled p99 instead, under the same key, so
 * that `regimeChecks` judges it. The mean error rate and p99 of OK calls
 * ride along where every seed has them (a tie at the deadline goes to the
 * fewer failures; the OK calls' p99 is what a p99 at the deadline hides).
 */
export function meanRegimes(seeds: readonly { regimes: RegimeTails }[], field: keyof RegimeTail = 'p99All'): RegimeP99s {
  const out: RegimeP99s = {};
  for (const [cell, byScenario] of Object.entries(seeds[0]?.regimes ?? {})) {
    for (const [scenario, byPolicy] of Object.entries(byScenario)) {
      for (const policy of Object.keys(byPolicy)) {
        // The mean over seeds of one figure, or undefined where a seed lacks it; NaN where a seed
        // had none to give (a NaN percentile, no call to rank, is null in the JSON, which a sum reads as 0).
        const meanOf = (name: keyof RegimeTail): number | undefined => {
          const values: (number | null | undefined)[] = seeds.map((seed) => seed.regimes[cell]?.[scenario]?.[policy]?.[name]);
          if (!values.every((value) => value !== undefined)) {
            return undefined;
          }
          return meanOfRead(values as (number | null)[]);
        };
        const p99All = meanOf(field);
        if (p99All !== undefined) {
          const errorRate = meanOf('errorRate');
          const p99 = meanOf('p99');
          ((out[cell] ??= {})[scenario] ??= {})[policy] = {
            p99All,
            ...(errorRate === undefined ? {} : { errorRate }),
            ...(p99 === undefined ? {} : { p99 }),
          };
        }
      }
    }
  }
  return out;
}

/**
 * What keeps two judgements from being compared number by number: a
 * different timeline (`--quick`), grid seeds, reference seeds (where both
 * have the reference regime), or client stall. Each would move the numbers
 * by itself, and a before → after table reads every move as the change's.
 * Different arrivals are a comparison of their own (the two loops) and are
 * printed, not refused; different sections are not a difference in what
 * was measured (each section runs on its own, and a side without one
 * prints the other alone). Empty when they are alike.
 */
export function unlikeJudgements(before: Judgement, after: Judgement): string[] {
  const problems: string[] = [];
  const differ = (what: string, of: (judgement: Judgement) => unknown): void => {
    const [was, is] = [of(before), of(after)].map((value) => JSON.stringify(value ?? null));
    if (was !== is) {
      problems.push(`${what}: before ${was}, after ${is}`);
    }
  };
  differ('timeline (--quick)', (judgement) => judgement.meta.quick ?? false);
  differ('grid seeds', (judgement) => judgement.seeds.map((seed) => seed.seed));
  // A side without the reference regime prints none; only two different sets would mislead.
  if ((before.reference?.length ?? 0) > 0 && (after.reference?.length ?? 0) > 0) {
    differ('reference seeds', (judgement) => judgement.reference!.map((entry) => entry.seed));
  }
  differ('client stall', (judgement) => judgement.meta.clientStall);
  return problems;
}

/** How many regime targets `regimes` meets, of how many. */
export function targetsMet(regimes: RegimeP99s): { met: number; of: number } {
  const checks = regimeChecks(regimes, UNDER_TEST);
  return { met: checks.filter((check) => check.met).length, of: checks.length };
}

const S02 = 's02-steady-identical';

/** The first seed of each side: one number when they agree. */
function seedLabel(before: Judgement, after: Judgement): string {
  const [was, is] = [before.seeds[0].seed, after.seeds[0].seed];
  return was === is ? String(is) : `${was} → ${is}`;
}
const ms = (x: number | undefined, digits = 1): string => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));
const percent = (x: number | undefined): string => (x === undefined ? '–' : `${(x * 100).toFixed(2)} %`);

/**
 * The grid as docs/tuning-log.md shows it: per cell, round_robin's healthy p99
 * and peak_ewma's in each scenario (5-seed means), before → after, a
 * missed target marked on the after value (✗ over its bound, † not below
 * every rival); then the targets met, on the means and at the first seed.
 */
export function gridSection(after: Judgement, before?: Judgement): string {
  const afterMean = meanRegimes(after.seeds);
  const beforeMean = before === undefined ? undefined : meanRegimes(before.seeds);
  const cells = Object.keys(afterMean);
  if (cells.length === 0) {
    return '';
  }
  const table = cellTable(afterMean, beforeMean, 'slots × clients', (cell) => cell.replace('x', ' × '), false);
  const seeds = after.seeds.length;
  const metNow = targetsMet(afterMean);
  const metSeed1 = targetsMet(after.seeds[0].regimes);
  const summary =
    before === undefined
      ? `targets met: ${metNow.met} of ${metNow.of} on the ${seeds}-seed means, ${metSeed1.met} at seed ${after.seeds[0].seed}`
      : `targets met: ${targetsMet(beforeMean!).met} → ${metNow.met} of ${metNow.of} on the ${seeds}-seed means; ` +
        `${targetsMet(before.seeds[0].regimes).met} → ${metSeed1.met} at seed ${seedLabel(before, after)}`;
  return (
    `Regime grid, uniform layout, p99 over all calls (ms), mean of seeds ${after.seeds.map((s) => s.seed).join(', ')}; ` +
    `✗ over the target's bound (s02 ≤ 1.02 × round_robin, the others ≤ 1.3 × round_robin's s02), † not below every rival\n\n` +
    `${table}\n\n${summary}${pooledSummary(after, before)}${goodputSummary(after)}`
  );
}

/**
 * A markdown table of cells: round_robin's healthy p99 and peak_ewma's in
 * each scenario, before → after, a missed target marked on the after value
 * (✗ over its bound, † not below every rival); with `rivals`, the best
 * rival's p99 in brackets after each sick scenario's.
 */
function cellTable(afterMean: RegimeP99s, beforeMean: RegimeP99s | undefined, header: string, label: (cell: string) => string, rivals: boolean): string {
  const checks = regimeChecks(afterMean, UNDER_TEST);
  const cells = Object.keys(afterMean);
  const scenarios = [...new Set(cells.flatMap((cell) => Object.keys(afterMean[cell])))].sort();
  const short = (scenario: string): string => scenario.split('-')[0];
  // With the rivals shown (small fleets), the failures too, before and after.
  const failures = (result: RegimeP99s[string][string][string] | undefined): string => (rivals ? failed(result) : '');
  const lines = [
    `| ${header} | round_robin s02 | ${scenarios.map((s) => `${UNDER_TEST} ${short(s)}`).join(' | ')} |`,
    `|---|---|${scenarios.map(() => '---').join('|')}|`,
  ];
  for (const cell of cells) {
    const values = scenarios.map((scenario) => {
      const byPolicy = afterMean[cell][scenario];
      const now = byPolicy?.[UNDER_TEST]?.p99All;
      const was = beforeMean?.[cell]?.[scenario]?.[UNDER_TEST]?.p99All;
      const marks = checks
        .filter((check) => check.cell === cell && check.scenario === scenario && !check.met)
        .map((check) => (check.target === 'below every baseline' ? '†' : '✗'))
        .join('');
      const rival = rivals && scenario !== S02 ? bestRival(byPolicy) : '';
      const before = was === undefined ? '' : `${ms(was)}${failures(beforeMean?.[cell]?.[scenario]?.[UNDER_TEST])} → `;
      return `${before}${ms(now)}${failures(byPolicy?.[UNDER_TEST])}${marks === '' ? '' : ` ${marks}`}${rival}`;
    });
    lines.push(`| ${label(cell)} | ${ms(afterMean[cell][S02]?.round_robin?.p99All)} | ${values.join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * ", 1.43 % failed, OK calls' p99 103.4" where the p99 is at the deadline
 * (1 % or more failed), else '': what the load test's report then judges by.
 */
const failed = (result: { errorRate?: number; p99?: number } | undefined): string =>
  result?.errorRate !== undefined && result.errorRate >= 0.01
    ? `, ${(result.errorRate * 100).toFixed(2)} % failed${result.p99 === undefined ? '' : `, OK calls' p99 ${ms(result.p99)}`}`
    : '';

/**
 * " (least_request 60.0)": the rival with the lowest p99 in one cell and
 * scenario (on a tie, the fewest failures), or '' with none.
 */
function bestRival(byPolicy: RegimeP99s[string][string] | undefined): string {
  let best: string | undefined;
  for (const rival of RIVALS) {
    const result = byPolicy?.[rival];
    if (result !== undefined && (best === undefined || leads(result, byPolicy![best]))) {
      best = rival;
    }
  }
  return best === undefined ? '' : ` (${best} ${ms(byPolicy![best].p99All)}${failed(byPolicy![best])})`;
}

/**
 * The small fleets (the load test's layouts; regimes.ts SMALL_FLEETS), judged
 * by the grid's targets, with the best rival beside each sick scenario:
 * what a rule tuned on fleets of 20 can break. Empty for judgements without them.
 */
export function smallFleetSection(after: Judgement, before?: Judgement): string {
  const fleets = (judgement: Judgement): { regimes: RegimeTails }[] | undefined =>
    judgement.seeds.every((seed) => seed.smallFleets !== undefined) ? judgement.seeds.map((seed) => ({ regimes: seed.smallFleets! })) : undefined;
  const afterSeeds = fleets(after);
  if (afterSeeds === undefined || Object.keys(afterSeeds[0].regimes).length === 0) {
    return '';
  }
  const beforeSeeds = before === undefined ? undefined : fleets(before);
  const afterMean = meanRegimes(afterSeeds);
  const beforeMean = beforeSeeds === undefined ? undefined : meanRegimes(beforeSeeds);
  const label = (cell: string): string => {
    const fleet = SMALL_FLEETS.find(({ backends, slots }) => regimeCell(slots, SMALL_FLEET_CLIENTS, backends) === cell);
    return fleet === undefined ? cell : `${fleet.backends} backends × ${fleet.slots} slot${fleet.slots === 1 ? '' : 's'}, ${SMALL_FLEET_CLIENTS} clients`;
  };
  const metNow = targetsMet(afterMean);
  const was = beforeMean === undefined ? '' : `${targetsMet(beforeMean).met} → `;
  return (
    `Small fleets (the load test's layouts), uniform layout, p99 over all calls (ms), mean of seeds ${after.seeds.map((s) => s.seed).join(', ')}; ` +
    `the grid's targets and marks; the best of ${RIVALS.join(', ')} in brackets\n\n` +
    `${cellTable(afterMean, beforeMean, 'fleet', label, true)}\n\ntargets met: ${was}${metNow.met} of ${metNow.of} on the ${after.seeds.length}-seed means`
  );
}

/**
 * With callers that wait on their answers (closed loop) the rate is an
 * outcome: a policy that makes answers slower also sends fewer calls, and
 * fewer calls queue less, so a p99 alone could flatter it. So, per
 * scenario, peak_ewma's OK calls per second ÷ round_robin's in the same
 * cell and scenario (5-seed means), lowest and highest over the cells, and
 * the cell of the lowest; empty for open-loop judgements (the rate is set
 * there) and for judgements without goodput.
 */
export function goodputSummary(after: Judgement): string {
  if (after.meta.arrivals !== 'closed') {
    return '';
  }
  const goodput = meanRegimes(after.seeds, 'goodputRps');
  const byScenario = new Map<string, { cell: string; ratio: number }[]>();
  for (const [cell, scenarios] of Object.entries(goodput)) {
    for (const [scenario, policies] of Object.entries(scenarios)) {
      const ours = policies[UNDER_TEST]?.p99All;
      const rr = policies.round_robin?.p99All;
      if (ours !== undefined && rr !== undefined && rr > 0) {
        const ratios = byScenario.get(scenario) ?? [];
        ratios.push({ cell, ratio: ours / rr });
        byScenario.set(scenario, ratios);
      }
    }
  }
  if (byScenario.size === 0) {
    return '';
  }
  const parts = [...byScenario.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([scenario, ratios]) => {
      const lowest = ratios.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      const highest = Math.max(...ratios.map((r) => r.ratio));
      return `${scenario.split('-')[0]} ${lowest.ratio.toFixed(3)}–${highest.toFixed(3)} (lowest at ${lowest.cell.replace('x', ' × ')})`;
    });
  return `\n\ngoodput (OK calls/s), ${UNDER_TEST} ÷ round_robin over the cells: ${parts.join('; ')}`;
}

/**
 * The same targets judged on the pooled p99 (every client's calls in one
 * histogram; docs/simulation.md, "the metric at 64 clients"), as one line;
 * empty when a judgement has no pooled figures.
 */
function pooledSummary(after: Judgement, before?: Judgement): string {
  const afterPooled = targetsMet(meanRegimes(after.seeds, 'p99AllPooled'));
  if (afterPooled.of === 0) {
    return '';
  }
  const beforePooled = before === undefined ? undefined : targetsMet(meanRegimes(before.seeds, 'p99AllPooled'));
  const was = beforePooled === undefined || beforePooled.of === 0 ? '' : `${beforePooled.met} → `;
  return `\n\non the pooled p99 (every client's calls in one histogram): ${was}${afterPooled.met} of ${afterPooled.of} on the ${after.seeds.length}-seed means`;
}

/** The method groups of a many-method result, in the scenario's order. */
function methodNames(result: JudgedResult | undefined): string[] {
  return Object.keys(result?.methods ?? {});
}

/**
 * One many-method scenario in one layout: peak_ewma's per-method p99All
 * (mean over seeds), the worst method's misses at each seed, all calls'
 * errors, recovery by seed, and the methods on which a rival's mean p99All
 * is as low or lower; a row per judgement given.
 */
function methodRows(label: string, judgement: Judgement, layout: JudgedLayout, scenario: string): string | undefined {
  const results = judgement.seeds.map((seed) => seed.methods[layout]?.[scenario]);
  if (results.some((r) => r?.[UNDER_TEST]?.methods === undefined)) {
    return undefined;
  }
  const ours = results.map((r) => r![UNDER_TEST]);
  const names = methodNames(ours[0]);
  const p99 = (policy: string, name: string): number | undefined => {
    const values = results.map((r) => r![policy]?.methods?.[name]?.p99All);
    return values.some((v) => v === undefined) ? undefined : meanOfRead(values as (number | null)[]);
  };
  const worstMisses = ours.map((r) => Math.max(...names.map((name) => r.methods![name].errorRate)));
  const behind = names.filter((name) => RIVALS.some((rival) => {
    const theirs = p99(rival, name);
    return theirs !== undefined && theirs <= p99(UNDER_TEST, name)!;
  }));
  return (
    `| ${label} | ${names.map((name) => ms(p99(UNDER_TEST, name))).join(' / ')} | ` +
    `${percent(Math.min(...worstMisses))}–${percent(Math.max(...worstMisses))} | ` +
    `${(mean(ours.map((r) => r.errorRate)) * 100).toFixed(3)} % | ` +
    `${ours.map((r) => r.recoverySeconds ?? '–').join(' ')} | ${behind.length === 0 ? 'none' : behind.join(', ')} |`
  );
}

/**
 * The many-method scenarios (s13, s14) in both layouts, before and after:
 * issue 16's per-method targets are read off this table.
 */
export function methodsSection(after: Judgement, before?: Judgement): string {
  const first = after.seeds[0]?.methods;
  if (first === undefined) {
    return '';
  }
  const lines: string[] = [];
  for (const layout of ['uniform', 'reference'] as const) {
    for (const scenario of Object.keys(first[layout] ?? {})) {
      const names = methodNames(first[layout][scenario]?.[UNDER_TEST]);
      if (names.length === 0) {
        continue;
      }
      if (lines.length === 0) {
        lines.push(
          `| ${UNDER_TEST}, mean of seeds ${after.seeds.map((s) => s.seed).join(', ')} | p99All per method (ms): ${names.join(' / ')} | worst method's misses, per seed (min–max) | all calls' errors | recovery by seed (s) | a rival as low on |`,
          '|---|---|---|---|---|---|',
        );
      }
      const name = `${scenario.split('-')[0]} ${layout}`;
      for (const [label, judgement] of before === undefined ? [[name, after] as const] : [[`${name}, before`, before] as const, [`${name}, after`, after] as const]) {
        const row = methodRows(label, judgement, layout, scenario);
        if (row !== undefined) {
          lines.push(row);
        }
      }
    }
  }
  return lines.length === 0 ? '' : `Many-method scenarios\n\n${lines.join('\n')}`;
}

/** The stored reference runs as the score reads them. */
function resultsAt(reference: readonly ReferenceSeed[]): ResultAt {
  return (seed, layout, scenario, policy = UNDER_TEST) => {
    const bySeed = reference.find((entry) => entry.seed === seed)!.results[layout];
    const key = Object.keys(bySeed).find((name) => name.startsWith(scenario));
    const result = key === undefined ? undefined : bySeed[key][policy];
    if (result === undefined) {
      throw new Error(`no ${policy} result for ${scenario} (${layout}) at seed ${seed}`);
    }
    return result;
  };
}

/**
 * The reference regime's targets (8 slots × 8 clients; the tuning sweeps'
 * score, reference-targets.ts), a row per judgement given.
 */
export function referenceSection(after: Judgement, before?: Judgement): string {
  if (after.reference === undefined || after.reference.length === 0) {
    return '';
  }
  const rows = (before?.reference === undefined ? [['', after] as const] : [['before', before] as const, ['after', after] as const]).map(
    ([label, judgement]) => `| ${label} | ${scoreLine(resultsAt(judgement.reference!), judgement.reference!.map((entry) => entry.seed))} |`,
  );
  const columns = SCORE_HEADER.split(' | ');
  return (
    `Reference regime (8 slots × 8 clients), mean of seeds ${after.reference.map((entry) => entry.seed).join(', ')}; targets: s01 ≤ 1.2, s10 ≤ 1.1, ` +
    `s03 ≤ 1.02 (p99 ÷ s02), recovery ≤ 4 s (mean, worst seed in brackets), s04 errors ≤ 0.1 %\n\n` +
    `| ${UNDER_TEST} | ${columns.join(' | ')} |\n|---|${columns.map(() => '---').join('|')}|\n${rows.join('\n')}`
  );
}

/**
 * The scale run (500 backends, 64 clients, the uneven fleet), before → after.
 * No grid cell has a fleet this large: a rule that touches many endpoints at
 * once (§56's shared recovery made 100 slow pods due together) shows here
 * first, and only here (§65).
 */
export function scaleSection(after: Judgement, before?: Judgement): string {
  if (after.scale === undefined) {
    return '';
  }
  const ms2 = (x: number | undefined): string => ms(x, 2);
  const moved = (of: (tail: ScaleTail) => number, show: (x: number | undefined) => string, policy: string): string => {
    const is = show(of(after.scale![policy]));
    const was = before?.scale?.[policy];
    return was === undefined ? is : `${show(of(was))} → ${is}`;
  };
  const rows = Object.keys(after.scale).map(
    (policy) =>
      `| ${policy} | ${moved((t) => t.p99, ms2, policy)} | ${moved((t) => t.p999, ms2, policy)} | ${moved((t) => t.p99All, ms2, policy)} | ${moved((t) => t.errorRate, percent, policy)} |`,
  );
  return (
    `Scale run (500 backends × 64 clients, the uneven fleet), seed ${SCALE_SEED}; ms\n\n` +
    `| policy | p99 | p99.9 | p99 all calls | errors |\n|---|---|---|---|---|\n${rows.join('\n')}`
  );
}
