/**
 * Answers that took 0 ms on the clock (a coarse clock, a virtual one, an
 * answer from a local cache behind the picker): the fleet average F, or a
 * method's baseline B_m, is then 0, and a ratio to it is Infinity or NaN.
 * ejection.ts already draws no line from F = 0; the fleet penalty divided by
 * it (a failed endpoint's cost was Infinity), and a method whose first
 * answers took 0 ms had weight 0 for good: its later answers were sampled as
 * r / 0, discarded, and B_m never learnt again.
 */
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, seededRandom } from '../../src/core';

function engineOf(): { clock: ManualClock; model: PeakEwmaModel; engine: LoadBalancingEngine; loads: EndpointLoad[] } {
  const clock = new ManualClock();
  const model = new PeakEwmaModel({ ...PEAK_EWMA_DEFAULTS });
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
  return { clock, model, engine, loads: [new EndpointLoad(), new EndpointLoad()] };
}

describe('answers of 0 ms on the clock', () => {
  it('leave every cost finite: no fleet penalty while the fleet average is 0', () => {
    const { clock, model, engine, loads } = engineOf();
    engine.callEnded(loads[0], CallOutcome.SUCCESS, engine.callStarted(loads[0]));
    engine.callEnded(loads[1], CallOutcome.FAILURE, engine.callStarted(loads[1]));
    expect(model.fleet.rttMs).toBe(0);
    // The failure's sample, 5 × defaultRtt, unscaled: before, Infinity.
    expect(model.cost(loads[1], clock.now())).toBe(50);
  });

  it("do not stop a method from learning: its later answers still move its baseline and the endpoint's estimate", () => {
    const { clock, engine, loads } = engineOf();
    const call = (name: string, ms: number): void => {
      const method = engine.methodOf(name);
      const weight = engine.callWeight(method);
      const startedAt = engine.callStarted(loads[0], weight, method);
      clock.advance(ms);
      engine.callEnded(loads[0], CallOutcome.SUCCESS, startedAt, weight, method);
    };
    call('cached', 0);
    call('get', 10);
    for (let i = 0; i < 50; i++) {
      call('cached', 5);
    }
    // Before: B_cached 0, weight 0 and the estimate 0 after fifty 5 ms answers.
    expect(engine.methodOf('cached')!.fleet.rttMs).toBeGreaterThan(4);
    expect(engine.callWeight(engine.methodOf('cached'))).toBeGreaterThan(0.5);
    expect(loads[0].rttMs).toBeGreaterThan(4);
  });
});

describe('a method answered in 0 ms beside others', () => {
  it('has no baseline, so it makes no mix: two candidates stay two (ten while a real mix lasts)', () => {
    // judgeMix took its baseline of 0 as the lowest latency, and 4 × 0 is below anything (review, 2026-12-07).
    const { clock, engine } = engineOf();
    const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
    const call = (name: string, ms: number) => {
      const method = engine.methodOf(name);
      const weight = engine.callWeight(method);
      const k = engine.pick(loads, weight);
      const started = engine.callStarted(loads[k], weight, method);
      clock.advance(ms);
      engine.callEnded(loads[k], CallOutcome.SUCCESS, started, weight, method);
    };
    for (let i = 0; i < 100; i++) {
      call('get', 10);
      call('get', 11);
    }
    expect(engine.candidatesPerPick).toBe(2);
    call('cached', 0);
    clock.advance(1_000);
    call('get', 10);
    expect(engine.callWeight(engine.methodOf('cached'))).toBe(1);
    expect(engine.candidatesPerPick).toBe(2);
  });
});
