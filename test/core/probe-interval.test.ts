/**
 * The probe interval counted in the balancer's own calls (`probeFairShares`,
 * docs/design.md "Beyond the textbook", docs/tuning-log.md §2): an estimate is
 * stale — counts at most as the fleet average, so an avoided endpoint gets a
 * probe — only once it is `maxEjectionMs` old AND the balancer has started
 * K × (READY endpoints) calls since its last sample. A fast client is
 * unchanged (it starts K fair shares within `maxEjectionMs`); a slow one
 * probes an avoided endpoint once per K fair shares of its calls instead of
 * once per second. The decay is untouched and still re-admits.
 */
import {
  BalancerTraffic,
  CallOutcome,
  EndpointLoad,
  estimateMs,
  FleetRtt,
  leastRequestModel,
  LoadBalancingEngine,
  ManualClock,
  PeakEwmaModel,
  PeakEwmaSettings,
  seededRandom,
} from '../../src/core';
import { crashLoop, probesBetween } from '../support/crash-loop';

const TUNED: PeakEwmaSettings = {
  decayMs: 2_000,
  defaultRttMs: 10,
  penaltyValue: 1e6,
  errorPenaltyFactor: 5,
  fleetPenaltyExponent: 1,
  ejectionRatio: 2.5,
  maxEjectionMs: 1_000,
  pendingAware: true,
  probeFairShares: 20,
};
/** τ = 60 s: the decay re-admits nothing within these tests, so only the staleness bound does. */
const SLOW_DECAY: PeakEwmaSettings = { ...TUNED, decayMs: 60_000 };
const TIME_ONLY: PeakEwmaSettings = { ...SLOW_DECAY, probeFairShares: 0 };

describe('stale: maxEjectionTime old AND K fair shares of the balancer\'s calls missed', () => {
  const fleet = new FleetRtt();
  fleet.record(10, 0, 2_000);
  const slow = new EndpointLoad();
  slow.rttMs = 500;
  slow.hasSample = true;
  slow.sampledAtMs = 0;
  slow.sampledAtCall = 100;
  // Each test sets the balancer's calls (and READY count) it needs on a fresh count of 20 READY.
  let traffic: BalancerTraffic;
  beforeEach(() => {
    traffic = new BalancerTraffic();
    traffic.setReadyEndpoints(20);
  });
  const decayed = (nowMs: number): number => 500 * Math.exp(-nowMs / SLOW_DECAY.decayMs);

  it('is not stale after maxEjectionTime while fewer than K × READY calls went out since the sample', () => {
    traffic.callsStarted = 100 + 20 * 20 - 1;
    expect(estimateMs(slow, 5_000, SLOW_DECAY, fleet, traffic)).toBeCloseTo(decayed(5_000), 9);
  });

  it('is stale, at most the fleet average, from the K × READY-th call on', () => {
    traffic.callsStarted = 100 + 20 * 20;
    expect(estimateMs(slow, 5_000, SLOW_DECAY, fleet, traffic)).toBe(10);
  });

  it('still needs maxEjectionTime, however many calls went out', () => {
    traffic.callsStarted = 1e6;
    expect(estimateMs(slow, 999, SLOW_DECAY, fleet, traffic)).toBeCloseTo(decayed(999), 9);
    expect(estimateMs(slow, 1_000, SLOW_DECAY, fleet, traffic)).toBe(10);
  });

  it('counts fair shares in READY endpoints: fewer endpoints, fewer calls needed', () => {
    traffic.setReadyEndpoints(2);
    traffic.callsStarted = 100 + 20 * 2;
    expect(estimateMs(slow, 1_000, SLOW_DECAY, fleet, traffic)).toBe(10);
  });

  it('is the time-only rule with probeFairShares 0 or absent, or without traffic', () => {
    traffic.callsStarted = 100;
    expect(estimateMs(slow, 1_000, TIME_ONLY, fleet, traffic)).toBe(10);
    expect(estimateMs(slow, 1_000, { ...SLOW_DECAY, probeFairShares: undefined }, fleet, traffic)).toBe(10);
    expect(estimateMs(slow, 1_000, SLOW_DECAY, fleet)).toBe(10);
  });
});

