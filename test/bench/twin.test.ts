/**
 * The simulator's twin of a uniform load-test run (scripts/bench/twin.ts):
 * the spec it builds from a saved result, and, on the saved s18 runs of
 * 2026-12-07 (docs/tuning-log.md §72), that real gRPC and the model agree
 * where the load test's lost patch had made them disagree: least_request
 * fails calls in both, peak_ewma's fault phase is the slow newcomers' tail
 * in both, and the newcomers serve the same share.
 */
import { readFileSync } from 'fs';
import path from 'path';
import type { ScenarioResult } from '../../scripts/bench/loadtest';
import { formatTwin, hasTwin, twinsOf, twinSpec } from '../../scripts/bench/twin';

const saved = (name: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '../../docs/benchmarks', name), 'utf8')) as { options: { seed: number }; load: ScenarioResult[] };

describe('the twin of a load-test run', () => {
  const eightSlots = saved('s18-measured-8-slots-2026-12-07.json');
  const windowOff = saved('s18-measured-2-slots-window-0s-2026-12-07.json');

  it("runs the run's scenario, timeline, slots, clients, policy and peak_ewma config", () => {
    const [run] = windowOff.load;
    const spec = twinSpec(run, run.policies[0], windowOff.options.seed);
    expect(spec).toEqual({
      scenario: 's18-slow-scale-out',
      groups: [{ policy: 'peak_ewma{"slowStartWindow":"0s"}', clients: 8 }],
      seed: 1,
      timeline: { warmupMs: 5000, measureS: 30, faultStartS: 7, faultEndS: 20 },
      slots: 2,
    });
  });

  it("gives s08 back the fault phase its result reports 5 s short, and a smaller fleet its size", () => {
    const [run] = eightSlots.load;
    const s08: ScenarioResult = { ...run, scenario: 's08', timeline: { ...run.timeline, faultEndS: 15 }, backendCount: 6 };
    const spec = twinSpec(s08, run.policies[0], 3);
    expect(spec.timeline.faultEndS).toBe(20);
    expect(spec.backends).toBe(6);
    expect(spec.seed).toBe(3);
  });

  it('refuses what the simulator cannot run: the reference layout, a policy it does not model, clients that retry', () => {
    const [run] = eightSlots.load;
    expect(hasTwin(run)).toBe(true);
    expect(() => twinSpec({ ...run, layout: 'reference' }, run.policies[0], 1)).toThrow(/only a uniform run/);
    expect(hasTwin({ ...run, layout: 'reference' })).toBe(false);
    expect(() => twinSpec(run, { ...run.policies[0], policy: 'wrr_orca' }, 1)).toThrow(/no wrr_orca/);
    expect(() => twinSpec({ ...run, retryAttempts: 2 }, run.policies[0], 1)).toThrow(/retried \(--retry-attempts 2\)/);
    expect(hasTwin({ ...run, retryAttempts: 2 })).toBe(false);
    expect(hasTwin({ ...run, scenario: 'm2' })).toBe(false);
  });

  it('agrees with the real s18 at 8 slots: least_request fails calls, peak_ewma reads the newcomers\' tail, the same share', () => {
    const twins = twinsOf(eightSlots.load[0], eightSlots.options.seed).concat(twinsOf(eightSlots.load[1], eightSlots.options.seed));
    const byPolicy = new Map(twins.map((twin) => [twin.policy, twin]));
    const fault = (policy: string) => byPolicy.get(policy)!.phases.find((row) => row.phase === 'fault')!;
    // least_request at its deadline in both, each failing 1–3 % of the phase's calls.
    expect(fault('least_request').realErrorRate).toBeGreaterThan(0.01);
    expect(fault('least_request').simErrorRate).toBeGreaterThan(0.01);
    // peak_ewma: the newcomers' ~100 ms in both (22 ms with their slowness lost), within 15 % of each other.
    const pe = fault('peak_ewma');
    expect(pe.realP99AllMs).toBeGreaterThan(80);
    expect(Math.abs(pe.simP99AllMs - pe.realP99AllMs) / pe.realP99AllMs).toBeLessThan(0.15);
    const share = byPolicy.get('peak_ewma')!.joinedShare!;
    expect(Math.abs(share.sim - share.real)).toBeLessThan(0.005);
    expect(formatTwin(byPolicy.get('peak_ewma')!)).toMatch(/^s18 peak_ewma, 8 clients, 8 slots/);
  });
});
