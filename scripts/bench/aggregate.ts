/**
 * Repeats folded into one row per scenario, layout, regime and policy, as the
 * reference did: the mean over repeats of each run's headline numbers, with
 * a bootstrap interval over the repeats (seeded per row, so reproducible).
 */
import type { PolicyResult, ScenarioResult } from './loadtest';
import { Regime, regimeKey, regimeOf } from './scale';
import { bootstrapMeanInterval, Interval, mean, seedOf } from './stats';
import { seededRandom } from '../../src/core/random';
import { recoveryMeasurable } from '../sim/metrics';
import { P999_MIN_SAMPLES } from '../lib/percentile-rules';

export type PolicyKey = PolicyResult['policy'];

export interface AggregateRow {
  readonly scenario: string;
  readonly title: string;
  readonly layout: ScenarioResult['layout'];
  /** The first repeat's regime; its rate is one of `perClientRpsByRepeat`. */
  readonly regime: Regime;
  /**
   * Each repeat's calls/s per client, in repeat order. They differ where a
   * repeat ran another number of clients (an extra xDS client shares the
   * same fleet load): labels then give the range, not the first's.
   */
  readonly perClientRpsByRepeat: readonly number[];
  readonly policy: PolicyKey;
  readonly repeats: number;
  /** Headline window (fault phase for fault scenarios), OK calls. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** 95 % bootstrap interval of the mean over repeats. */
  readonly p99CiMs: Interval;
  /** NaN unless every client had P999_MIN_SAMPLES OK calls (fewer: the p99.9 is a client's few largest values). */
  readonly p999Ms: number;
  /** Headline window, all calls with failures at the deadline. */
  readonly allP99Ms: number;
  readonly allP99CiMs: Interval;
  readonly errorRate: number;
  readonly errorRateCi: Interval;
  /** Share of the headline window's calls sent to the scenario's faulty backends (NaN without any). */
  readonly faultyShare: number;
  readonly faultyShareCi: Interval;
  /** The faulty backends' fair share. */
  readonly fairShare: number;
  readonly detectS: number | null;
  /** Null where never, and where any run's window ended too soon after the fault to tell (`recoveryMeasurable`). */
  readonly recoverS: number | null;
  /** Whether every run's window ran long enough past the fault for recovery to be measured. */
  readonly recoveryMeasurable: boolean;
  readonly cpuMicrosPerCall: number;
}

/** A run's regime (older result files did not record it). */
export function regimeOfRun(run: ScenarioResult): Regime {
  return run.regime ?? regimeOf(run.scale, run.backendCount, run.load.perClientRps, Math.max(...run.policies.map((p) => p.clients)));
}

function meanOrNull(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === values.length && present.length > 0 ? mean(present) : null;
}

/** Mean share of calls to the faulty backends over the headline window's seconds. */
export function headlineFaultyShare(run: ScenarioResult, policy: PolicyResult): number {
  if (run.faultyBackends.length === 0 || policy.faultyShare.length === 0) return NaN;
  const [from, to] = run.faultWindow ? [run.timeline.faultStartS, run.timeline.faultEndS] : [0, policy.faultyShare.length];
  return mean(policy.faultyShare.slice(from, to));
}

export function aggregate(results: readonly ScenarioResult[]): AggregateRow[] {
  const groups = new Map<string, { run: ScenarioResult; policy: PolicyResult }[]>();
  for (const run of results) {
    for (const policy of run.policies) {
      const key = `${run.scenario}|${run.layout}|${regimeKey(regimeOfRun(run))}|${policy.policy}`;
      const list = groups.get(key) ?? [];
      list.push({ run, policy });
      groups.set(key, list);
    }
  }
  return Array.from(groups, ([key, items]) => {
    const { run, policy } = items[0];
    const headline = items.map((i) => i.policy.headline);
    const interval = (what: string, values: readonly number[]): Interval =>
      bootstrapMeanInterval(values, seededRandom(seedOf(`${key}|${what}`)));
    const p99 = headline.map((h) => h.okLatency.p99Ms);
    const allP99 = headline.map((h) => h.allLatency.p99Ms);
    const errors = headline.map((h) => h.errorRate);
    const shares = items.map((i) => headlineFaultyShare(i.run, i.policy));
    // Every client of every repeat: the p99.9 published is a mean of the clients' own.
    const enough = headline.every((h) => (h.minClientOk ?? 0) >= P999_MIN_SAMPLES);
    const measurable = items.every((i) => recoveryMeasurable(i.run.timeline));
    return {
      scenario: run.scenario,
      title: run.title,
      layout: run.layout,
      regime: regimeOfRun(run),
      perClientRpsByRepeat: items.map((i) => regimeOfRun(i.run).perClientRps),
      policy: policy.policy,
      repeats: items.length,
      p50Ms: mean(headline.map((h) => h.okLatency.p50Ms)),
      p99Ms: mean(p99),
      p99CiMs: interval('p99', p99),
      p999Ms: enough ? mean(headline.map((h) => h.okLatency.p999Ms)) : NaN,
      allP99Ms: mean(allP99),
      allP99CiMs: interval('allP99', allP99),
      errorRate: mean(errors),
      errorRateCi: interval('errors', errors),
      faultyShare: mean(shares),
      faultyShareCi: interval('share', shares),
      fairShare: run.faultyBackends.length / run.backendCount,
      detectS: meanOrNull(items.map((i) => i.policy.detectS)),
      // Runs saved before recoveryMeasurable existed carry round_robin's 1 s from windows too short to tell.
      recoverS: measurable ? meanOrNull(items.map((i) => i.policy.recoverS)) : null,
      recoveryMeasurable: measurable,
      cpuMicrosPerCall: mean(items.map((i) => i.policy.cpuMicrosPerCall)),
    };
  });
}

/** The rows of one scenario (undefined: all) and layout; with `regime`, of that regime only. */
export function rowsFor(
  rows: readonly AggregateRow[],
  scenario: string | undefined,
  layout: AggregateRow['layout'],
  regime?: Regime,
): AggregateRow[] {
  const key = regime === undefined ? undefined : regimeKey(regime);
  return rows.filter(
    (r) => (scenario === undefined || r.scenario === scenario) && r.layout === layout && (key === undefined || regimeKey(r.regime) === key),
  );
}
