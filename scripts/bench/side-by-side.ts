/**
 * Pools side-by-side load-test repeats of two policies from one or more
 * saved result files (`--json`) and says how far apart they are: p99 over
 * all calls, uniform layout, per scenario and slot count. This is how
 * docs/tuning.md §21 judges the one- and two-slot identical fleet over
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
import type { ScenarioResult } from './loadtest';
import { BOOTSTRAP_RESAMPLES, Interval, mean, median, seedOf } from './stats';
import { seededRandom } from '../../src/core/random';

type SavedRun = Pick<ScenarioResult, 'scenario' | 'layout' | 'regime' | 'policies'> & { repeat?: number };

export interface SideBySide {
  readonly scenario: string;
  readonly slots: number;
  readonly pairs: number;
  readonly policyMeanMs: number;
  readonly baselineMeanMs: number;
  readonly ratioOfMeans: number;
  readonly ratioInterval: Interval;
  readonly pairedMedian: number;
  readonly ratioOfMedians: number;
}

/** Percentile-bootstrap interval of mean(a) / mean(b) over pairs (a[i], b[i]). */
export function bootstrapRatioInterval(a: readonly number[], b: readonly number[], random: () => number, resamples = BOOTSTRAP_RESAMPLES): Interval {
  const n = a.length;
  if (n === 0) return [NaN, NaN];
  const ratios = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sumA = 0;
    let sumB = 0;
    for (let i = 0; i < n; i++) {
      const k = Math.floor(random() * n);
      sumA += a[k];
      sumB += b[k];
    }
    ratios[r] = sumA / sumB;
  }
  ratios.sort();
  const at = (q: number): number => ratios[Math.round(q * (resamples - 1))];
  return [at(0.025), at(0.975)];
}

/**
 * `policy` against `baseline` in every (scenario, slots) group of the
 * uniform-layout runs in `files` (each a list of saved runs, named by its
 * file), pairing repeats by file and repeat number.
 */
export function sideBySide(files: ReadonlyMap<string, readonly SavedRun[]>, policy: string, baseline: string, scenario?: string): SideBySide[] {
  const groups = new Map<string, { scenario: string; slots: number; byPair: Map<string, { policy?: number; baseline?: number }> }>();
  for (const [file, runs] of files) {
    for (const run of runs) {
      if (run.layout !== 'uniform' || (scenario !== undefined && run.scenario !== scenario)) continue;
      const who = run.policies[0]?.policy;
      // Runs saved before regimes were recorded say nothing of their slots: left out.
      const slots = run.regime?.slots;
      if ((who !== policy && who !== baseline) || slots === undefined) continue;
      const key = `${run.scenario}|${slots}`;
      const group = groups.get(key) ?? { scenario: run.scenario, slots, byPair: new Map() };
      groups.set(key, group);
      const pairKey = `${file}#${run.repeat ?? 0}`;
      const pair = group.byPair.get(pairKey) ?? {};
      pair[who === policy ? 'policy' : 'baseline'] = run.policies[0].headline.allLatency.p99Ms;
      group.byPair.set(pairKey, pair);
    }
  }
  return Array.from(groups.entries())
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([key, group]) => {
      const pairs = Array.from(group.byPair.values()).filter((p): p is { policy: number; baseline: number } => p.policy !== undefined && p.baseline !== undefined);
      if (pairs.length === 0) return [];
      const a = pairs.map((p) => p.policy);
      const b = pairs.map((p) => p.baseline);
      return [
        {
          scenario: group.scenario,
          slots: group.slots,
          pairs: pairs.length,
          policyMeanMs: mean(a),
          baselineMeanMs: mean(b),
          ratioOfMeans: mean(a) / mean(b),
          ratioInterval: bootstrapRatioInterval(a, b, seededRandom(seedOf(`${key}|${policy}|${baseline}`))),
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
