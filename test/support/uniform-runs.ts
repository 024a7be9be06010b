/**
 * A scenario at reduced length (30 s measured after 5 s of warm-up), seed 1,
 * uniform layout, each policy alone on the fleet: the simulator's result
 * group of each, by policy name. For tests that pin a scenario's ordering.
 */
import { executeRun } from '../../scripts/sim/execute';
import { RunResult } from '../../scripts/sim/results';
import { scenarioByName } from '../../scripts/sim/scenarios';
import { planSuite } from '../../scripts/sim/suite';
import { Timeline } from '../../scripts/sim/timeline';

export type ResultGroup = RunResult['groups'][number];

const TEST_TIMELINE: Timeline = { warmupMs: 5_000, measureS: 30, faultStartS: 5, faultEndS: 20 };

export function uniformGroupsByPolicy(scenario: string, policies: readonly string[]): Record<string, ResultGroup> {
  const runs = planSuite({
    scenarios: [scenarioByName(scenario)],
    layouts: ['uniform'],
    uniformPolicies: [...policies],
    seed: 1,
    quick: true,
    grid: false,
    scale: false,
  });
  return Object.fromEntries(runs.map((run) => executeRun({ ...run.spec, timeline: TEST_TIMELINE }).groups[0]).map((group) => [group.policy, group]));
}
