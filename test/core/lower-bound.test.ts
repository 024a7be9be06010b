/**
 * A deadline, and an attempt another attempt outlasted (a hedge that lost
 * the race), are lower bounds: the endpoint had not answered after the
 * elapsed time. Above the estimate they raise it (the peak rule); at or
 * below it they teach nothing, so an attempt that started late in its
 * deadline (slow call credentials, a wait-for-ready queue, a retry) cannot
 * make an endpoint look fast: before 2026-12-06 ten 3 ms deadlines took two
 * 20 ms backends' means to 5.5 ms. A lost hedge never enters the mean.
 */
import { CallOutcome, EndpointLoad, ManualClock, PeakEwmaModel, PeakEwmaSettings, sampleForOutcome } from '../../src/core';
import { sampleFrom } from '../../src/core/error-penalty';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

const DEFAULTS: PeakEwmaSettings = { ...PEAK_EWMA_DEFAULTS };

/** An endpoint that has answered 20 ms eight times, in a fleet of 20 ms. */
function answered20(): { model: PeakEwmaModel; load: EndpointLoad; clock: ManualClock } {
  const clock = new ManualClock(0);
  const model = new PeakEwmaModel(DEFAULTS);
  const load = new EndpointLoad();
  for (let i = 0; i < 8; i++) {
    clock.advance(5);
    model.recordCall(load, CallOutcome.SUCCESS, 20, clock.now());
  }
  return { model, load, clock };
}

describe('a lower bound on the latency', () => {
  it.each([CallOutcome.DEADLINE_EXCEEDED, CallOutcome.OUTLASTED])('is a sample only above the estimate (outcome %s)', (outcome) => {
    expect(sampleFrom(outcome, 3, 20, DEFAULTS)).toBeNull();
    expect(sampleFrom(outcome, 20, 20, DEFAULTS)).toBeNull();
    expect(sampleFrom(outcome, 300, 20, DEFAULTS)).toBe(300);
    // Read through the endpoint's stored state too (what stats and tools call).
    const { model, load, clock } = answered20();
    expect(sampleForOutcome(load, outcome, 3, clock.now(), DEFAULTS, model.fleet, model.traffic)).toBeNull();
    expect(sampleForOutcome(load, outcome, 300, clock.now(), DEFAULTS, model.fleet, model.traffic)).toBe(300);
  });

  it("is always a sample before the endpoint's first: defaultRtt is a guess, not a bound", () => {
    // A defaultRtt at or above the deadline must not leave a hung new endpoint unlearned (free while idle).
    const settings: PeakEwmaSettings = { ...DEFAULTS, defaultRttMs: 2_000 };
    const model = new PeakEwmaModel(settings);
    const load = new EndpointLoad();
    expect(sampleForOutcome(load, CallOutcome.DEADLINE_EXCEEDED, 1_000, 0, settings)).toBe(1_000);
    model.recordCall(load, CallOutcome.DEADLINE_EXCEEDED, 1_000, 1_000);
    expect([load.hasSample, load.rttMs]).toEqual([true, 1_000]);
    expect(sampleFrom(CallOutcome.OUTLASTED, 5, undefined, settings)).toBe(5);
  });

  it('below the estimate leaves the estimate, the mean and the sample time as they were', () => {
    const { model, load, clock } = answered20();
    const before = { rttMs: load.rttMs, meanRttMs: load.meanRttMs, sampledAtMs: load.sampledAtMs };
    clock.advance(1);
    model.recordCall(load, CallOutcome.DEADLINE_EXCEEDED, 3, clock.now());
    model.recordCall(load, CallOutcome.OUTLASTED, 3, clock.now());
    expect({ rttMs: load.rttMs, meanRttMs: load.meanRttMs, sampledAtMs: load.sampledAtMs }).toEqual(before);
    expect(load.consecutiveFailures).toBe(0);
  });

  it('above it raises the peak; a lost hedge leaves the mean, a deadline enters it', () => {
    const outlasted = answered20();
    outlasted.clock.advance(1);
    outlasted.model.recordCall(outlasted.load, CallOutcome.OUTLASTED, 60, outlasted.clock.now());
    expect(outlasted.load.rttMs).toBe(60);
    expect(outlasted.load.meanRttMs).toBeCloseTo(20, 9);
    expect(outlasted.load.consecutiveFailures).toBe(0);

    const deadline = answered20();
    deadline.clock.advance(1);
    deadline.model.recordCall(deadline.load, CallOutcome.DEADLINE_EXCEEDED, 60, deadline.clock.now());
    expect(deadline.load.rttMs).toBe(60);
    expect(deadline.load.meanRttMs).toBeGreaterThan(20);
  });
});
