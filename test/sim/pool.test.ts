/**
 * The simulator's worker pool (scripts/sim/pool.ts): runs in worker threads
 * from a bundle it writes per process, the same results as in-process, and
 * no bundle left behind. Until 2026-12-05 only `npm run simulate` removed it
 * (at exit), so every sweep and judge left ~150 KB in node_modules/.cache.
 */
import { existsSync } from 'node:fs';
import { executeRun } from '../../scripts/sim/execute';
import { bundlePath, runAll } from '../../scripts/sim/pool';
import { RunResult } from '../../scripts/sim/results';
import { scenarioByName } from '../../scripts/sim/scenarios';
import { planSuite } from '../../scripts/sim/suite';
import { Timeline } from '../../scripts/sim/timeline';

const SHORT: Timeline = { warmupMs: 1_000, measureS: 4, faultStartS: 1, faultEndS: 3 };

describe('the worker pool', () => {
  it('runs each spec in a worker as it would run in-process, and removes its bundle when done', async () => {
    const specs = planSuite({ scenarios: [scenarioByName('s02'), scenarioByName('s03')], layouts: ['uniform'], uniformPolicies: ['round_robin'], seed: 1, quick: true, grid: false, scale: false }).map(
      (run) => ({ ...run.spec, timeline: SHORT }),
    );
    const bundle = bundlePath();
    const seenWhileRunning: boolean[] = [];
    const results = await runAll(specs, { jobs: 2, onDone: () => seenWhileRunning.push(existsSync(bundle)) });
    // The path checked is the pool's: the bundle was there while the workers ran...
    expect(seenWhileRunning).toEqual([true, true]);
    // ...and is gone after.
    expect(existsSync(bundle)).toBe(false);
    expect(results.map((result) => result.scenario)).toEqual(specs.map((spec) => scenarioByName(spec.scenario).name));
    // Whole results, every field but the wall-clock time the run took.
    const withoutWall = ({ wallMs: _wall, ...rest }: RunResult) => rest;
    expect(results.map(withoutWall)).toEqual(specs.map((spec) => withoutWall(executeRun(spec))));
  }, 60_000);
});
