/**
 * Probe back-off (`maxProbeBackoff`, src/core/probe-backoff.ts): after j
 * failed calls in a row an endpoint's probe interval in calls and its
 * failure penalty are 2^j and 2^(j−1) times longer and larger (the interval
 * a step ahead, 2^(j−1) too after slow answers), at most the cap; a
 * success resets both. A crash-looping backend costs a light client fewer
 * failed calls; a busy client, whose probes the 1 s floor paces, is nearly
 * unchanged; an isolated failure is not backed off at all.
 */
import { CallOutcome, EndpointLoad, PeakEwmaModel, PeakEwmaSettings } from '../../src/core';
import { failuresInARowAfter, probeBackoffFactor, probeFairSharesOf } from '../../src/core/probe-backoff';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { crashLoop, probesBetween } from '../support/crash-loop';

const DEFAULTS: PeakEwmaSettings = { ...PEAK_EWMA_DEFAULTS };
const OFF: PeakEwmaSettings = { ...DEFAULTS, maxProbeBackoff: 0 };
const CAP_8: PeakEwmaSettings = { ...DEFAULTS, maxProbeBackoff: 8 };

describe('the back-off factor', () => {
  it('doubles with each failure in a row after the first, up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((j) => probeBackoffFactor(j, CAP_8))).toEqual([1, 1, 2, 4, 8, 8, 8]);
  });

  it('is 1 when off (0, 1 or absent)', () => {
    for (const maxProbeBackoff of [0, 1, undefined]) {
      expect(probeBackoffFactor(6, { ...DEFAULTS, maxProbeBackoff })).toBe(1);
    }
  });

  it('counts errors in a row; a success resets, a deadline or a cancel leaves the count', () => {
    const load = new EndpointLoad();
    load.consecutiveFailures = 3;
    expect(failuresInARowAfter(load, CallOutcome.FAILURE)).toBe(4);
    // A deadline says "slow", which its 500 ms-class sample already carries.
    expect(failuresInARowAfter(load, CallOutcome.DEADLINE_EXCEEDED)).toBe(3);
    expect(failuresInARowAfter(load, CallOutcome.CANCELLED)).toBe(3);
    expect(failuresInARowAfter(load, CallOutcome.SUCCESS)).toBe(0);
  });

  it('scales the failure penalty, and the model keeps the count', () => {
    const model = new PeakEwmaModel(CAP_8);
    const load = new EndpointLoad();
    const estimates: number[] = [];
    for (let call = 0; call < 6; call++) {
      model.recordCall(load, CallOutcome.FAILURE, 0.1, 0);
      estimates.push(load.rttMs);
    }
    // The estimate the model keeps, not a sample computed beside it: each
    // failure's sample is max(elapsed, E, f × defaultRtt × back-off) =
    // 5 × 10 ms (no fleet average yet) × 1, 2, 4, 8, 8, 8; the first replaces
    // the prior, each later one is above the estimate at the same instant
    // (nothing decayed), so the peak takes it (or keeps 400 ms at the cap).
    expect(estimates).toEqual([50, 100, 200, 400, 400, 400]);
    expect(load.consecutiveFailures).toBe(6);
    model.recordCall(load, CallOutcome.SUCCESS, 1, 1);
    expect(load.consecutiveFailures).toBe(0);
  });
});

describe('the probe interval', () => {
  /** A model whose fleet average is 10 ms, and an endpoint that answered in 10 ms at t = −1 and 0 (past its provisional first answer: first-answer.ts). */
  function answered(): { model: PeakEwmaModel; load: EndpointLoad } {
    const model = new PeakEwmaModel(CAP_8);
    for (let t = -4_000; t < -1; t++) model.fleet.record(10, t, CAP_8.decayMs);
    const load = new EndpointLoad();
    model.recordCall(load, CallOutcome.SUCCESS, 10, -1);
    model.recordCall(load, CallOutcome.SUCCESS, 10, 0);
    return { model, load };
  }

  it('is K fair shares for an endpoint that merely missed its turns', () => {
    expect(probeFairSharesOf(answered().load, CAP_8)).toBe(10);
  });

  it('is a step ahead of the penalty after errors: 2K after the first, 4K after the second, at most 8K', () => {
    const { model, load } = answered();
    const intervals: (number | undefined)[] = [];
    for (let t = 1; t <= 5; t++) {
      model.recordCall(load, CallOutcome.FAILURE, 0.1, t);
      intervals.push(probeFairSharesOf(load, CAP_8));
    }
    expect(intervals).toEqual([20, 40, 80, 80, 80]);
  });

  it('is K·2^(j−1) after j answers that left the endpoint ejected by its mean: a slow answer is weaker evidence than an error', () => {
    const { model, load } = answered();
    // 60 ms answers against F ≈ 10 ms: the mean passes R × F = 18 ms on the third.
    for (let t = 1; t <= 5; t++) model.recordCall(load, CallOutcome.SUCCESS, 60, t);
    expect(load.consecutiveFailures).toBe(3);
    expect(probeFairSharesOf(load, CAP_8)).toBe(40);
    // An error after them: one more failure, and a step ahead.
    model.recordCall(load, CallOutcome.FAILURE, 0.1, 6);
    // (four failures in a row, the last an error: 2^4, capped at 8.)
    expect(probeFairSharesOf(load, CAP_8)).toBe(80);
  });
});

