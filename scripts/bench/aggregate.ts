/**
 * Repeats folded into one row per scenario, layout and policy, as the
 * reference did: the mean over repeats of each run's headline numbers.
 */
import type { PolicyResult, ScenarioResult } from './loadtest';
import { mean } from './stats';

export type PolicyKey = PolicyResult['policy'];

export interface AggregateRow {
  readonly scenario: string;
  readonly title: string;
  readonly layout: ScenarioResult['layout'];
  readonly policy: PolicyKey;
  readonly repeats: number;
  /** Headline window (fault phase for fault scenarios), OK calls. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  /** Headline window, all calls with failures at the deadline. */
  readonly allP99Ms: number;
  readonly errorRate: number;
  readonly detectS: number | null;
  readonly recoverS: number | null;
  readonly cpuMicrosPerCall: number;
}

function meanOrNull(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === values.length && present.length > 0 ? mean(present) : null;
}

export function aggregate(results: readonly ScenarioResult[]): AggregateRow[] {
  const groups = new Map<string, { run: ScenarioResult; policy: PolicyResult }[]>();
  for (const run of results) {
    for (const policy of run.policies) {
      const key = `${run.scenario}|${run.layout}|${policy.policy}`;
      const list = groups.get(key) ?? [];
      list.push({ run, policy });
      groups.set(key, list);
    }
  }
  return Array.from(groups.values(), (items) => {
    const { run, policy } = items[0];
    const headline = items.map((i) => i.policy.headline);
    return {
      scenario: run.scenario,
      title: run.title,
      layout: run.layout,
      policy: policy.policy,
      repeats: items.length,
      p50Ms: mean(headline.map((h) => h.okLatency.p50Ms)),
      p99Ms: mean(headline.map((h) => h.okLatency.p99Ms)),
      p999Ms: mean(headline.map((h) => h.okLatency.p999Ms)),
      allP99Ms: mean(headline.map((h) => h.allLatency.p99Ms)),
      errorRate: mean(headline.map((h) => h.errorRate)),
      detectS: meanOrNull(items.map((i) => i.policy.detectS)),
      recoverS: meanOrNull(items.map((i) => i.policy.recoverS)),
      cpuMicrosPerCall: mean(items.map((i) => i.policy.cpuMicrosPerCall)),
    };
  });
}

export function rowsFor(rows: readonly AggregateRow[], scenario: string, layout: AggregateRow['layout']): AggregateRow[] {
  return rows.filter((r) => r.scenario === scenario && r.layout === layout);
}
