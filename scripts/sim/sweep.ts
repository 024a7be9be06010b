/**
 * Tuning sweep: each candidate peak_ewma config over several seeds, scored
 * against the targets (docs/tuning.md). Reference layout s01–s04,
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
import { PolicyResult } from './results';
import { runAll } from './pool';
import { scenarioByName } from './scenarios';
import { planSuite, PlannedRun } from './suite';

const { values, positionals } = parseArgs({
  options: { seeds: { type: 'string', default: '3' }, jobs: { type: 'string' }, quick: { type: 'boolean', default: false }, 'per-seed': { type: 'boolean', default: false }, 'first-seed': { type: 'string', default: '1' } },
  allowPositionals: true,
});
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + Number(values['first-seed']));

async function main(): Promise<void> {
  const reference = ['s01', 's02', 's03', 's04', 's10'].map(scenarioByName);
  const uniform = ['s01', 's02', 's10'].map(scenarioByName);
  const runs: Array<PlannedRun & { candidate: string; seed: number }> = [];
  for (const candidate of positionals) {
    for (const seed of seeds) {
      for (const run of planSuite({ scenarios: reference, layouts: ['reference'], seed, quick: values.quick, policyUnderTest: candidate, grid: false, scale: false })) {
        runs.push({ ...run, candidate, seed });
      }
      for (const run of planSuite({ scenarios: uniform, layouts: ['uniform'], seed, quick: values.quick, policyUnderTest: candidate, uniformPolicies: ['peak_ewma'], grid: false, scale: false })) {
        runs.push({ ...run, candidate, seed });
      }
    }
  }
  const results = await runAll(runs.map((r) => r.spec), { jobs: values.jobs ? Number(values.jobs) : undefined });
  const get = (candidate: string, seed: number, kind: string, scenario: string, policy?: string): PolicyResult => {
    const i = runs.findIndex((r) => r.candidate === candidate && r.seed === seed && r.kind === kind && r.key.startsWith(scenario));
    const groups = results[i].groups;
    return policy === undefined ? groups[kind === 'reference' ? 1 : 0] : groups.find((g) => g.policy === policy)!;
  };
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log('candidate | ref s01 s10 s03 (p99/s02) | s01 p99.9/lr_od | recovery s03 s04 s10 (worst) | s04 err | uni s01 s10 p99 | uni s01 s10 p99All | s02 busiest');
  for (const candidate of positionals) {
    const per = (f: (seed: number) => number): number => mean(seeds.map(f));
    const worst = (f: (seed: number) => number | null): string =>
      `${per((s) => f(s) ?? 99).toFixed(1)}(${Math.max(...seeds.map((s) => f(s) ?? 99))})`;
    const ratio = (kind: string, scenario: string, key: 'p99' | 'p99All' = 'p99') => (seed: number) =>
      get(candidate, seed, kind, scenario)[key] / get(candidate, seed, kind, 's02')[key];
    const label = candidate.split('=')[0];
    console.log(
      [
        label.padEnd(8),
        [ratio('reference', 's01'), ratio('reference', 's10'), ratio('reference', 's03')].map((f) => per(f).toFixed(3)).join(' '),
        per((s) => get(candidate, s, 'reference', 's01').p999 / get(candidate, s, 'reference', 's01', 'lr_od').p999).toFixed(2),
        ['s03', 's04', 's10'].map((sc) => worst((s) => get(candidate, s, 'reference', sc).recoverySeconds)).join(' '),
        (per((s) => get(candidate, s, 'reference', 's04').errorRate) * 100).toFixed(3) + '%',
        [ratio('uniform', 's01'), ratio('uniform', 's10')].map((f) => per(f).toFixed(3)).join(' '),
        [ratio('uniform', 's01', 'p99All'), ratio('uniform', 's10', 'p99All')].map((f) => per(f).toFixed(3)).join(' '),
        per((s) => get(candidate, s, 'uniform', 's02').busiestHealthy.p95).toFixed(2),
      ].join(' | '),
    );
    if (values['per-seed']) {
      for (const sc of ['s03', 's04', 's10']) {
        console.log(`  ${label} recovery ${sc} by seed: ${seeds.map((s) => get(candidate, s, 'reference', sc).recoverySeconds ?? '–').join(' ')}`);
      }
    }
  }
}

main().catch((error: Error) => {
  console.error(error.stack);
  process.exitCode = 1;
});
