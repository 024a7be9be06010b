/**
 * The simulator at reduced length (5 s warm-up + 30 s, faults over 5–20 s,
 * full 20-backend fleet and 8 clients), in the reference layout: round_robin,
 * peak_ewma (the product's defaults), least_request and least_request +
 * outlier_detection sharing one fleet. What must hold:
 * - an identical fleet leaves nothing to balance: every policy within 5 %;
 * - peak_ewma has the lowest p99 of the non-oracle policies in s01, s03, s10;
 * - the same seed gives the same numbers, to the last digit.
 */
import { executeRun } from '../../scripts/sim/execute';
import { RunResult } from '../../scripts/sim/results';
import { scenarioByName } from '../../scripts/sim/scenarios';
import { planSuite } from '../../scripts/sim/suite';
import { Timeline } from '../../scripts/sim/timeline';

const TEST_TIMELINE: Timeline = { warmupMs: 5_000, measureS: 30, faultStartS: 5, faultEndS: 20 };

function referenceRun(scenario: string, seed = 1): RunResult {
  const [run] = planSuite({
    scenarios: [scenarioByName(scenario)],
    layouts: ['reference'],
    seed,
    quick: true,
    grid: false,
    scale: false,
  });
  return executeRun({ ...run.spec, timeline: TEST_TIMELINE });
}

const p99Of = (result: RunResult): Record<string, number> =>
  Object.fromEntries(result.groups.map((group) => [group.policy, group.p99]));

describe('simulator (reduced reference layout)', () => {
  it('s02 identical pods: every policy within 5 % of the others', () => {
    const p99 = Object.values(p99Of(referenceRun('s02')));
    expect(p99).toHaveLength(4);
    expect(Math.max(...p99) / Math.min(...p99)).toBeLessThan(1.05);
  });

  it.each(['s01', 's03', 's10'])('%s: peak_ewma has the lowest p99 of round_robin, least_request, lr_od', (scenario) => {
    const p99 = p99Of(referenceRun(scenario));
    for (const baseline of ['round_robin', 'least_request', 'lr_od']) {
      expect({ baseline, peak: p99.peak_ewma < p99[baseline] }).toEqual({ baseline, peak: true });
    }
  });

  it('same seed, same numbers; another seed, other numbers', () => {
    const short: Timeline = { warmupMs: 2_000, measureS: 6, faultStartS: 2, faultEndS: 4 };
    const spec = {
      scenario: 's03-brownout',
      groups: [
        { policy: 'peak_ewma', clients: 2 },
        { policy: 'lr_od', clients: 2 },
      ],
      seed: 7,
      timeline: short,
    };
    const strip = ({ wallMs: _w, ...rest }: RunResult) => rest;
    const first = strip(executeRun(spec));
    expect(strip(executeRun(spec))).toEqual(first);
    expect(strip(executeRun({ ...spec, seed: 8 }))).not.toEqual(first);
    expect(first.calls).toBeGreaterThan(20_000);
  });
});

describe('simulator arrivals', () => {
  const short: Timeline = { warmupMs: 2_000, measureS: 10, faultStartS: 2, faultEndS: 4 };
  const spec = (arrivals: 'fixed' | 'poisson') => ({
    scenario: 's02-steady-identical',
    groups: [{ policy: 'round_robin', clients: 8 }],
    seed: 3,
    timeline: short,
    arrivals,
  });

  it('poisson keeps the rate (same calls within 2 %) but changes the spacing, hence the numbers', () => {
    const fixed = executeRun(spec('fixed'));
    const poisson = executeRun(spec('poisson'));
    expect(Math.abs(poisson.calls / fixed.calls - 1)).toBeLessThan(0.02);
    expect(poisson.calls).not.toBe(fixed.calls);
    expect(poisson.groups[0].p99).not.toBe(fixed.groups[0].p99);
    // Fixed spacing is not what puts round_robin ahead in identical fleets:
    // with exponential gaps its p99 stays within 1 % (docs/simulation.md).
    expect(Math.abs(poisson.groups[0].p99 / fixed.groups[0].p99 - 1)).toBeLessThan(0.01);
  });
});
