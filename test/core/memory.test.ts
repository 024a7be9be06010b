/**
 * Memory (src/core/memory.ts). How much: counted in the client's own calls
 * too (`decayFairShares` C, issue 15), an estimate forgets at most 1/e per C
 * fair shares of the balancer's calls, so a light client (64 callers give
 * each 1/64 of the traffic) keeps what it learnt for as many of its own
 * calls as a busy one does; off by default. Toward what (`decayToward`): 0,
 * the textbook, or the fleet average F (the default), so an endpoint not
 * heard from counts as typical, never as the best.
 */
import { CallOutcome, BalancerTraffic, currentRttMs, EndpointLoad, FleetRtt, PeakEwmaModel, PeakEwmaSettings } from '../../src/core';

const BASE: PeakEwmaSettings = { decayMs: 2_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 5 };
const C20: PeakEwmaSettings = { ...BASE, decayFairShares: 20 };

const sampled = (rttMs: number, sampledAtMs: number, sampledAtCall: number): EndpointLoad =>
  Object.assign(new EndpointLoad(), { rttMs, hasSample: true, sampledAtMs, sampledAtCall });

function traffic(callsStarted: number, readyEndpoints: number): BalancerTraffic {
  const t = new BalancerTraffic();
  t.callsStarted = callsStarted;
  t.readyEndpoints = readyEndpoints;
  return t;
}

describe('decayFairShares', () => {
  const load = sampled(100, 0, 1_000);

  it('off: the textbook decay, whatever the call count', () => {
    expect(currentRttMs(load, 2_000, BASE, traffic(1_001, 20))).toBeCloseTo(100 * Math.exp(-1), 12);
  });

  it('a light client: 10 s and 200 of its calls over 20 endpoints (0.5 of C × n) leave exp(−0.5)', () => {
    expect(currentRttMs(load, 10_000, C20, traffic(1_200, 20))).toBeCloseTo(100 * Math.exp(-0.5), 12);
  });

  it('a busy client: more calls than C × n per τ, so time binds and nothing changes', () => {
    expect(currentRttMs(load, 2_000, C20, traffic(1_000 + 4_000, 20))).toBeCloseTo(100 * Math.exp(-1), 12);
  });

  it('never more than the estimate, never below the textbook decay', () => {
    for (const [nowMs, calls] of [[0, 1_000], [1, 1_000], [500, 1_010], [60_000, 1_001], [60_000, 90_000]]) {
      const kept = currentRttMs(load, nowMs, C20, traffic(calls, 20));
      expect(kept).toBeLessThanOrEqual(100);
      expect(kept).toBeGreaterThanOrEqual(currentRttMs(load, nowMs, BASE) - 1e-9);
    }
  });
});

describe('decayToward', () => {
  const fleet = new FleetRtt();
  fleet.record(10, 0, 2_000);
  const TOWARD_FLEET: PeakEwmaSettings = { ...BASE, decayToward: 'fleet' };

  it('"zero" and absent: the textbook, E · exp(−Δt/τ)', () => {
    const load = sampled(100, 0, 0);
    expect(currentRttMs(load, 2_000, { ...BASE, decayToward: 'zero' }, undefined, fleet)).toBeCloseTo(100 * Math.exp(-1), 12);
    expect(currentRttMs(load, 2_000, BASE, undefined, fleet)).toBeCloseTo(100 * Math.exp(-1), 12);
  });

  it('"fleet": F + (E − F) · exp(−Δt/τ), from above and from below', () => {
    expect(currentRttMs(sampled(100, 0, 0), 2_000, TOWARD_FLEET, undefined, fleet)).toBeCloseTo(10 + 90 * Math.exp(-1), 12);
    expect(currentRttMs(sampled(4, 0, 0), 2_000, TOWARD_FLEET, undefined, fleet)).toBeCloseTo(10 - 6 * Math.exp(-1), 12);
    // Long unheard-of: typical, not free.
    expect(currentRttMs(sampled(100, 0, 0), 60_000, TOWARD_FLEET, undefined, fleet)).toBeCloseTo(10, 6);
  });

  it('"fleet" before the fleet has a sample: the textbook', () => {
    expect(currentRttMs(sampled(100, 0, 0), 2_000, TOWARD_FLEET, undefined, new FleetRtt())).toBeCloseTo(100 * Math.exp(-1), 12);
  });

  it('"fleet" in the model: a slow endpoint not sampled for 10 τ costs about as much as a typical one, not nothing', () => {
    const costAfterSilence = (settings: PeakEwmaSettings): number => {
      const model = new PeakEwmaModel({ ...settings, maxEjectionMs: 0 });
      const typical = new EndpointLoad();
      const slow = new EndpointLoad();
      for (let t = 0; t < 1_000; t++) model.recordCall(typical, CallOutcome.SUCCESS, 10, t);
      model.recordCall(slow, CallOutcome.SUCCESS, 50, 1_000);
      return model.cost(slow, 1_000 + 10 * settings.decayMs);
    };
    expect(costAfterSilence(BASE)).toBeLessThan(0.01);
    expect(costAfterSilence(TOWARD_FLEET)).toBeCloseTo(10, 0);
  });
});
