/**
 * Costs: peak EWMA = estimate × (outstanding + 1) with a penalty for a busy
 * endpoint that has not answered yet; least_request = outstanding.
 */
import { FleetRtt } from '../../src/core/fleet-rtt';
import {
  CallOutcome,
  EndpointLoad,
  leastRequestModel,
  ManualClock,
  PeakEwmaModel,
  PeakEwmaSettings,
  peakEwmaCost,
  sampleForOutcome,
} from '../../src/core';

const SETTINGS: PeakEwmaSettings = { decayMs: 1_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 1 };

function loadWith(outstanding: number, rttMs?: number, sampledAtMs = 0): EndpointLoad {
  const load = new EndpointLoad();
  load.outstanding = outstanding;
  if (rttMs !== undefined) {
    load.rttMs = rttMs;
    load.sampledAtMs = sampledAtMs;
    load.hasSample = true;
  }
  return load;
}

describe('peak EWMA cost', () => {
  it('is the estimate times (outstanding + 1)', () => {
    expect(peakEwmaCost(loadWith(5, 20), 0, SETTINGS)).toBe(120);
    expect(peakEwmaCost(loadWith(0, 30), 0, SETTINGS)).toBe(30);
  });

  it('uses the decayed estimate', () => {
    expect(peakEwmaCost(loadWith(1, 20), 1_000, SETTINGS)).toBeCloseTo(2 * 20 * Math.exp(-1), 10);
  });

  // 0, not defaultRtt (since issue 14): a fixed 10 ms lost every comparison
  // with peers of a faster service, so a new endpoint never got its probe.
  it('is 0 for a new endpoint with nothing in flight: the first pick that draws it probes it', () => {
    expect(peakEwmaCost(loadWith(0), 0, SETTINGS)).toBe(0);
    expect(peakEwmaCost(loadWith(0), 0, SETTINGS)).toBeLessThan(peakEwmaCost(loadWith(0, 0.5), 0, SETTINGS));
  });

  it('is penaltyValue + outstanding for a new endpoint with calls in flight, so it is probed one call at a time', () => {
    expect(peakEwmaCost(loadWith(3), 0, SETTINGS)).toBe(1e6 + 3);
    expect(peakEwmaCost(loadWith(2), 0, { ...SETTINGS, penaltyValue: 500_000 })).toBe(500_002);
  });

  it('an endpoint that never answered stays free while idle, however long', () => {
    expect(peakEwmaCost(loadWith(0), 1e9, SETTINGS)).toBe(0);
  });
});

describe('what a finished call teaches the estimate', () => {
  const load = loadWith(0, 20, 0);

  it('a success or a deadline is a sample of the elapsed time', () => {
    expect(sampleForOutcome(load, CallOutcome.SUCCESS, 12, 0, SETTINGS)).toBe(12);
    expect(sampleForOutcome(load, CallOutcome.DEADLINE_EXCEEDED, 500, 0, SETTINGS)).toBe(500);
  });

  it('a client cancel teaches nothing', () => {
    expect(sampleForOutcome(load, CallOutcome.CANCELLED, 5, 0, SETTINGS)).toBeNull();
  });

  it('a failure is a plain sample with errorPenaltyFactor 1', () => {
    expect(sampleForOutcome(load, CallOutcome.FAILURE, 0.1, 0, SETTINGS)).toBe(0.1);
  });

  // The base is the fleet's typical call, not the endpoint's own estimate
  // (since 2026-12-01): f × estimate compounded, f^n after n failures.
  it('a failure counts as max(elapsed, estimate, factor × max(defaultRtt, fleet)) when the factor is above 1', () => {
    const penalised = { ...SETTINGS, errorPenaltyFactor: 3 };
    // No fleet sample yet: the base is defaultRtt (10 ms).
    expect(sampleForOutcome(load, CallOutcome.FAILURE, 0.1, 0, penalised)).toBe(30);
    expect(sampleForOutcome(loadWith(0, 1, 0), CallOutcome.FAILURE, 0.1, 0, penalised)).toBe(30);
    expect(sampleForOutcome(load, CallOutcome.FAILURE, 900, 0, penalised)).toBe(900);
    // A failure never lowers an estimate above the penalty.
    expect(sampleForOutcome(loadWith(0, 70, 0), CallOutcome.FAILURE, 0.1, 0, penalised)).toBe(70);
    // With a fleet average above defaultRtt, the base is the fleet average.
    const fleet = new FleetRtt();
    fleet.record(40, 0, 1_000);
    expect(sampleForOutcome(load, CallOutcome.FAILURE, 0.1, 0, penalised, fleet)).toBe(120);
  });

  // The same rule as the model applies it (recordCall → sampleWith), read
  // back from the estimate it keeps: on an endpoint with no sample yet the
  // first sample replaces the prior, so load.rttMs is the sample itself.
  it('the model keeps those samples: a first failure is factor × max(defaultRtt, fleet)', () => {
    const penalised = { ...SETTINGS, errorPenaltyFactor: 3 };
    const firstFailure = (fleetMs?: number): number => {
      const model = new PeakEwmaModel(penalised);
      if (fleetMs !== undefined) {
        model.fleet.record(fleetMs, 0, penalised.decayMs);
      }
      const fresh = new EndpointLoad();
      model.recordCall(fresh, CallOutcome.FAILURE, 0.1, 0);
      return fresh.rttMs;
    };
    // No fleet average: max(0.1, defaultRtt 10, 3 × 10) = 30.
    expect(firstFailure()).toBe(30);
    // Fleet average 40 ms: max(0.1, 10, 3 × max(10, 40)) = 120.
    expect(firstFailure(40)).toBe(120);
    // Fleet average 4 ms, below defaultRtt: the base stays 10, so 30.
    expect(firstFailure(4)).toBe(30);
    // With errorPenaltyFactor 1 a failure is a plain sample: 0.1.
    const plain = new PeakEwmaModel(SETTINGS);
    const fresh = new EndpointLoad();
    plain.recordCall(fresh, CallOutcome.FAILURE, 0.1, 0);
    expect(fresh.rttMs).toBe(0.1);
  });
});

