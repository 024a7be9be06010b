/**
 * The load-test runs a set of options asks for, in the order they run, and
 * what they cost in wall time.
 *
 * Repeats run in blocks: block r holds one run of everything (each
 * reference-layout scenario, each uniform scenario × policy, each
 * low-concurrency regime × scenario × policy) in a random order drawn from
 * the seed, so a machine whose load drifts during the hours a report takes
 * spreads the drift over every policy alike instead of favouring whichever
 * ran in the quiet hour.
 */
import type { BenchOptions } from './args';
import type { Layout } from './loadtest';
import { LOW_CONCURRENCY_SCALES, Scale } from './scale';
import { timelineFor } from './scenarios';
import { seededRandom } from '../../src/core/random';

export interface PlannedRun {
  readonly layout: Layout;
  readonly scenario: string;
  readonly repeat: number;
  readonly policies: BenchOptions['policies'];
  readonly xds: boolean;
  readonly scale: Scale;
}

/** A copy of `items` in the order of a Fisher–Yates shuffle drawn from `random`. */
function shuffledBy<T>(items: readonly T[], random: () => number): T[] {
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** Every load-test run the options ask for, in order. */
export function planLoadRuns(options: BenchOptions): PlannedRun[] {
  // One xDS client beside the others, in the first reference-layout run of s03 (or of the first scenario).
  const xdsScenario = options.scenarios.includes('s03') ? 's03' : options.scenarios[0];
  const random = seededRandom(options.seed * 7919 + 17);
  // Result files written before --uniform-policy existed ran every policy in those layouts.
  const onePolicyRuns: readonly BenchOptions['policies'][number][] = options.uniformPolicies ?? options.policies;
  const runs: PlannedRun[] = [];
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    const block: PlannedRun[] = [];
    const scale = options.scale;
    if (options.layouts.includes('reference')) {
      for (const scenario of options.scenarios) {
        const xds = options.xds && repeat === 0 && scenario === xdsScenario;
        block.push({ layout: 'reference', scenario, repeat, policies: options.policies, xds, scale });
      }
    }
    if (options.layouts.includes('uniform')) {
      for (const scenario of options.uniformScenarios) {
        for (const policy of onePolicyRuns) {
          block.push({ layout: 'uniform', scenario, repeat, policies: [policy], xds: false, scale });
        }
      }
    }
    if (options.lowConcurrency) {
      for (const low of LOW_CONCURRENCY_SCALES) {
        for (const scenario of options.lowScenarios) {
          for (const policy of onePolicyRuns) {
            block.push({ layout: 'uniform', scenario, repeat, policies: [policy], xds: false, scale: { ...low, load: scale.load } });
          }
        }
      }
    }
    runs.push(...shuffledBy(block, random));
  }
  return runs;
}

/** Starting and stopping a run's processes, measured on this machine: about 15 s. */
export const RUN_OVERHEAD_S = 15;

/** Wall time of the planned runs, s: warm-up and measurement × each run's time factor, plus start-up. */
export function planWallTimeS(runs: readonly { readonly scale: Pick<Scale, 'timeFactor'> }[], options: Pick<BenchOptions, 'durationS' | 'warmupS'>): number {
  const timeline = timelineFor(options.durationS, options.warmupS);
  const timelineS = timeline.warmupMs / 1000 + timeline.measureS;
  return runs.reduce((sum, run) => sum + timelineS * run.scale.timeFactor + RUN_OVERHEAD_S + 1, 0);
}
