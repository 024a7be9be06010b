/**
 * Tuning sweep: each candidate peak_ewma config over several seeds, scored
 * against the targets (docs/tuning-log.md). Reference layout s01–s04,
 * s10; uniform s01, s02, s10. Prints one line per candidate (mean over seeds,
 * worst seed in brackets for recovery).
 *
 *   npx tsx scripts/sim/sweep.ts --seeds 3 'H=peak_ewma{"decayTime":"2s"}' ...
 *
 * `--first-seed N` starts at seed N (default 1), to add seeds to a sweep.
 * `--per-seed` also prints each seed's recovery (s): a worst-seed figure
 * moves by whole seconds, and this tells a shift from one seed's swing.
 */
import { parseArgs } from 'node:util';
import { runAll } from './pool';
import { planReferenceTargets, recoveryBySeed, ResultAt, SCORE_HEADER, scoreLine, scored } from './reference-targets';
import { PlannedRun } from './suite';

const { values, positionals } = parseArgs({
  options: { seeds: { type: 'string', default: '3' }, jobs: { type: 'string' }, quick: { type: 'boolean', default: false }, 'per-seed': { type: 'boolean', default: false }, 'first-seed': { type: 'string', default: '1' } },
  allowPositionals: true,
});
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + Number(values['first-seed']));

async function main(): Promise<void> {
  const runs: Array<PlannedRun & { candidate: string; seed: number }> = [];
  for (const candidate of positionals) {
    for (const seed of seeds) {
      for (const run of planReferenceTargets(seed, { quick: values.quick, policyUnderTest: candidate })) {
        runs.push({ ...run, candidate, seed });
      }
    }
  }
  const results = await runAll(runs.map((r) => r.spec), { jobs: values.jobs ? Number(values.jobs) : undefined });
  console.log(`candidate | ${SCORE_HEADER}`);
  for (const candidate of positionals) {
    const get: ResultAt = (seed, layout, scenario, policy) => {
      const i = runs.findIndex((r) => r.candidate === candidate && r.seed === seed && r.kind === layout && r.key.startsWith(scenario));
      const groups = results[i].groups;
      return scored(policy === undefined ? groups[layout === 'reference' ? 1 : 0] : groups.find((g) => g.policy === policy)!);
    };
    const label = candidate.split('=')[0];
    console.log(`${label.padEnd(8)} | ${scoreLine(get, seeds)}`);
    if (values['per-seed']) {
      recoveryBySeed(get, seeds).forEach((line) => console.log(`  ${label} ${line}`));
    }
  }
}

main().catch((error: Error) => {
  console.error(error.stack);
  process.exitCode = 1;
});
