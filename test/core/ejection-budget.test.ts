/**
 * The ejection budget (`maxEjectionPercent` P, src/core/ejection-budget.ts):
 * of n READY endpoints at most max(1, ⌊P·n/100⌋) are ejected at once, the
 * slowest by the ejection signal; the others over the line are weighed by
 * their cost like any endpoint. Why: an ejected endpoint's calls go to the
 * rest, which a small or busy fleet cannot carry (docs/tuning-log.md §39).
 * The fleets here are six: one of at most five is judged against the
 * median of its means instead of F (small-fleet.ts, its own tests).
 */
import { LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';
import { ejectionBudget } from '../../src/core/ejection-budget';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { ejectedOf, fleetWithMeans } from '../support/mean-fleet';

const FLEET_MS = 10;

/** Today's defaults (the mean signal, the line at 1.5 × F) with a budget of one in five (P = 20), and `overrides`. */
function settingsWith(overrides: Partial<PeakEwmaSettings> = {}): PeakEwmaSettings {
  return { ...PEAK_EWMA_DEFAULTS, maxEjectionPercent: 20, ...overrides };
}

/** A model whose fleet average is 10 ms, and endpoints whose mean answers are `meansMs`, all fresh at t = 0. */
const fleetOf = (settings: PeakEwmaSettings, meansMs: number[]) => fleetWithMeans(settings, meansMs, FLEET_MS);

describe('the ejection budget', () => {
  it('is P % of the endpoints, rounded down, and never less than one', () => {
    expect(ejectionBudget(20, 40)).toBe(8); // the default: above the simulator's 6 slow pods of 20
    expect(ejectionBudget(5, 40)).toBe(2);
    expect(ejectionBudget(3, 40)).toBe(1);
    expect(ejectionBudget(20, 30)).toBe(6);
    expect(ejectionBudget(10, 30)).toBe(3);
    expect(ejectionBudget(5, 30)).toBe(1);
    expect(ejectionBudget(3, 30)).toBe(1); // a fleet of three can still put out its slow pod
    expect(ejectionBudget(2, 0)).toBe(1);
    expect(ejectionBudget(50, 30)).toBe(15);
    expect(ejectionBudget(7, 100)).toBe(7);
  });

  it('keeps the slowest out and weighs the rest by their cost, where without it every endpoint over the line is out', () => {
    // Line 1.5 × 10 ms: 16, 20 and 30 ms are over it; a budget of 20 % of 6 is one endpoint.
    const means = [10, 10, 10, 16, 20, 30];
    const budgeted = fleetOf(settingsWith(), means);
    budgeted.model.beforePick(budgeted.loads, 0);
    expect(ejectedOf(budgeted.model, budgeted.loads)).toEqual([false, false, false, false, false, true]);

    const unbounded = fleetOf(settingsWith({ maxEjectionPercent: 100 }), means);
    unbounded.model.beforePick(unbounded.loads, 0);
    expect(ejectedOf(unbounded.model, unbounded.loads)).toEqual([false, false, false, true, true, true]);

    // With room in the budget the line is R itself: 60 % of 6 is three.
    const roomy = fleetOf(settingsWith({ maxEjectionPercent: 60 }), means);
    roomy.model.beforePick(roomy.loads, 0);
    expect(ejectedOf(roomy.model, roomy.loads)).toEqual([false, false, false, true, true, true]);

    // The default, 40 % of 6: the two slowest.
    const byDefault = fleetOf({ ...PEAK_EWMA_DEFAULTS }, means);
    byDefault.model.beforePick(byDefault.loads, 0);
    expect(ejectedOf(byDefault.model, byDefault.loads)).toEqual([false, false, false, false, true, true]);
  });

  it('reports its line in ms and its k for the stats: the raised line while it binds, R × F while not, null with no budget or before a ranking', () => {
    const means = [10, 10, 10, 16, 20, 30];
    const budgeted = fleetOf(settingsWith(), means);
    expect(budgeted.model.maxEjected).toBeNull(); // no pick yet: no READY count to take P % of
    expect(budgeted.model.ejectionLineMs).toBe(1.5 * FLEET_MS);
    budgeted.model.beforePick(budgeted.loads, 0);
    expect(budgeted.model.maxEjected).toBe(1);
    expect(budgeted.model.ejectionLineMs).toBe(20); // the second slowest's mean: 2 × F

    const roomy = fleetOf(settingsWith({ maxEjectionPercent: 60 }), means);
    roomy.model.beforePick(roomy.loads, 0);
    expect(roomy.model.maxEjected).toBe(3);
    expect(roomy.model.ejectionLineMs).toBe(1.5 * FLEET_MS);

    const unbounded = fleetOf(settingsWith({ maxEjectionPercent: 100 }), means);
    unbounded.model.beforePick(unbounded.loads, 0);
    expect(unbounded.model.maxEjected).toBeNull();
    expect(unbounded.model.ejectionLineMs).toBe(1.5 * FLEET_MS);

    const off = fleetOf(settingsWith({ ejectionRatio: 0 }), means);
    off.model.beforePick(off.loads, 0);
    expect([off.model.maxEjected, off.model.ejectionLineMs]).toEqual([null, null]);
    expect(new PeakEwmaModel(settingsWith()).ejectionLineMs).toBeNull(); // no fleet average yet
  });

  it('sets the line on the first one let in: until the next ranking it is out while its ratio is above where it was ranked', () => {
    const { model, loads } = fleetOf(settingsWith(), [10, 10, 10, 16, 20, 30]);
    model.beforePick(loads, 0);
    // Faster answers pull F down 10 % (10 → 9 ms): 20 ms is now 2.2 × F, over the line it was
    // ranked on (2 × F), so it is out with the slowest; 16 ms (1.8 × F) is still under it.
    for (let t = 1; t <= 60; t++) model.fleet.record(8.9, t, PEAK_EWMA_DEFAULTS.decayMs);
    expect(model.fleet.rttMs).toBeLessThan(9.1);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, true, true]);
    // The next ranking puts it back on the line.
    for (let pick = 0; pick < loads.length; pick++) model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, false, true]);
  });

  it('is ranked again every n picks, and at once when the READY count changes', () => {
    const { model, loads } = fleetOf(settingsWith(), [10, 10, 10, 16, 20, 30]);
    model.beforePick(loads, 0);
    // The slowest heals; until the next ranking the line stays where it was (2 × F), so 20 ms stays in.
    loads[5].meanRttMs = 10;
    for (let pick = 1; pick < loads.length; pick++) {
      model.beforePick(loads, 0);
      expect(ejectedOf(model, loads)).toEqual([false, false, false, false, false, false]);
    }
    // The n-th pick after the ranking ranks again: now 20 ms is the slowest, and out.
    model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, true, false]);

    // One endpoint leaves READY: the next pick ranks the five at once. The
    // line standing since the last ranking is 16's ratio, 1.6 × F = 16 ms,
    // which would put out both 20 and 40 ms; ranked again, the budget's one
    // goes to 40 and the line rises to the next slowest's ratio, 20 ms.
    loads[3].meanRttMs = 20;
    loads[5].meanRttMs = 40;
    const five = [loads[0], loads[1], loads[2], loads[3], loads[5]];
    model.beforePick(five, 0);
    // (Five is a small fleet, judged against the median of its means, small-fleet.ts: 10 ms here, as F.)
    expect(ejectedOf(model, five)).toEqual([false, false, false, false, true]);
    expect(model.ejectionLineMs).toBe(20);
  });

  it('keeps k out when the slowest tie at its edge: the first of the tied in the READY list, while over R', () => {
    // Ten endpoints (more than five: judged against F), F = 10 ms; five answer at exactly
    // 30 ms, as pods that all time out at one deadline do. The default budget is 40 % of
    // 10, four. No line between ratios parts equal ones: the line on their ratio let
    // all five in, 50 % of the calls to the slow pods instead of the one at the edge.
    const { model, loads } = fleetWithMeans({ ...PEAK_EWMA_DEFAULTS }, [10, 30, 10, 30, 30, 10, 30, 10, 30, 10], FLEET_MS);
    model.beforePick(loads, 0);
    expect(model.maxEjected).toBe(4);
    expect(ejectedOf(model, loads)).toEqual([false, true, false, true, true, false, true, false, false, false]);
    // Ties under a slower one: 40 ms is over the line; three of the four at 30 ms make up the four.
    const under = fleetWithMeans({ ...PEAK_EWMA_DEFAULTS }, [30, 40, 30, 10, 30, 10, 10, 30, 10, 10], FLEET_MS);
    under.model.beforePick(under.loads, 0);
    expect(ejectedOf(under.model, under.loads)).toEqual([true, true, true, false, true, false, false, false, false, false]);
    // Held out while over R × F: one that heals (its mean 12 ms, under 15) is back in at once,
    // before the next ranking, as any endpoint under the line is.
    loads[1].meanRttMs = 12;
    expect(ejectedOf(model, loads)[1]).toBe(false);
    // The next ranking names the tied afresh: four of the four left at 30 ms, so all of them.
    for (let pick = 0; pick < loads.length; pick++) model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, true, true, false, true, false, true, false]);
  });

  it('judges in units of the base, as it ranks: a fleet average that does not divide the means evenly puts no more out', () => {
    // (s / F) × F rounds below s for these: judged in ms, the endpoints ranked on the line read as over it.
    for (const [fleetMs, slowMs] of [[10, 21.3], [11, 30]]) {
      const means = [fleetMs, slowMs, fleetMs, slowMs, slowMs, fleetMs, slowMs, fleetMs, slowMs, fleetMs];
      const { model, loads } = fleetWithMeans({ ...PEAK_EWMA_DEFAULTS }, means, fleetMs);
      model.beforePick(loads, 0);
      expect(ejectedOf(model, loads).filter(Boolean)).toHaveLength(4);
    }
    // No tie: four at 40 ms and the edge endpoint at 30 ms, F 11 ms: the four out, the edge in (it was out).
    const { model, loads } = fleetWithMeans({ ...PEAK_EWMA_DEFAULTS }, [11, 40, 11, 40, 40, 11, 40, 11, 30, 11], 11);
    model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, true, false, true, true, false, true, false, false, false]);
  });

  it('is ranked again at the next pick after new settings, not up to n picks later', () => {
    const means = [10, 10, 10, 16, 20, 30];
    const { model, loads } = fleetOf(settingsWith(), means); // P 20: one of six out, the line on 20 ms
    model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, false, true]);
    // A config update to P 40 (two of six): the next pick ranks under it at once.
    model.settings = settingsWith({ maxEjectionPercent: 40 });
    model.beforePick(loads, 0);
    expect(model.maxEjected).toBe(2);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, true, true]);
    // The budget off and on again (P 20): the line of the P 40 ranking does not come back with it.
    model.settings = settingsWith({ maxEjectionPercent: 100 });
    model.beforePick(loads, 0);
    model.settings = settingsWith();
    model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, false, true]);
  });

  it('is not spent on an endpoint that is stale, which is never ejected (it is due a probe)', () => {
    const settings = settingsWith();
    const { model, loads } = fleetOf(settings, [10, 10, 10, 16, 20, 30]);
    // The 30 ms endpoint has not answered for longer than maxEjectionTime: stale.
    const nowMs = settings.maxEjectionMs! + 1;
    for (const load of loads.slice(0, 5)) load.sampledAtMs = nowMs;
    model.traffic.setReadyEndpoints(loads.length);
    model.traffic.callsStarted = 1_000; // 1,000 calls among the six since the stale one's answer
    for (const load of loads.slice(0, 5)) load.sampledAtCall = 1_000;
    model.beforePick(loads, nowMs);
    expect(loads.map((load) => model.ejected(load, nowMs))).toEqual([false, false, false, false, true, false]);
  });

  it('is ranked by the engine before its picks', () => {
    const { model, loads } = fleetOf(settingsWith(), [10, 10, 10, 16, 20, 30]);
    // Before any pick nothing is ranked, and the line is R: three out.
    expect(ejectedOf(model, loads)).toEqual([false, false, false, true, true, true]);
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: new ManualClock().now, random: seededRandom(1) });
    engine.pick(loads);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, false, true]);
  });

  it('leaves the textbook alone: without ejection there is no line to raise', () => {
    const { model, loads } = fleetOf(settingsWith({ ejectionRatio: 0 }), [10, 10, 10, 16, 20, 30]);
    model.beforePick(loads, 0);
    expect(ejectedOf(model, loads)).toEqual([false, false, false, false, false, false]);
  });
});
