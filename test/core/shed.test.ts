/**
 * A shed call (CallOutcome.SHED: the server's RESOURCE_EXHAUSTED, "full
 * now") ejects the endpoint, with ejection on, until its probe or for T at
 * most, and until it answers a call sent after it (shed.ts); any other
 * failure is left to the error penalty and the rotation's gate. Why: a
 * two-choice draw of two endpoints that shed must take one of them however
 * high both are priced (docs/tuning-log.md §49).
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

const DEFAULTS = new PeakEwmaLoadBalancingConfig().settings; // T 1 s, τ 2 s, the budget 40 %

/** Six endpoints that answered 10 ms twenty times each, picked among once (READY 6); then the last three end a call with `outcome`. */
function fleetAfter(outcome: CallOutcome, settings: PeakEwmaSettings = DEFAULTS) {
  const clock = new ManualClock(1_000);
  const model = new PeakEwmaModel(settings);
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(5) });
  const loads = Array.from({ length: 6 }, () => new EndpointLoad());
  /** A call to `load` that ends after `ms` with `ending`. */
  const call = (load: EndpointLoad, ms: number, ending = CallOutcome.SUCCESS): void => {
    const start = engine.callStarted(load);
    clock.advance(ms);
    engine.callEnded(load, ending, start);
  };
  engine.pick(loads);
  for (let i = 0; i < 20; i++) {
    loads.forEach((load) => call(load, 10));
  }
  loads.slice(3).forEach((load) => call(load, 1, outcome));
  const ejected = (): boolean[] => loads.map((load) => model.ejected(load, clock.now()));
  /** `picks` picks, each answered at once by the healthy endpoint picked; how many went to the last three. */
  const picksToLastThree = (picks: number): number => {
    let toThem = 0;
    for (let i = 0; i < picks; i++) {
      const chosen = engine.pick(loads);
      if (chosen >= 3) {
        toThem++;
      } else {
        call(loads[chosen], 1);
      }
    }
    return toThem;
  };
  return { clock, engine, model, loads, call, ejected, picksToLastThree };
}

describe('a shed call (RESOURCE_EXHAUSTED)', () => {
  it('ejects the endpoint, where another failure does not; both count as failures alike otherwise', () => {
    const shed = fleetAfter(CallOutcome.SHED);
    const failed = fleetAfter(CallOutcome.FAILURE);
    expect(shed.ejected()).toEqual([false, false, false, true, true, true]);
    expect(failed.ejected()).toEqual([false, false, false, false, false, false]);
    expect(shed.loads[3].consecutiveFailures).toBe(1);
    expect(failed.loads[3].consecutiveFailures).toBe(1);
  });

  it('takes the shedding endpoints out of the draws, beyond the budget (two of six): they would refuse the calls', () => {
    const shed = fleetAfter(CallOutcome.SHED);
    expect(shed.model.maxEjected).toBe(2);
    // 60 picks within T; a third of two-choice draws land both candidates on the last three.
    expect(shed.picksToLastThree(60)).toBe(0);
    expect(fleetAfter(CallOutcome.FAILURE).picksToLastThree(60)).toBeGreaterThan(0);
  });

  it('holds until the endpoint is stale, so that it is probed: past T and past its fair shares', () => {
    const { clock, loads, call, ejected } = fleetAfter(CallOutcome.SHED);
    // Past T with few calls since: not yet due its probe (an error's first waits 2K fair shares, 120 calls of six).
    clock.advance(DEFAULTS.maxEjectionMs! + 10);
    for (let i = 0; i < 10; i++) {
      loads.slice(0, 3).forEach((load) => call(load, 1));
    }
    expect(ejected().slice(3)).toEqual([true, true, true]);
    // And once enough calls have gone elsewhere, stale: in, for its probe.
    for (let i = 0; i < 60; i++) {
      loads.slice(0, 3).forEach((load) => call(load, 1));
    }
    expect(ejected().slice(3)).toEqual([false, false, false]);
  });

  it('is ended by an answer to a call sent after it, not by one sent before', () => {
    const { engine, clock, loads, ejected } = fleetAfter(CallOutcome.SHED);
    // A call sent before the next shed call and answered after it: no word on capacity since.
    const sentBefore = engine.callStarted(loads[3]);
    clock.advance(1);
    const shedStart = engine.callStarted(loads[3]);
    clock.advance(1);
    engine.callEnded(loads[3], CallOutcome.SHED, shedStart);
    clock.advance(5);
    engine.callEnded(loads[3], CallOutcome.SUCCESS, sentBefore);
    expect(ejected()[3]).toBe(true);
    // A call sent after it and answered.
    const sentAfter = engine.callStarted(loads[3]);
    clock.advance(10);
    engine.callEnded(loads[3], CallOutcome.SUCCESS, sentAfter);
    expect(loads[3].shedAtMs).toBe(-Infinity);
    expect(ejected()[3]).toBe(false);
  });

  it('is not ended by a cancel or a lost hedge (no word from the endpoint); a deadline of a later call ends it', () => {
    const { loads, call, ejected } = fleetAfter(CallOutcome.SHED);
    call(loads[3], 5, CallOutcome.CANCELLED);
    call(loads[3], 5, CallOutcome.OUTLASTED);
    expect(ejected()[3]).toBe(true);
    call(loads[3], 50, CallOutcome.DEADLINE_EXCEEDED);
    expect(ejected()[3]).toBe(false);
  });

  it('ejects nothing with ejection off (ejectionRatio 0), as the stats read it too', () => {
    const off = fleetAfter(CallOutcome.SHED, { ...DEFAULTS, ejectionRatio: 0 });
    expect(off.ejected()).toEqual([false, false, false, false, false, false]);
  });

  it("with maxEjectionTime '0s' holds for τ, not for the channel's life", () => {
    const settings = { ...DEFAULTS, maxEjectionMs: 0 };
    const { clock, ejected } = fleetAfter(CallOutcome.SHED, settings);
    expect(ejected().slice(3)).toEqual([true, true, true]);
    clock.advance(settings.decayMs);
    expect(ejected().slice(3)).toEqual([false, false, false]);
  });
});
