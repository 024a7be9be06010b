/**
 * The fleet-relative parts of the peak-EWMA cost (docs/tuning-log.md §1–§4): the fleet
 * average, the steeper cost above it, bounded latency ejection with its
 * probe interval, and the estimate that counts calls still waiting.
 */
import fc from 'fast-check';
import {
  CandidateRating,
  CallOutcome,
  EndpointLoad,
  estimateMs,
  FleetRtt,
  LoadBalancingEngine,
  ManualClock,
  PeakEwmaModel,
  PeakEwmaSettings,
  peakEwmaCost,
  PowerOfChoices,
  seededRandom,
} from '../../src/core';

const TEXTBOOK: PeakEwmaSettings = { decayMs: 2_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 5 };
const TUNED: PeakEwmaSettings = {
  ...TEXTBOOK,
  fleetPenaltyExponent: 1,
  ejectionRatio: 2.5,
  maxEjectionMs: 1_000,
  pendingAware: true,
  probeFairShares: 20,
};

function sampled(rttMs: number, sampledAtMs = 0, outstanding = 0): EndpointLoad {
  const load = new EndpointLoad();
  load.rttMs = rttMs;
  load.sampledAtMs = sampledAtMs;
  load.hasSample = true;
  load.outstanding = outstanding;
  return load;
}

function fleetAt(rttMs: number, atMs = 0): FleetRtt {
  const fleet = new FleetRtt();
  fleet.record(rttMs, atMs, 2_000);
  return fleet;
}

describe('FleetRtt', () => {
  it('starts at the first sample, then moves by 1/W toward each new one, W the calls of the last τ, at most 1/16', () => {
    const fleet = new FleetRtt();
    fleet.record(10, 0, 1_000);
    expect(fleet.rttMs).toBe(10);
    // W = e^(−10/1000) + 1 ≈ 2: the bound applies.
    fleet.record(20, 10, 1_000);
    expect(fleet.rttMs).toBeCloseTo(10 + 10 / 16, 12);
  });

  it('at a steady rate moves as a time-weighted average does: by 1 − exp(−Δt/τ) per call', () => {
    const fleet = new FleetRtt();
    for (let i = 0; i <= 20_000; i++) {
      fleet.record(10, i, 1_000); // W settles at 1 / (1 − e^(−1/1000)), about 1,000 calls
    }
    fleet.record(20, 20_001, 1_000);
    expect(fleet.rttMs).toBeCloseTo(10 + (1 - Math.exp(-1 / 1_000)) * 10, 9);
  });

  it('weighs every call the same, however long its caller waited for it', () => {
    // One caller, one call at a time: the gap before each answer is that
    // answer's own latency. A time-weighted average weighed the 40 ms
    // answers 40 times the 1 ms ones and sat at (1 + 1600) / 41 ≈ 39 ms.
    const fleet = new FleetRtt();
    let nowMs = 0;
    for (let i = 0; i < 4_000; i++) {
      const ms = i % 2 === 0 ? 1 : 40;
      nowMs += ms;
      fleet.record(ms, nowMs, 2_000);
    }
    expect(fleet.rttMs).toBeGreaterThan(19);
    expect(fleet.rttMs).toBeLessThan(22); // the call-weighted mean: 20.5
  });

  it('gives one call at most 1/16 of the way, however long the quiet spell before it', () => {
    const fleet = new FleetRtt();
    fleet.record(10, 0, 1_000);
    fleet.record(170, 60_000, 1_000);
    expect(fleet.rttMs).toBeCloseTo(10 + 160 / 16, 12);
  });

  it('weights endpoints by the calls they answer, so it sits near the ones carrying the traffic', () => {
    const fleet = new FleetRtt();
    for (let i = 1; i <= 20_000; i++) {
      fleet.record(i % 10 === 0 ? 100 : 10, i, 2_000); // 1 call in 10 from a 100 ms backend
    }
    // The call-weighted mean is 19 ms; τ = 2 s spans thousands of calls here.
    expect(fleet.rttMs).toBeGreaterThan(15);
    expect(fleet.rttMs).toBeLessThan(25);
  });
});

