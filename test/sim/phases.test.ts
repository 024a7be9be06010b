/**
 * The simulator reports each scenario's phases as the harness does
 * (run.py): before, fault and after the fault, with s08's fault phase
 * ending at its scale-down, 5 s before the timeline's (the harness's
 * (20, 55]), and s11's clients restarted at a third of the window (30 s of
 * 90), not halfway through the fault phase.
 */
import { executeRun } from '../../scripts/sim/execute';
import { Timeline } from '../../scripts/sim/timeline';

const TIMELINE: Timeline = { warmupMs: 1_000, measureS: 18, faultStartS: 4, faultEndS: 12 };

const calls = (summary: { okCalls: number; failedCalls: number }) => summary.okCalls + summary.failedCalls;

describe('phases as the harness reports them', () => {
  it('s08: the fault phase ends at the scale-down (faultEnd − 5 s), and the window is still every call', () => {
    const [result] = executeRun({ scenario: 's08-scale-up-down', groups: [{ policy: 'round_robin', clients: 2 }], seed: 1, timeline: TIMELINE }).groups;
    const { before, fault, after, window } = result.phases;
    expect(calls(before) + calls(fault) + calls(after)).toBe(calls(window));
    // An open loop at a fixed rate: each phase's calls follow its length, 4 s, 3 s and 11 s (was 4, 8, 6).
    const perSecond = calls(window) / TIMELINE.measureS;
    expect(calls(fault) / perSecond).toBeCloseTo(3, 0);
    expect(calls(after) / perSecond).toBeCloseTo(11, 0);
  });

  it('s03 keeps the timeline\'s fault phase', () => {
    const [result] = executeRun({ scenario: 's03-brownout', groups: [{ policy: 'round_robin', clients: 2 }], seed: 1, timeline: TIMELINE }).groups;
    const perSecond = calls(result.phases.window) / TIMELINE.measureS;
    expect(calls(result.phases.fault) / perSecond).toBeCloseTo(8, 0);
  });
});
