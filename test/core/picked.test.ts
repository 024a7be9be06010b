/**
 * A call counts on its endpoint from its pick, not only from its start
 * (EndpointLoad `picked`, `committed`): grpc-js starts a call a promise turn
 * after picking it, so the picks of a burst placed in one tick all ran
 * before any of its calls started. Every rule that reads "calls of this
 * client in flight" reads the committed count: the textbook cost, the
 * new-endpoint and stale probes, least_request (A48 counts from the pick),
 * the rotation's gate. The simulator starts each call as it picks it, so
 * there `picked` is always 0.
 */
import { EndpointLoad, leastRequestModel, ManualClock, PeakEwmaModel, PeakEwmaSettings, peakEwmaCost, Refusal } from '../../src/core';
import { refusalOf } from '../../src/core/rotation';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

const DEFAULTS: PeakEwmaSettings = { ...PEAK_EWMA_DEFAULTS };
const TEXTBOOK: PeakEwmaSettings = { decayMs: 10_000, defaultRttMs: 10, penaltyValue: 1_000_000, errorPenaltyFactor: 1 };

const sampled = (rttMs: number): EndpointLoad => Object.assign(new EndpointLoad(), { hasSample: true, rttMs, meanRttMs: rttMs, meanSamples: 1, sampledAtMs: 0 });

describe('a call picked and not yet started', () => {
  it('makes a new endpoint cost the probe penalty, as a started call does', () => {
    const load = new EndpointLoad();
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(0);
    load.callPicked(1);
    expect(load.committed).toBe(1);
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(1_000_001);
    load.callPicked(1);
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(1_000_002);
    load.forgetPicks();
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(0);
  });

  it('counts in the textbook product E · (outstanding + 1)', () => {
    const load = sampled(20);
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(20);
    load.callPicked(1);
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(40);
    load.callStarted();
    load.pickSettled(1);
    // Started: counted once, as outstanding.
    expect([load.outstanding, load.picked, load.committed]).toEqual([1, 0, 1]);
    expect(peakEwmaCost(load, 0, TEXTBOOK)).toBe(40);
  });

  it('counts by its method weight with per-method work scoring', () => {
    const load = sampled(20);
    load.callPicked(3);
    expect(load.committedWork).toBe(3);
    // E · (work + w) for a call of weight 1.
    expect(peakEwmaCost(load, 0, { ...TEXTBOOK, methodScoring: 'work' })).toBe(80);
  });

  it('makes a stale endpoint cost the probe penalty: one probe at a time', () => {
    const clock = new ManualClock(0);
    const settings: PeakEwmaSettings = { ...TEXTBOOK, maxEjectionMs: 1_000 };
    const model = new PeakEwmaModel(settings);
    model.fleet.record(10, 0, settings.decayMs);
    const load = sampled(50);
    clock.advance(2_000);
    const idle = peakEwmaCost(load, clock.now(), settings, model.fleet);
    expect(idle).toBeLessThan(1_000);
    load.callPicked(1);
    expect(peakEwmaCost(load, clock.now(), settings, model.fleet)).toBe(1_000_001);
  });

  it('is a call in flight to least_request (A48: counted from the pick)', () => {
    const load = new EndpointLoad();
    load.callStarted();
    load.callPicked(1);
    expect(leastRequestModel.cost(load, 0)).toBe(2);
  });

  it("keeps the rotation's turn from an endpoint with a call already picked this turn", () => {
    const model = new PeakEwmaModel(DEFAULTS);
    model.fleet.record(10, 0, DEFAULTS.decayMs);
    const load = sampled(10);
    expect(refusalOf(load, 1, DEFAULTS, model.fleet)).toBeNull();
    load.callPicked(1);
    expect(refusalOf(load, 1, DEFAULTS, model.fleet)).toBe(Refusal.inFlight);
  });

  it('never settles below zero, and its work is exactly 0 with no pick left', () => {
    const load = new EndpointLoad();
    load.callPicked(0.1);
    load.callPicked(0.2);
    load.pickSettled(0.1);
    load.pickSettled(0.2);
    load.pickSettled(1);
    expect([load.picked, load.pickedWork]).toEqual([0, 0]);
  });
});