describe('steeper cost far above the fleet (fleetPenaltyExponent)', () => {
  it('multiplies the cost by (estimate / fleet)^s above the fleet and leaves it alone below', () => {
    const fleet = fleetAt(10);
    const settings = { ...TEXTBOOK, fleetPenaltyExponent: 1 };
    expect(peakEwmaCost(sampled(20, 0, 1), 0, settings, fleet)).toBeCloseTo(20 * 2 * 2, 10);
    expect(peakEwmaCost(sampled(8, 0, 1), 0, settings, fleet)).toBeCloseTo(16, 10);
    expect(peakEwmaCost(sampled(40), 0, { ...TEXTBOOK, fleetPenaltyExponent: 2 }, fleet)).toBeCloseTo(40 * 16, 10);
  });

  it('with the default exponent 1, is exactly cost × estimate / fleet (the shortcut matches pow to the bit)', () => {
    const settings = { ...TEXTBOOK, fleetPenaltyExponent: 1 };
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1e4, noNaN: true }), fc.double({ min: 0.001, max: 1e4, noNaN: true }), (fleetMs, rttMs) => {
        fc.pre(rttMs > fleetMs);
        const cost = peakEwmaCost(sampled(rttMs, 0, 1), 0, settings, fleetAt(fleetMs));
        expect(cost).toBe(rttMs * 2 * Math.pow(rttMs / fleetMs, 1));
        expect(cost).toBe(rttMs * 2 * (rttMs / fleetMs));
      }),
    );
  });

  it('is the textbook cost with the exponent at 0, or before the fleet has a sample', () => {
    expect(peakEwmaCost(sampled(20, 0, 1), 0, TEXTBOOK, fleetAt(10))).toBe(40);
    expect(peakEwmaCost(sampled(20, 0, 1), 0, TUNED, new FleetRtt())).toBe(40);
  });
});

describe('bounded latency ejection (ejectionRatio, maxEjectionTime)', () => {
  it('ejects an endpoint whose estimate exceeds ratio × fleet, and only that', () => {
    const model = new PeakEwmaModel(TUNED);
    model.fleet.record(10, 0, TUNED.decayMs);
    expect(model.ejected(sampled(26), 0)).toBe(true);
    expect(model.ejected(sampled(24), 0)).toBe(false);
    expect(model.ejected(new EndpointLoad(), 0)).toBe(false);
    expect(new PeakEwmaModel(TEXTBOOK).ejected(sampled(1e6), 0)).toBe(false);
  });

  it('after maxEjectionTime without a sample the estimate is at most the fleet average: one probe goes out', () => {
    const fleet = fleetAt(10);
    const slow = sampled(500, 0);
    expect(estimateMs(slow, 999, TUNED, fleet)).toBeGreaterThan(300);
    expect(estimateMs(slow, 1_000, TUNED, fleet)).toBe(10);
    // With the probe in flight it costs like an endpoint that never answered: one call at a time.
    slow.outstanding = 1;
    slow.busySinceMs = 1_000;
    expect(peakEwmaCost(slow, 1_001, TUNED, fleet)).toBe(1e6 + 1);
  });

  it('a healed backend comes back on its first good probe, not after the old peak decays', () => {
    const clock = new ManualClock();
    const model = new PeakEwmaModel(TUNED);
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const healthy = new EndpointLoad();
    const healed = new EndpointLoad();
    const call = (load: EndpointLoad, ms: number): void => {
      const started = engine.callStarted(load);
      clock.advance(ms);
      engine.callEnded(load, CallOutcome.SUCCESS, started);
    };
    for (let i = 0; i < 200; i++) {
      call(healthy, 10); // the fleet average: 10 ms
    }
    // The fault: a 500 ms answer, while the healthy backend keeps answering in 10 ms.
    const slowStart = engine.callStarted(healed);
    for (let i = 0; i < 50; i++) {
      call(healthy, 10);
    }
    engine.callEnded(healed, CallOutcome.SUCCESS, slowStart);
    expect(model.ejected(healed, clock.now())).toBe(true);
    for (let i = 0; i < 100; i++) {
      call(healthy, 10); // traffic goes on elsewhere for maxEjectionTime
    }
    call(healed, 10); // the probe after the bound: healthy again
    expect(healed.rttMs).toBeLessThan(12);
    expect(model.ejected(healed, clock.now())).toBe(false);
    // Textbook peak EWMA (τ = 2 s) would still hold 500·e^(-0.5) ≈ 300 ms.
  });

  it('costs are read-only: any number of reads between samples gives the same result', () => {
    const runOnce = (reads: number): number => {
      const model = new PeakEwmaModel(TUNED);
      const load = new EndpointLoad();
      model.recordCall(load, CallOutcome.SUCCESS, 10, 0);
      for (let t = 1; t <= 3_000; t += 100) {
        for (let r = 0; r < reads; r++) {
          model.cost(load, t);
          model.ejected(load, t);
        }
        model.recordCall(load, CallOutcome.SUCCESS, 10 + (t % 7), t);
      }
      return load.rttMs + model.fleet.rttMs;
    };
    expect(runOnce(0)).toBe(runOnce(5));
  });
});

