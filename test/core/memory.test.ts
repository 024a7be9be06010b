/**
 * Memory (src/core/memory.ts). How much: counted in the client's own calls
 * too (`decayFairShares` C, issue 15), an estimate forgets at most 1/e per C
 * fair shares of the balancer's calls, so a light client (64 callers give
 * each 1/64 of the traffic) keeps what it learnt for as many of its own
 * calls as a busy one does; off by default. Toward what (`decayToward`): 0,
 * the textbook, or the fleet average F (the default), so an endpoint not
 * heard from counts as typical, never as the best.
 */
import { CallOutcome, BalancerTraffic, currentRttMs, EndpointLoad, FleetRtt, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';
import { isStale } from '../../src/core/staleness';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

const BASE: PeakEwmaSettings = { decayMs: 2_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 5 };
const C20: PeakEwmaSettings = { ...BASE, decayFairShares: 20 };

const sampled = (rttMs: number, sampledAtMs: number, sampledAtCall: number): EndpointLoad =>
  Object.assign(new EndpointLoad(), { rttMs, hasSample: true, sampledAtMs, sampledAtCall });

function traffic(callsStarted: number, readyEndpoints: number): BalancerTraffic {
  const t = new BalancerTraffic();
  t.setReadyEndpoints(readyEndpoints);
  t.callsStarted = callsStarted;
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

describe('decayFairShares when the READY count changes', () => {
  // A share is 1/n of the calls sent while n endpoints were READY (src/core/traffic.ts):
  // endpoints arriving or leaving later do not re-count the calls already sent.
  const settings = new PeakEwmaLoadBalancingConfig().settings; // C 20, K 10, decay toward F
  /** An engine with today's defaults and twenty endpoints, none READY until a pick says so. */
  const twentyEndpoints = () => {
    const clock = new ManualClock(1_000);
    const model = new PeakEwmaModel(settings);
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    return { clock, model, engine, loads: Array.from({ length: 20 }, () => new EndpointLoad()) };
  };
  const call = (engine: LoadBalancingEngine, clock: ManualClock, load: EndpointLoad, ms: number) => {
    const start = engine.callStarted(load);
    clock.advance(ms);
    engine.callEnded(load, CallOutcome.SUCCESS, start);
  };

  /** An endpoint whose last sample was stamped at `calls` calls and `shares` shares. */
  const sampledAt = (calls: number, shares: number) => Object.assign(new EndpointLoad(), { sampledAtCall: calls, sampledAtShares: shares });

  it('counts the shares each call was: 100 calls among 2 and 100 among 4 are 75 shares', () => {
    const t = new BalancerTraffic();
    t.setReadyEndpoints(2);
    t.callsStarted = 100;
    t.setReadyEndpoints(4);
    t.callsStarted = 200;
    expect(t.sharesNow()).toBe(75);
    expect(t.sharesSince(sampledAt(0, 0))).toBe(75);
    expect(t.sharesSince(sampledAt(150, 62.5))).toBe(12.5); // sampled after the change: calls ÷ n
    expect(t.sharesSince(sampledAt(50, 25), 5)).toBe(10); // sampled before it, per C = 5
    t.setReadyEndpoints(0);
    expect(t.sharesSince(sampledAt(200, 75))).toBe(Infinity); // nothing READY: every share is overdue
  });

  it('endpoints turning READY between samples neither raise an estimate that no sample touched nor make it fresh', () => {
    const { clock, model, engine, loads } = twentyEndpoints();
    const [a, b] = loads;
    engine.pick(loads.slice(0, 2));
    for (let i = 0; i < 20; i++) call(engine, clock, b, 10);
    call(engine, clock, a, 100); // a's peak
    for (let i = 0; i < 150; i++) call(engine, clock, b, 10); // 1.5 s and 150 calls among two: 75 shares
    engine.pick(loads.slice(0, 2));
    const before = model.cost(a, clock.now());
    expect(isStale(a, clock.now(), settings, model.fleet, model.traffic)).toBe(true);
    // 18 more endpoints turn READY; no time passes, nothing is sampled. Counted with
    // today's n, the 150 calls were 7.5 shares of 20: a's 100 ms peak came back
    // (the estimate 10.4 → 72 ms) and it was no longer due a probe.
    engine.pick(loads);
    expect(model.cost(a, clock.now())).toBe(before);
    expect(isStale(a, clock.now(), settings, model.fleet, model.traffic)).toBe(true);
    // And the calls from now on are shares of 20: 20 more calls are one more share.
    const shares = model.traffic.sharesNow();
    for (let i = 0; i < 20; i++) call(engine, clock, b, 10);
    expect(model.traffic.sharesNow()).toBeCloseTo(shares + 1, 12);
  });

  it('endpoints leaving between samples do not age an estimate either', () => {
    const { clock, model, engine, loads } = twentyEndpoints();
    const [a, b] = loads;
    engine.pick(loads);
    for (let i = 0; i < 20; i++) call(engine, clock, b, 10);
    // Two answers: a first alone is provisional (first-answer.ts), and the second replaces it.
    call(engine, clock, a, 100);
    call(engine, clock, a, 100);
    // A light client: 100 calls over 10 s (5 τ) among 20 are 5 shares, a quarter of C: the calls bind.
    for (let i = 0; i < 100; i++) call(engine, clock, b, 100);
    const before = model.cost(a, clock.now());
    expect(before).toBeGreaterThan(50); // most of a's 100 ms peak is remembered
    expect(isStale(a, clock.now(), settings, model.fleet, model.traffic)).toBe(false); // 5 of K = 10 shares
    // 18 leave. Counted with today's n the 100 calls were 50 shares: the peak all but
    // forgotten, and the endpoint due a probe.
    engine.pick(loads.slice(0, 2));
    expect(model.cost(a, clock.now())).toBe(before);
    expect(isStale(a, clock.now(), settings, model.fleet, model.traffic)).toBe(false);
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

describe('a model replaced over the same endpoints', () => {
  it("reads another balancer's stamps as unknown: the estimate decays by time, never past the fleet's", () => {
    // An endpoint stamped at call 3,000 by the old model read −3,000 fair shares since under the new one,
    // retained exp(+…) > 1, and a 2 ms endpoint's cost −1.7e22 (review, 2026-12-07).
    const clock = new ManualClock(1_000);
    const settings: PeakEwmaSettings = { ...C20, rotationGate: 0, ejectionSignal: 'peak', decayToward: 'fleet' };
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(settings), choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
    const latencyMs = [2, 10, 10];
    const call = (k: number) => {
      const started = engine.callStarted(loads[k]);
      clock.advance(latencyMs[k]);
      engine.callEnded(loads[k], CallOutcome.SUCCESS, started);
    };
    for (let i = 0; i < 3_000; i++) call(engine.pick(loads));
    const model = new PeakEwmaModel(settings);
    engine.model = model;
    for (let i = 0; i < 30; i++) {
      call(1 + (i % 2));
      engine.pick(loads);
    }
    clock.advance(5);
    const costs = loads.map((load) => model.cost(load, clock.now()));
    expect(Math.min(...costs)).toBeGreaterThanOrEqual(0);
    // Endpoint 0, unheard by the new model, counts as typical: between its own 2 ms and the fleet's.
    expect(currentRttMs(loads[0], clock.now(), settings, model.traffic, model.fleet)).toBeGreaterThanOrEqual(2);
  });
});
