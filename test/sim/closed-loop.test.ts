/**
 * Closed-loop clients (scripts/sim/closed-loop.ts): callers that wait for
 * each answer. What must hold: the think time gives the open loop's rate at
 * the mean service time; a caller never has two calls out; slow answers
 * mean fewer calls (the feedback an open loop lacks); a bad setting is
 * refused, naming it; and the open loop is not touched.
 */
import { exponentialMs as thinkTimeMs } from '../../scripts/sim/arrivals';
import { planClosedLoop } from '../../scripts/sim/closed-loop';
import { executeRun } from '../../scripts/sim/execute';
import { planRegimes } from '../../scripts/sim/regimes';
import { Timeline } from '../../scripts/sim/timeline';
import { RunSpec, runSimulation } from '../../scripts/sim/world';

const SHORT: Timeline = { warmupMs: 2_000, measureS: 10, faultStartS: 2, faultEndS: 4 };

describe('planClosedLoop: callers and think time', () => {
  it('offers the rate at the mean service time: workers / (S + Z) = R', () => {
    for (const [rateRps, serviceMs, workers] of [[167, 12, undefined], [1150, 12, undefined], [18, 12, undefined], [100, 5, 3]] as const) {
      const plan = planClosedLoop(rateRps, serviceMs, workers);
      expect(plan.thinkMs).toBeGreaterThanOrEqual(0);
      expect((plan.workers * 1000) / (serviceMs + plan.thinkMs)).toBeCloseTo(rateRps, 9);
    }
  });

  it('by default runs the fewest callers that can offer the rate back to back', () => {
    // 167 calls/s at 12 ms: one caller sends at most 83/s, two 167/s.
    expect(planClosedLoop(167, 12).workers).toBe(3);
    expect(planClosedLoop(166, 12).workers).toBe(2);
    expect(planClosedLoop(18, 12)).toEqual({ workers: 1, thinkMs: 1000 / 18 - 12 });
  });

  it('with too few callers for the rate they send back to back (think 0)', () => {
    expect(planClosedLoop(1000, 12, 2)).toEqual({ workers: 2, thinkMs: 0 });
  });

  it('refuses what it cannot run, naming it', () => {
    expect(() => planClosedLoop(100, 12, 0)).toThrow(/workers must be an integer >= 1, got 0/);
    expect(() => planClosedLoop(100, 12, 1.5)).toThrow(/workers must be an integer >= 1/);
    expect(() => planClosedLoop(0, 12)).toThrow(/rate \(0 calls\/s\).*must be > 0/);
    expect(() => planClosedLoop(100, NaN)).toThrow(/mean service time \(NaN ms\)/);
  });

  it('thinks for an exponential time of the mean (and not at all for a mean of 0)', () => {
    expect(thinkTimeMs(4, 0) === 0).toBe(true); // (-0: a sign with no meaning here)
    expect(thinkTimeMs(4, 1 - Math.exp(-1))).toBeCloseTo(4, 12);
    expect(thinkTimeMs(0, 0.7)).toBe(0);
    // The mean over a fine grid of draws is the mean.
    const draws = 100_000;
    let sum = 0;
    for (let i = 0; i < draws; i++) sum += thinkTimeMs(4, (i + 0.5) / draws);
    expect(sum / draws).toBeCloseTo(4, 1);
  });
});

describe('the simulator with closed-loop clients', () => {
  const spec = (overrides: Partial<RunSpec>): RunSpec => ({
    scenario: 's02-steady-identical',
    groups: [{ policy: 'round_robin', clients: 8 }],
    seed: 3,
    timeline: SHORT,
    arrivals: 'closed',
    ...overrides,
  });

  it('never has more calls of a client out than its callers, and does reach that many', () => {
    for (const workers of [1, 3]) {
      const run = runSimulation(spec({ workers, slots: 1, scenario: 's01-steady-uneven' }));
      expect(run.closedLoop?.workers).toBe(workers);
      expect(run.closedLoop?.maxInFlight).toBe(workers);
    }
  });

  it('offers about the open loop rate where answers take about the mean service time', () => {
    // 8 slots at 70 %: calls rarely queue, so answers take about S.
    const open = executeRun(spec({ arrivals: 'fixed' }));
    const closed = executeRun(spec({}));
    expect(closed.closedLoop?.thinkMs).toBeGreaterThan(0);
    expect(Math.abs(closed.calls / open.calls - 1)).toBeLessThan(0.05);
  });

  it('sends fewer calls when answers are slow: callers wait on the slow pods', () => {
    // round_robin keeps sending the uneven fleet's slow pods their share; a caller waiting there sends nothing else.
    const uneven = { scenario: 's01-steady-uneven', slots: 1 };
    const open = executeRun(spec({ ...uneven, arrivals: 'fixed' }));
    const closed = executeRun(spec(uneven));
    expect(closed.calls).toBeLessThan(0.7 * open.calls);
    expect(closed.groups[0].goodputRps).toBeLessThan(0.7 * open.groups[0].goodputRps);
  });

  it('is deterministic by seed', () => {
    const strip = ({ wallMs: _wallMs, ...rest }: ReturnType<typeof executeRun>) => rest;
    const first = strip(executeRun(spec({ slots: 2 })));
    expect(strip(executeRun(spec({ slots: 2 })))).toEqual(first);
    expect(strip(executeRun(spec({ slots: 2, seed: 4 })))).not.toEqual(first);
  });

  it('refuses callers for an open loop', () => {
    expect(() => runSimulation(spec({ arrivals: 'poisson', workers: 2 }))).toThrow(/workers \(2\) is for closed-loop arrivals only, got arrivals "poisson"/);
    expect(() => runSimulation(spec({ arrivals: undefined, workers: 2 }))).toThrow(/got arrivals "fixed"/);
  });

  it('reaches every run of the regime grid, callers too', () => {
    const runs = planRegimes({ seed: 1, timeline: SHORT, slots: [1, 8], clients: [8], scenarios: ['s02'], policies: ['round_robin'], arrivals: 'closed', workers: 2 });
    expect(runs.map((run) => [run.spec.arrivals, run.spec.workers])).toEqual([['closed', 2], ['closed', 2]]);
  });
});