describe('a crash-looping endpoint (fails every call for 40 s, then heals)', () => {
  const failedProbes = (settings: PeakEwmaSettings, rate: number): number => probesBetween(crashLoop(settings, rate, 60, 40_000), 2 * rate, 40 * rate);

  it('a client at 175 calls/s (s04 with 64 clients) sends it under a quarter of the failed calls', () => {
    // Without back-off a probe every ~1.2 s (10 fair shares, or the decay of a 5 × F penalty).
    const off = failedProbes(OFF, 175);
    const backedOff = failedProbes(CAP_8, 175);
    expect(off).toBeGreaterThan(25);
    expect(backedOff).toBeLessThan(off / 4);
  });

  it('a client at 175 calls/s probes it first 2K fair shares (2.3 s) after the failure that found it, not K', () => {
    const chosen = crashLoop(CAP_8, 175, 40);
    const secondsOfCallsToIt = chosen.flatMap((index, call) => (index === 0 ? [call / 175] : []));
    // 2K = 20 × 20 endpoints = 400 calls after the first failure; with K, 200 (1.1 s).
    expect(secondsOfCallsToIt[1] - secondsOfCallsToIt[0]).toBeGreaterThanOrEqual(400 / 175);
    // Then 4K, 8K and 8K ... fair shares apart: six failed calls in 40 s.
    expect(secondsOfCallsToIt).toHaveLength(6);
  });

  it('...and is back to about its fair share within 6 s of healing', () => {
    const chosen = crashLoop(CAP_8, 175, 60, 40_000);
    const fairPerSecond = 175 / 20;
    const afterSix = probesBetween(chosen, 46 * 175, 52 * 175) / 6;
    expect(afterSix).toBeGreaterThan(0.8 * fairPerSecond);
    expect(afterSix).toBeLessThan(1.25 * fairPerSecond);
  });

  it('a client at 40 calls/s (the load test\'s rate) fails 3 calls in 40 s: the one that found it, and probes 2K and 4K fair shares later', () => {
    const secondsOfCallsToIt = crashLoop(CAP_8, 40, 40).flatMap((index, call) => (index === 0 ? [call / 40] : []));
    expect(secondsOfCallsToIt).toHaveLength(3);
    // 2K = 20 fair shares = 400 calls = 10 s; 4K = 800 calls = 20 s.
    expect(secondsOfCallsToIt[1] - secondsOfCallsToIt[0]).toBeGreaterThanOrEqual(10);
    expect(secondsOfCallsToIt[2] - secondsOfCallsToIt[1]).toBeGreaterThanOrEqual(20);
    // 3 of 1,600 calls is 0.19 %. A share of 0.1 % would allow 1.6 failed calls: the one that found
    // the crash and no probe for the rest of the 40 s (docs/tuning-log.md §37), which the next test forbids.
  });

  it('...and after a crash of 5 s that client has the endpoint back at about its fair share within 8 s, where a 40 s wait would cost 35', () => {
    const chosen = crashLoop(CAP_8, 40, 30, 5_000);
    const fairPerSecond = 40 / 20;
    expect(probesBetween(chosen, 13 * 40, 17 * 40) / 4).toBeGreaterThan(0.8 * fairPerSecond);
  });

  it('a client at 1,000 calls/s keeps probing about once a second or more, and recovers at once', () => {
    const chosen = crashLoop(CAP_8, 1_000, 60, 40_000);
    // 8 × 10 fair shares = 1,600 calls = 1.6 s at most between probes.
    expect(probesBetween(chosen, 2_000, 40_000)).toBeGreaterThanOrEqual(38 / 1.6 - 1);
    expect(probesBetween(chosen, 41_000, 42_000)).toBeGreaterThan(0.7 * 50);
  });

  it('off: every pick is the same as without the field', () => {
    const { maxProbeBackoff: _, ...without } = OFF;
    expect(crashLoop(OFF, 175, 20)).toEqual(crashLoop(without, 175, 20));
  });
});