describe('PowerOfChoices with ejection', () => {
  it('never picks an ejected candidate while a non-ejected one can be drawn within 2d draws', () => {
    const chooser = new PowerOfChoices(seededRandom(3));
    const ejected = (i: number): boolean => i < 4; // 4 of 20 ejected
    let picks = 0;
    let ejectedPicks = 0;
    for (let round = 0; round < 200_000; round++) {
      const chosen = chooser.choose(20, 2, () => 1, ejected);
      picks++;
      ejectedPicks += ejected(chosen) ? 1 : 0;
    }
    // Only when all 4 draws land on ejected ones: C(4,4)/C(20,4) = 1/4845 ≈ 0.02 %.
    expect(ejectedPicks / picks).toBeLessThan(0.001);
    // Plain power of two would send C(4,2)/C(20,2) = 3.2 % there.
    let plain = 0;
    for (let round = 0; round < 200_000; round++) {
      plain += ejected(chooser.choose(20, 2, (i) => (i < 4 ? 0 : 1))) ? 1 : 0;
    }
    expect(plain / 200_000).toBeGreaterThan(0.2); // cheap-looking ejected ones win whenever drawn
  });

  it('falls back to the cheapest ejected candidate when every draw is ejected', () => {
    const chooser = new PowerOfChoices(seededRandom(5));
    const costs = [5, 3, 9];
    for (let round = 0; round < 100; round++) {
      expect(chooser.choose(3, 2, (i) => costs[i], () => true)).toBe(1);
    }
  });

  it('draws at most 2d candidates', () => {
    const chooser = new PowerOfChoices(seededRandom(9));
    let reads = 0;
    chooser.choose(100, 3, () => {
      reads++;
      return 1;
    }, () => true);
    expect(reads).toBe(6);
  });
});

describe('pending-aware estimate', () => {
  it('an endpoint holding a call unanswered for Δ counts as at least Δ slow', () => {
    const load = sampled(10, 0, 2);
    load.busySinceMs = 100;
    expect(estimateMs(load, 150, { ...TEXTBOOK, pendingAware: true })).toBe(50);
    expect(estimateMs(load, 150, TEXTBOOK)).toBeCloseTo(10 * Math.exp(-150 / 2_000), 10);
    load.outstanding = 0;
    expect(estimateMs(load, 150, { ...TEXTBOOK, pendingAware: true })).toBeCloseTo(10 * Math.exp(-150 / 2_000), 10);
  });

  it('the engine keeps busySince: when the endpoint went busy, then each answer', () => {
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(TUNED), choiceCount: 2, clock: clock.now, random: seededRandom(2) });
    const load = new EndpointLoad();
    clock.set(5);
    const first = engine.callStarted(load);
    clock.set(7);
    engine.callStarted(load);
    expect(load.busySinceMs).toBe(5);
    clock.set(20);
    engine.callEnded(load, CallOutcome.SUCCESS, first);
    expect(load.busySinceMs).toBe(20);
  });

  it('a stalled backend stops attracting calls once its call has waited past its estimate', () => {
    /** Picks out of 100 sent to the stalled endpoint, with or without pendingAware. */
    const sentToStalled = (pendingAware: boolean): number => {
      const clock = new ManualClock();
      clock.set(1_000);
      const model = new PeakEwmaModel({ ...TUNED, pendingAware });
      model.fleet.record(10, 1_000, 2_000);
      const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(4) });
      // Both answered in 10 ms just now and hold one call each: backend 0's
      // has waited 50 ms (it stalled), backend 1's 1 ms.
      const loads = [sampled(10, 1_000, 1), sampled(10, 1_000, 1)];
      loads[0].busySinceMs = 1_000 - 50;
      loads[1].busySinceMs = 1_000 - 1;
      let sent = 0;
      for (let i = 0; i < 100; i++) {
        sent += engine.pick(loads) === 0 ? 1 : 0;
      }
      return sent;
    };
    // Counting the wait, backend 0 is at least 50 ms slow: 5 × the fleet,
    // above the 2.5 × line, so it is skipped. Without it, the two look the
    // same and split the picks.
    expect(sentToStalled(true)).toBe(0);
    expect(sentToStalled(false)).toBeGreaterThan(20);
  });
});

