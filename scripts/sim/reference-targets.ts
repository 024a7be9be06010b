/**
 * The reference regime's targets as the tuning sweeps score them (8 slots,
 * 8 clients; docs/tuning-log.md): in the reference layout s01 ≤ 1.2 × s02,
 * s10 ≤ 1.1 ×, s03 ≤ 1.02 × (p99), s01's p99.9 beside lr_od's, recovery
 * ≤ 4 s in s03, s04 and s10, s04 errors ≤ 0.1 %; in the uniform layout
 * s01 and s10 beside s02 (p99 and p99All) and s02's busiest healthy backend.
 * Shared by sweep.ts (config candidates) and judge.ts (an engine change).
 */
import { meanOfRead } from '../bench/stats';
import { ClientStall } from './client-stall';
import { PolicyResult } from './results';
import { scenarioByName } from './scenarios';
import { planSuite, PlannedRun } from './suite';

/** What the score reads of one policy's result in one run. */
export interface ScoredResult {
  p99: number;
  p999: number;
  p99All: number;
  errorRate: number;
  recoverySeconds: number | null;
  /** The faulty backends' share lacked after the fault, in seconds of fair share (metrics.ts `lostShareSeconds`); absent in older files. */
  lostShareSeconds?: number | null;
  /** The busiest healthy backend's share ÷ fair, p95 over seconds. */
  busiestP95: number;
}

export type ScoredLayout = 'reference' | 'uniform';

/** What the score reads of a simulator result. */
export function scored(result: PolicyResult): ScoredResult {
  return { p99: result.p99, p999: result.p999, p99All: result.p99All, errorRate: result.errorRate, recoverySeconds: result.recoverySeconds, lostShareSeconds: result.lostShareSeconds, busiestP95: result.busiestHealthy.p95 };
}

/**
 * The result of the policy under test (or of `policy`) in `scenario` (a
 * name prefix such as "s01") at `seed`.
 */
export type ResultAt = (seed: number, layout: ScoredLayout, scenario: string, policy?: string) => ScoredResult;

/** The reference layout's scenarios and the uniform layout's that the score reads. */
export const SCORED_SCENARIOS: Record<ScoredLayout, readonly string[]> = {
  reference: ['s01', 's02', 's03', 's04', 's10'],
  uniform: ['s01', 's02', 's10'],
};

/**
 * The runs the score reads at `seed`: the reference layout's scenarios (the
 * four policies sharing one fleet, `policyUnderTest` in peak_ewma's place)
 * and the uniform layout's with the policy under test alone.
 */
export function planReferenceTargets(seed: number, options: { quick: boolean; policyUnderTest?: string; clientStall?: ClientStall }): PlannedRun[] {
  const common = { ...options, seed, grid: false, scale: false };
  return [
    ...planSuite({ ...common, scenarios: SCORED_SCENARIOS.reference.map(scenarioByName), layouts: ['reference'] }),
    ...planSuite({ ...common, scenarios: SCORED_SCENARIOS.uniform.map(scenarioByName), layouts: ['uniform'], uniformPolicies: ['peak_ewma'] }),
  ];
}

/** The reference layout's fault scenarios whose recovery the score reads. */
const RECOVERY_SCENARIOS = ['s03', 's04', 's10'] as const;

/** The columns of `scoreLine`, in order. */
export const SCORE_HEADER =
  'ref s01 s10 s03 (p99/s02) | s01 p99.9/lr_od | recovery s03 s04 s10 (worst) | lost share s03 s04 s10 | s04 err | uni s01 s10 p99 | uni s01 s10 p99All | s02 busiest';

/**
 * One line of scores over `seeds`: means over seeds, the worst seed in
 * brackets for recovery (99: never); beside the whole-second recovery, the
 * share the healed pods lacked over the 5 s after the fault (NaN for a file
 * written before it was kept).
 */
export function scoreLine(get: ResultAt, seeds: readonly number[]): string {
  const per = (f: (seed: number) => number): number => meanOfRead(seeds.map(f));
  const worst = (f: (seed: number) => number | null): string =>
    `${per((s) => f(s) ?? 99).toFixed(1)}(${Math.max(...seeds.map((s) => f(s) ?? 99))})`;
  // A p99 read back as null (NaN written to JSON: no call to rank) is none, not 0 ms.
  const read = (value: number | null): number => value ?? NaN;
  const ratio = (layout: ScoredLayout, scenario: string, key: 'p99' | 'p99All' = 'p99') => (seed: number) =>
    read(get(seed, layout, scenario)[key]) / read(get(seed, layout, 's02')[key]);
  return [
    [ratio('reference', 's01'), ratio('reference', 's10'), ratio('reference', 's03')].map((f) => per(f).toFixed(3)).join(' '),
    // A p99.9 is null where a client had under 10,000 OK calls (percentile-rules.ts): none, not 0 ms.
    per((s) => read(get(s, 'reference', 's01').p999) / read(get(s, 'reference', 's01', 'lr_od').p999)).toFixed(2),
    RECOVERY_SCENARIOS.map((sc) => worst((s) => get(s, 'reference', sc).recoverySeconds)).join(' '),
    RECOVERY_SCENARIOS.map((sc) => per((s) => get(s, 'reference', sc).lostShareSeconds ?? NaN).toFixed(2)).join(' '),
    (per((s) => get(s, 'reference', 's04').errorRate) * 100).toFixed(3) + '%',
    [ratio('uniform', 's01'), ratio('uniform', 's10')].map((f) => per(f).toFixed(3)).join(' '),
    [ratio('uniform', 's01', 'p99All'), ratio('uniform', 's10', 'p99All')].map((f) => per(f).toFixed(3)).join(' '),
    per((s) => get(s, 'uniform', 's02').busiestP95).toFixed(2),
  ].join(' | ');
}

/**
 * Each seed's recovery (s, "–" never) in s03, s04 and s10, a worst-seed
 * figure moving by whole seconds, and each seed's lost share: what a paired
 * comparison of two candidates reads.
 */
export function recoveryBySeed(get: ResultAt, seeds: readonly number[]): string[] {
  return RECOVERY_SCENARIOS.flatMap((sc) => [
    `recovery ${sc} by seed: ${seeds.map((s) => get(s, 'reference', sc).recoverySeconds ?? '–').join(' ')}`,
    `lost share ${sc} by seed: ${seeds.map((s) => get(s, 'reference', sc).lostShareSeconds?.toFixed(2) ?? '–').join(' ')}`,
  ]);
}
