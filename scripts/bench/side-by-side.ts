/**
 * Pools side-by-side load-test repeats of two policies from one or more
 * saved result files (`--json`) and says how far apart they are: p99 over
 * all calls, uniform layout, per scenario and regime (slots, median, fleet). This is how
 * docs/tuning-log.md §21 judges the one- and two-slot identical fleet over
 * several sets of nine repeats.
 *
 *   npx tsx scripts/bench/side-by-side.ts FILE... [--policy peak_ewma] [--baseline round_robin] [--scenario s02]
 *
 * A repeat of one policy is paired with the baseline's repeat of the same
 * number in the same file, since the plan runs them in the same block.
 * Per group it prints:
 * - the ratio of the means, with a 95 % percentile-bootstrap interval that
 *   resamples pairs (2,000 resamples, seeded by the group's name, so a
 *   figure is reproducible);
 * - the median of the per-pair ratios, which one wild repeat cannot move;
 * - the ratio of the medians.
 */
import * as fs from 'fs';
import { parseArgs } from 'node:util';
import { regimeOfRun } from './aggregate';
import type { ScenarioResult } from './loadtest';
import { regimeKey } from './scale';
import { bootstrapInterval, Interval, mean, median, seedOf } from './stats';
import { seededRandom } from '../../src/core/random';

/** A run as saved in a result file: the plan's repeat number beside its result. */
export type SavedRun = ScenarioResult & { repeat?: number };

export interface SideBySide {
  readonly scenario: string;
  /** The group's regime (scale.ts `regimeKey`). */
  readonly regime: string;
  readonly slots: number;
  readonly pairs: number;
  readonly policyMeanMs: number;
  readonly baselineMeanMs: number;
  readonly ratioOfMeans: number;
  readonly ratioInterval: Interval;
  readonly pairedMedian: number;
  readonly ratioOfMedians: number;
}

/** Percentile-bootstrap interval of mean(a) / mean(b) over pairs (a[i], b[i]), resampling pairs. */
export function bootstrapRatioInterval(a: readonly number[], b: readonly number[], random: () => number): Interval {
  if (a.length === 0) return [NaN, NaN];
  const ratioOfResample = (draw: () => number): number => {
    let sumA = 0;
    let sumB = 0;
    for (let i = 0; i < a.length; i++) {
      const k = draw();
      sumA += a[k];
      sumB += b[k];
    }
    return sumA / sumB;
  };
  return bootstrapInterval(a.length, ratioOfResample, random);
}

/**
 * `policy` against `baseline` in every (scenario, slots) group of the
 * uniform-layout runs in `files` (each a list of saved runs, named by its
 * file), pairing repeats by file and repeat number; a group is one regime
 * (aggregate.ts `regimeOfRun`), so sets measured at another scale are not pooled.
 */
export function sideBySide(files: ReadonlyMap<string, readonly SavedRun[]>, policy: string, baseline: string, scenario?: string): SideBySide[] {
  const groups = new Map<string, { scenario: string; regime: string; slots: number; byPair: Map<string, { policy?: number; baseline?: number }> }>();
  for (const [file, runs] of files) {
    for (const run of runs) {
      if (run.layout !== 'uniform' || (scenario !== undefined && run.scenario !== scenario)) continue;
      const who = run.policies[0]?.policy;
      if (who !== policy && who !== baseline) continue;
      // Numbers of different regimes are never pooled (the report's rule), even at the same slot count.
      const regime = regimeOfRun(run);
      const key = `${run.scenario}|${regimeKey(regime)}`;
      const group = groups.get(key) ?? { scenario: run.scenario, regime: regimeKey(regime), slots: regime.slots, byPair: new Map() };
      groups.set(key, group);
      const pairKey = `${file}#${run.repeat ?? 0}`;
      const pair = group.byPair.get(pairKey) ?? {};
      pair[who === policy ? 'policy' : 'baseline'] = run.policies[0].headline.allLatency.p99Ms;
      group.byPair.set(pairKey, pair);
    }
  }
  return Array.from(groups.entries())
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([, group]) => {
      const pairs = Array.from(group.byPair.values()).filter((p): p is { policy: number; baseline: number } => p.policy !== undefined && p.baseline !== undefined);
      if (pairs.length === 0) return [];
      const a = pairs.map((p) => p.policy);
      const b = pairs.map((p) => p.baseline);
      return [
        {
          scenario: group.scenario,
          regime: group.regime,
          slots: group.slots,
          pairs: pairs.length,
          policyMeanMs: mean(a),
          baselineMeanMs: mean(b),
          ratioOfMeans: mean(a) / mean(b),
          // Seeded by what the line prints (scenario, slots, policies), so a figure quoted in the docs reproduces.
          ratioInterval: bootstrapRatioInterval(a, b, seededRandom(seedOf(`${group.scenario}|${group.slots}|${policy}|${baseline}`))),
          pairedMedian: median(pairs.map((p) => p.policy / p.baseline)),
          ratioOfMedians: median(a) / median(b),
        },
      ];
    });
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { policy: { type: 'string', default: 'peak_ewma' }, baseline: { type: 'string', default: 'round_robin' }, scenario: { type: 'string' } },
  });
  if (positionals.length === 0) throw new Error('usage: side-by-side.ts FILE... [--policy P] [--baseline B] [--scenario S]');
  const files = new Map(positionals.map((file) => [file, (JSON.parse(fs.readFileSync(file, 'utf8')) as { load: SavedRun[] }).load] as const));
  for (const r of sideBySide(files, values.policy!, values.baseline!, values.scenario)) {
    console.log(
      `${r.scenario} ${r.slots} slot${r.slots === 1 ? '' : 's'}, ${r.pairs} pairs: ${values.policy} ${r.policyMeanMs.toFixed(1)} ms, ${values.baseline} ${r.baselineMeanMs.toFixed(1)} ms; ` +
        `ratio of means ${r.ratioOfMeans.toFixed(2)} [${r.ratioInterval[0].toFixed(2)}, ${r.ratioInterval[1].toFixed(2)}], ` +
        `paired median ${r.pairedMedian.toFixed(2)}, ratio of medians ${r.ratioOfMedians.toFixed(2)}`,
    );
  }
}

if (require.main === module) {
  main();
}