describe('PeakEwmaModel.rate, the pick path', () => {
  it('gives exactly the cost and ejection that cost() and ejected() give, from one estimate', () => {
    // Random states that reach every branch: no sample, stale, pending,
    // above and below the fleet, with and without calls in flight.
    const state = fc.record({
      hasSample: fc.boolean(),
      rttMs: fc.double({ min: 0, max: 5_000, noNaN: true }),
      sampledAtMs: fc.integer({ min: 0, max: 10_000 }),
      busySinceMs: fc.integer({ min: 0, max: 10_000 }),
      outstanding: fc.integer({ min: 0, max: 50 }),
      fleetMs: fc.option(fc.double({ min: 0.1, max: 500, noNaN: true })),
      nowMs: fc.integer({ min: 10_000, max: 20_000 }),
      tuned: fc.boolean(),
      // The balancer's calls since the endpoint's sample, around K × READY.
      callsSince: fc.integer({ min: 0, max: 800 }),
      readyEndpoints: fc.integer({ min: 1, max: 30 }),
    });
    fc.assert(
      fc.property(state, (s) => {
        const model = new PeakEwmaModel(s.tuned ? TUNED : TEXTBOOK);
        if (s.fleetMs !== null) {
          model.fleet.record(s.fleetMs, 0, 2_000);
        }
        const load = sampled(s.rttMs, s.sampledAtMs, s.outstanding);
        load.hasSample = s.hasSample;
        load.busySinceMs = s.busySinceMs;
        load.sampledAtCall = 1_000;
        model.traffic.callsStarted = 1_000 + s.callsSince;
        model.traffic.setReadyEndpoints(s.readyEndpoints);
        const rating = new CandidateRating();
        model.rate(load, s.nowMs, rating);
        expect(rating.cost).toBe(model.cost(load, s.nowMs));
        // model.ejected() is rate() itself, so the ejection is checked
        // against the rule written out here (ejection.ts, the peak signal,
        // no budget or small-fleet line in these settings): a sampled
        // endpoint whose estimate is above R × the fleet average, once the
        // fleet has one; never with ejection off (TEXTBOOK).
        const settings = model.settings;
        const expected =
          load.hasSample &&
          !!settings.ejectionRatio &&
          model.fleet.hasSample &&
          estimateMs(load, s.nowMs, settings, model.fleet, model.traffic) > settings.ejectionRatio * model.fleet.rttMs;
        expect(rating.ejected).toBe(expected);
        expect(model.ejected(load, s.nowMs)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
    // Random estimates rarely land near the line: at it, the rule is strict.
    // Fleet 10 ms, R 2.5: the line is 25 ms; sampled just now, nothing in
    // flight, so the estimate is the stored one.
    const model = new PeakEwmaModel(TUNED);
    model.fleet.record(10, 0, 2_000);
    const rating = new CandidateRating();
    const judged = (rttMs: number): boolean => {
      model.rate(sampled(rttMs, 100), 100, rating);
      return rating.ejected;
    };
    expect([24.97, 25, 25.03].map(judged)).toEqual([false, false, true]);
  });
});