describe('the error penalty is bounded', () => {
  // Regression: each failure used to count as 5 × the estimate it raised, so
  // a run of fast failures grew the estimate 5-fold per failure (1e70 ms
  // after 100 losing hedges over real gRPC, issue 14).
  it('a run of failures leaves the estimate at the penalty, not factor^n', () => {
    const settings = { ...SETTINGS, errorPenaltyFactor: 5 };
    const model = new PeakEwmaModel(settings);
    const load = new EndpointLoad();
    for (let ms = 1; ms <= 20; ms++) {
      model.recordCall(load, CallOutcome.SUCCESS, 10, ms);
    }
    for (let i = 0; i < 100; i++) {
      model.recordCall(load, CallOutcome.FAILURE, 0.1, 21 + i * 0.001);
    }
    expect(load.rttMs).toBeCloseTo(5 * 10, 6);
    expect(model.cost(load, 21.1)).toBeLessThan(5 * 10 + 1e-6);
  });
});

describe('PeakEwmaModel.recordCall', () => {
  it('the first answer replaces the prior entirely', () => {
    const model = new PeakEwmaModel(SETTINGS);
    const load = new EndpointLoad();
    model.recordCall(load, CallOutcome.SUCCESS, 3, 100);
    expect(load.hasSample).toBe(true);
    expect(load.rttMs).toBe(3);
    expect(load.sampledAtMs).toBe(100);
  });

  it('a cancelled call leaves the estimate and its timestamp alone', () => {
    const model = new PeakEwmaModel(SETTINGS);
    const load = loadWith(0, 40, 0);
    model.recordCall(load, CallOutcome.CANCELLED, 1, 500);
    expect(load.rttMs).toBe(40);
    expect(load.sampledAtMs).toBe(0);
  });

  it('ignores a sample that is not a finite non-negative number', () => {
    const model = new PeakEwmaModel(SETTINGS);
    const load = loadWith(0, 40, 0);
    model.recordCall(load, CallOutcome.SUCCESS, NaN, 10);
    model.recordCall(load, CallOutcome.SUCCESS, -1, 10);
    model.recordCall(load, CallOutcome.SUCCESS, Infinity, 10);
    expect(load.rttMs).toBe(40);
  });

  it('takes new settings live without touching per-endpoint state', () => {
    const clock = new ManualClock();
    const model = new PeakEwmaModel(SETTINGS);
    const load = loadWith(0, 100, 0);
    clock.advance(1_000);
    expect(model.cost(load, clock.now())).toBeCloseTo(100 * Math.exp(-1), 10);
    model.settings = { ...SETTINGS, decayMs: 2_000 };
    expect(model.cost(load, clock.now())).toBeCloseTo(100 * Math.exp(-0.5), 10);
    expect(load.rttMs).toBe(100);
  });
});

describe('least_request cost', () => {
  it('is the number of calls in flight, whatever the latency', () => {
    expect(leastRequestModel.cost(loadWith(4, 1_000), 0)).toBe(4);
    expect(leastRequestModel.cost(loadWith(0, 1_000), 0)).toBe(0);
  });
});
