/**
 * An endpoint whose first calls failed has a sample (the error penalty's)
 * before it has a mean: M takes answers, not failures (mean.ts). Until
 * 2026-12-05 its M of 0 was read as a 0 ms mean: a first answer arriving as
 * a stale probe moved M only halfway from 0 (25 ms read as 12.5, under the
 * lines), and the small fleet's median counted the 0 (a healthy median
 * endpoint then ejected). `EndpointLoad.hasMean` says when M is one.
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, seededRandom } from '../../src/core';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

// Today's defaults, but for slow start: c's first call comes after 20 fair shares of
// a's and b's, so it would be a joiner (slow-start.ts), which is never ejected for its latency.
const settings = { ...new PeakEwmaLoadBalancingConfig().settings, slowStartMs: 0 };

function setup(n: number) {
  const clock = new ManualClock(1_000);
  const model = new PeakEwmaModel(settings);
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
  const loads = Array.from({ length: n }, () => new EndpointLoad());
  const call = (load: EndpointLoad, ms: number, outcome = CallOutcome.SUCCESS) => {
    const start = engine.callStarted(load);
    clock.advance(ms);
    engine.callEnded(load, outcome, start);
  };
  return { clock, model, engine, loads, call };
}

describe('M of an endpoint whose first calls failed', () => {
  function healedAfterFailing() {
    const f = setup(3);
    const { model, engine, loads, call } = f;
    const [a, b, c] = loads;
    engine.pick(loads); // readyEndpoints = 3
    for (let i = 0; i < 20; i++) {
      call(a, 10);
      call(b, 10);
    }
    call(c, 1, CallOutcome.FAILURE); // c fails before it ever answered
    expect(c.hasSample).toBe(true);
    // c is avoided; time and traffic pass until its estimate is stale (the probe).
    for (let i = 0; i < 200; i++) {
      call(i % 2 ? a : b, 10); // 2 s and 200 calls: past maxEjectionTime and 20 fair shares
    }
    expect(model.fleet.rttMs).toBeCloseTo(10, 6);
    engine.pick(loads);
    // its first answer: 25 ms, 2.5 × the fleet's 10 ms
    call(c, 25);
    return f;
  }

  it('takes its first answer whole, even when that answer is a stale probe', () => {
    const { loads } = healedAfterFailing();
    expect(loads[2].meanRttMs).toBe(25); // mean.ts: "the sample itself for a first answer"
  });

  it('so an endpoint answering at 2.5 x F is out (line 1.5 x median 10) and refused its turn', () => {
    const { clock, model, engine, loads } = healedAfterFailing();
    engine.pick(loads.slice(0, 2));
    engine.pick(loads); // re-ranked: median of 10, 10, M_c
    expect(model.ejected(loads[2], clock.now())).toBe(true);
    expect(model.refusalOf(loads[2], clock.now())).not.toBeNull();
  });

  it('counts no mean in the small fleet\'s median (defaults: 5 READY, budget 2)', () => {
    const { clock, model, engine, loads, call } = setup(5);
    const [a, b, c, d, e] = loads;
    engine.pick(loads);
    for (let i = 0; i < 16; i++) {
      call(a, 10);
      call(b, 20);
      call(c, 40);
    }
    // two new pods that have only failed so far
    call(d, 1, CallOutcome.FAILURE);
    call(e, 1, CallOutcome.FAILURE);
    engine.pick(loads.slice(0, 4));
    engine.pick(loads); // READY count changed back: ranked again
    // The answering endpoints' means are 10, 20, 40: median 20, line 30.
    expect(model.ejected(b, clock.now())).toBe(false); // the median endpoint is never out (small-fleet.ts)
    expect(model.ejectionLineMs).toBeCloseTo(1.5 * 20, 6);
  });
});
