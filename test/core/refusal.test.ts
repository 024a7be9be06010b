/**
 * A refusal (CallOutcome.REFUSED: the server's RESOURCE_EXHAUSTED, "full
 * now") ejects the endpoint until its probe (ejection.ts `isEjected`); any
 * other failure is left to the error penalty and the rotation's gate. Why:
 * a two-choice draw of two endpoints that shed load must take one of them
 * however high both are priced, so with half a fleet shedding peak_ewma kept
 * sending them calls to refuse (docs/tuning-log.md §49).
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, seededRandom } from '../../src/core';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

const settings = new PeakEwmaLoadBalancingConfig().settings; // defaults: T 1 s, K 10

/** Six endpoints that answered 10 ms twenty times each; then the last three fail once with `outcome`. */
function fleetAfterFailures(outcome: CallOutcome) {
  const clock = new ManualClock(1_000);
  const model = new PeakEwmaModel(settings);
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(5) });
  const loads = Array.from({ length: 6 }, () => new EndpointLoad());
  const call = (load: EndpointLoad, ms: number, ending = CallOutcome.SUCCESS): void => {
    const start = engine.callStarted(load);
    clock.advance(ms);
    engine.callEnded(load, ending, start);
  };
  for (let i = 0; i < 20; i++) {
    loads.forEach((load) => call(load, 10));
  }
  loads.slice(3).forEach((load) => call(load, 1, outcome));
  /** Picks made over `ms` of calls of 10 ms each, sent where picked, none failing; how many went to the last three. */
  const picksToFailed = (picks: number): number => {
    let toFailed = 0;
    for (let i = 0; i < picks; i++) {
      const chosen = engine.pick(loads);
      // Each pick's call is answered at once by a healthy endpoint; the failed ones' calls are not answered (kept in flight).
      if (chosen >= 3) {
        toFailed++;
      } else {
        call(loads[chosen], 1);
      }
    }
    return toFailed;
  };
  return { clock, model, loads, call, picksToFailed };
}

describe('a refusal (RESOURCE_EXHAUSTED)', () => {
  it('ejects the endpoint, where another failure does not', () => {
    const refused = fleetAfterFailures(CallOutcome.REFUSED);
    const failed = fleetAfterFailures(CallOutcome.FAILURE);
    const now = refused.clock.now();
    expect(refused.loads.map((load) => refused.model.ejected(load, now))).toEqual([false, false, false, true, true, true]);
    expect(failed.loads.map((load) => failed.model.ejected(load, failed.clock.now()))).toEqual([false, false, false, false, false, false]);
    // Both are failures alike otherwise: the count in a row and the gate's memory.
    expect(refused.loads[3].consecutiveFailures).toBe(1);
    expect(failed.loads[3].consecutiveFailures).toBe(1);
  });

  it('sends the refused endpoints no call before their probe, where a draw of two failed ones must take one', () => {
    // 60 picks within T: three of six failed, so a third of the draws land both candidates on them.
    expect(fleetAfterFailures(CallOutcome.REFUSED).picksToFailed(60)).toBe(0);
    expect(fleetAfterFailures(CallOutcome.FAILURE).picksToFailed(60)).toBeGreaterThan(0);
  });

  it('ends at the probe: stale, the endpoint is tried, and an answer lets it back in', () => {
    const { clock, model, loads, call } = fleetAfterFailures(CallOutcome.REFUSED);
    const healthy = loads.slice(0, 3);
    // Past T and past the first probe's 2K fair shares (an error's first probe waits 2K: probe-backoff.ts).
    for (let i = 0; i < 40; i++) {
      healthy.forEach((load) => call(load, 10));
    }
    expect(clock.now() - loads[3].sampledAtMs).toBeGreaterThan(settings.maxEjectionMs!);
    expect(model.ejected(loads[3], clock.now())).toBe(false);
    call(loads[3], 10);
    expect(loads[3].lastCallRefused).toBe(false);
    expect(model.ejected(loads[3], clock.now())).toBe(false);
    // Refused again: out again.
    call(loads[3], 1, CallOutcome.REFUSED);
    expect(model.ejected(loads[3], clock.now())).toBe(true);
  });

  it('is forgotten by neither a cancel nor a lost hedge (they say nothing of the endpoint), and by a deadline', () => {
    const { clock, model, loads, call } = fleetAfterFailures(CallOutcome.REFUSED);
    call(loads[3], 5, CallOutcome.CANCELLED);
    call(loads[3], 5, CallOutcome.OUTLASTED);
    expect(loads[3].lastCallRefused).toBe(true);
    expect(model.ejected(loads[3], clock.now())).toBe(true);
    call(loads[3], 50, CallOutcome.DEADLINE_EXCEEDED);
    expect(loads[3].lastCallRefused).toBe(false);
  });
});