describe('the engine keeps the traffic count; the model stamps each sample with it', () => {
  it('pick records the READY count, callStarted counts the call, the sample records the count', () => {
    const clock = new ManualClock();
    const model = new PeakEwmaModel(TUNED);
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
    const index = engine.pick(loads);
    expect(model.traffic.readyEndpoints).toBe(3);
    const started = engine.callStarted(loads[index]);
    engine.callStarted(loads[(index + 1) % 3]);
    expect(model.traffic.callsStarted).toBe(2);
    clock.advance(10);
    engine.callEnded(loads[index], CallOutcome.SUCCESS, started);
    expect(loads[index].sampledAtCall).toBe(2);
    engine.pick(loads.slice(0, 2));
    expect(model.traffic.readyEndpoints).toBe(2);
  });

  it('a cancelled call is no sample and leaves the stamp alone', () => {
    const clock = new ManualClock();
    const model = new PeakEwmaModel(TUNED);
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const load = new EndpointLoad();
    engine.callEnded(load, CallOutcome.SUCCESS, engine.callStarted(load));
    const cancelled = engine.callStarted(load);
    engine.callEnded(load, CallOutcome.CANCELLED, cancelled);
    expect(load.sampledAtCall).toBe(1);
  });

  it('a model without traffic or time (least_request) is left alone: its calls are counted, no clock is read', () => {
    let clockReads = 0;
    const clock = (): number => {
      clockReads++;
      return 0;
    };
    const engine = new LoadBalancingEngine({ model: leastRequestModel, choiceCount: 2, clock, random: seededRandom(1) });
    const loads = [new EndpointLoad(), new EndpointLoad()];
    let index = -1;
    expect(() => {
      index = engine.pick(loads);
      const started = engine.callStarted(loads[index]);
      expect(loads[index].outstanding).toBe(1);
      engine.callEnded(loads[index], CallOutcome.SUCCESS, started);
    }).not.toThrow();
    expect(loads.map((load) => [load.outstanding, load.callsStarted])).toEqual(loads.map((_, i) => [0, i === index ? 1 : 0]));
    expect(clockReads).toBe(0);
  });
});

const probesAfter = (chosen: number[], fromCall: number): number => probesBetween(chosen, fromCall);

describe('a crash-looping endpoint, as a slow and as a fast client sees it', () => {
  it('a slow client (10 calls/s, 20 endpoints) probes it once per K fair shares (400 calls, 40 s), not once a second', () => {
    const seconds = 400;
    const counted = probesAfter(crashLoop(SLOW_DECAY, 10, seconds), 100);
    const timeOnly = probesAfter(crashLoop(TIME_ONLY, 10, seconds), 100);
    // K × READY = 400 calls = 40 s at 10 calls/s, then about one fair-share wait (2 s).
    expect(counted).toBeGreaterThanOrEqual(6);
    expect(counted).toBeLessThanOrEqual(11);
    // Time only: 1 s, then the same wait: one probe every ~3 s.
    expect(timeOnly).toBeGreaterThan(90);
  });

  it('a fast client (1,000 calls/s) starts K fair shares within maxEjectionTime: every pick is the same as time-only', () => {
    const counted = crashLoop(SLOW_DECAY, 1_000, 30);
    expect(counted).toEqual(crashLoop(TIME_ONLY, 1_000, 30));
    expect(probesAfter(counted, 1_000)).toBeGreaterThan(10); // about one per second
  });

  it('the decay is untouched: with τ = 2 s a slow client re-admits the endpoint long before K fair shares', () => {
    // 50 ms (5 × defaultRtt) decays to the fleet's 0.5 ms in about τ·ln 100 ≈ 9 s, well before 40 s.
    const decayed = probesAfter(crashLoop(TUNED, 10, 400), 100);
    const bound = probesAfter(crashLoop(SLOW_DECAY, 10, 400), 100);
    expect(decayed).toBeGreaterThan(2 * bound);
    expect(decayed).toBeLessThan(probesAfter(crashLoop({ ...TUNED, probeFairShares: 0 }, 10, 400), 100));
  });
});
