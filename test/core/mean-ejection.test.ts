/**
 * The mean ejection signal (`ejectionSignal: "mean"`, src/core/ejection.ts):
 * an endpoint is ejected while a plain moving average of its samples is
 * above R × the fleet average. Unlike the peak estimate, the mean does not
 * decay with time, so an endpoint ejected for its latency stays out until
 * its estimate is stale and a probe says otherwise; a probe's answer
 * replaces the mean; and an answer that leaves it ejected backs the probes
 * off like a failure (probe-backoff.ts). A light client therefore stops
 * re-admitting a slow backend every τ·ln(ratio), which with many clients
 * added up to several per cent of all calls (docs/tuning-log.md §12).
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';
import { meanSamplesAfter, nextMeanRttMs, STALE_ANSWER_WEIGHT } from '../../src/core/mean';
import { probeBackoffFactor } from '../../src/core/probe-backoff';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

// The signals side by side with nothing else that keeps a slow endpoint out:
// the textbook decay toward 0 and no rotation (whose gate reads the mean too).
const PEAK: PeakEwmaSettings = {
  ...PEAK_EWMA_DEFAULTS,
  ejectionSignal: 'peak',
  ejectionRatio: 1.6,
  decayToward: 'zero',
  rotationGate: 0,
  rotationMargin: 0,
};
const MEAN: PeakEwmaSettings = { ...PEAK, ejectionSignal: 'mean' };

/**
 * A model whose fleet average is 10 ms — the rest of the fleet answered in
 * 10 ms once per ms for the 2τ before t = 0 — and `load` answered
 * `samplesMs` at t = 0, 1, 2, ... ms.
 */
function withSamples(settings: PeakEwmaSettings, samplesMs: number[]): { model: PeakEwmaModel; load: EndpointLoad } {
  const model = new PeakEwmaModel(settings);
  for (let t = -2 * settings.decayMs; t <= 0; t++) model.fleet.record(10, t, settings.decayMs);
  const load = new EndpointLoad();
  samplesMs.forEach((sampleMs, t) => model.recordCall(load, CallOutcome.SUCCESS, sampleMs, t));
  return { model, load };
}

describe('the mean signal', () => {
  it('is the first sample, then a moving average weighting each sample 1/8', () => {
    const load = new EndpointLoad();
    expect(nextMeanRttMs(load, 40, false)).toBe(40);
    load.meanSamples = meanSamplesAfter(load, false);
    load.hasSample = true;
    load.meanRttMs = 40;
    // A full window (a first answer counts as 8): 8 ms moves M an eighth of the way from 40, 40 − 32/8.
    expect(nextMeanRttMs(load, 8, false)).toBe(36);
    // A probe of an endpoint that was merely unpicked (stale) moves it halfway: news, but one answer.
    expect(STALE_ANSWER_WEIGHT).toBe(0.5);
    expect(nextMeanRttMs(load, 8, true)).toBe(40 + STALE_ANSWER_WEIGHT * (8 - 40));
    // ... and a lighter one by its own weight, if less.
    expect(nextMeanRttMs(load, 8, true, 0.25)).toBe(40 + 0.25 * (8 - 40));
    // The probe that restarts M (the endpoint M had ejected) replaces it: what the endpoint does now.
    expect(nextMeanRttMs(load, 8, true, 1, true)).toBe(8);
  });

  it('after the probe of an endpoint it had ejected, is the plain mean of the answers since the probe, over at most the last 8', () => {
    const load = new EndpointLoad();
    const answers = [30, 30, 30, 30, 10, 30, 20, 40, 10, 30, 50, 10];
    // A first answer, then one more: weighted 1/8, no fresh start.
    for (const [i, sampleMs] of [20, 36].entries()) {
      load.meanRttMs = nextMeanRttMs(load, sampleMs, false);
      load.meanSamples = meanSamplesAfter(load, false);
      load.hasSample = true;
      expect(load.meanRttMs).toBe(i === 0 ? 20 : 22);
    }
    answers.forEach((sampleMs, i) => {
      const probe = i === 0;
      load.meanRttMs = nextMeanRttMs(load, sampleMs, probe, 1, probe);
      load.meanSamples = meanSamplesAfter(load, probe);
      const since = answers.slice(0, i + 1);
      if (since.length <= 8) {
        expect(load.meanRttMs).toBeCloseTo(since.reduce((a, b) => a + b) / since.length, 9);
      } else {
        // From the 9th answer on, each moves M an eighth of the way from the last: the plain mean of
        // the first 8 is 220 / 8 = 27.5, then 27.5 + (10 − 27.5)/8 = 25.3125, + (30 − 25.3125)/8, ...
        expect(load.meanRttMs).toBeCloseTo([25.3125, 25.8984375, 28.9111328125, 26.5472412109375][i - 8], 9);
      }
      expect(load.meanSamples).toBe(Math.min(since.length, 8));
    });
    // ... and so does the next, whatever its sample: 26.547... + (90 − 26.547...)/8.
    const before = load.meanRttMs;
    expect(nextMeanRttMs(load, 90, false)).toBe(before + (90 - before) / 8);
  });

  it('does not start afresh after the probe of an endpoint that was not ejected (stale for want of turns): its answer counts half', () => {
    const { model, load } = withSamples(MEAN, [10, 12, 10]);
    const before = load.meanRttMs;
    const probedAt = 2 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    model.recordCall(load, CallOutcome.SUCCESS, 14, probedAt);
    const afterProbe = before + STALE_ANSWER_WEIGHT * (14 - before);
    expect(load.meanRttMs).toBe(afterProbe);
    model.recordCall(load, CallOutcome.SUCCESS, 22, probedAt + 1);
    expect(load.meanRttMs).toBe(afterProbe + (22 - afterProbe) / 8); // a full window: an eighth of the way
  });

  it('keeps a typical endpoint in on one slow answer after an idle spell, and puts it out on two (line 1.5 × F)', () => {
    // Fleet 10 ms, line 15 ms; the endpoint's M is typical (10 ms), then it is unpicked past maxEjectionTime.
    const settings: PeakEwmaSettings = { ...MEAN, ejectionRatio: 1.5 };
    const { model, load } = withSamples(settings, new Array(8).fill(10));
    const staleAt = 7 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    // A pod back from a crash loop answers its first call slowly (a queue filled at once): 18 ms.
    // Replacing M would put it out (18 > 15) for a whole probe interval; halfway it is 14, still in.
    model.recordCall(load, CallOutcome.SUCCESS, 18, staleAt);
    expect(load.meanRttMs).toBe(14);
    expect(model.ejected(load, staleAt + 1)).toBe(false);
    // A second slow answer is evidence: 14 + (26 − 14)/8 = 15.5, over the line.
    model.recordCall(load, CallOutcome.SUCCESS, 26, staleAt + 1);
    expect(model.ejected(load, staleAt + 2)).toBe(true);
  });

  it('ejects an erratic endpoint again on the first slow answer after a lucky probe', () => {
    // Ejected at 30 ms against a 10 ms fleet (R 1.6: the line is 16 ms); stale after maxEjectionTime.
    const { model, load } = withSamples(MEAN, [30, 30, 30]);
    const probedAt = 2 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    model.recordCall(load, CallOutcome.SUCCESS, 8, probedAt);
    expect(model.ejected(load, probedAt + 1)).toBe(false);
    // One answer of 30 ms: (8 + 30) / 2 = 19 ms, out again; weighed 1/8 it would be 10.75 ms, still in.
    model.recordCall(load, CallOutcome.SUCCESS, 30, probedAt + 1);
    expect(load.meanRttMs).toBeCloseTo(19, 9);
    expect(model.ejected(load, probedAt + 2)).toBe(true);
  });

  it('keeps a 2× slower endpoint ejected while its peak estimate decays below the ratio', () => {
    // Fleet 10 ms; the endpoint answered 20 ms three times, then nothing for 0.3 τ (under maxEjectionTime).
    const peak = withSamples(PEAK, [20, 20, 20]);
    const mean = withSamples(MEAN, [20, 20, 20]);
    expect(peak.model.ejected(peak.load, 2)).toBe(true);
    expect(mean.model.ejected(mean.load, 2)).toBe(true);
    // 20 × e^(−0.3) ≈ 14.8 ms < 16 ms: the peak signal re-admits it; the mean still says 20.
    const later = 0.3 * PEAK.decayMs;
    expect(later).toBeLessThan(PEAK_EWMA_DEFAULTS.maxEjectionMs);
    expect(peak.model.ejected(peak.load, later)).toBe(false);
    expect(mean.model.ejected(mean.load, later)).toBe(true);
  });

  it('prices a fresh endpoint at its mean answer at least, so a decayed peak cannot make a slow endpoint look cheap; stale, at the fleet average (its probe)', () => {
    // Fleet 10 ms; the endpoint answered 15 ms eight times: M = 15, under R × F = 16, so not ejected.
    const { model, load } = withSamples(MEAN, new Array(8).fill(15));
    expect(model.ejected(load, 8)).toBe(false);
    // 0.9 s later (fresh: under maxEjectionTime) E has decayed to 15 × e^(−0.45) ≈ 9.6 ms, under
    // the fleet's 10; the cost still prices the 15 ms the endpoint answers on average.
    const fresh = 8 + 0.9 * PEAK_EWMA_DEFAULTS.maxEjectionMs;
    expect(load.rttMs * Math.exp(-(fresh - 7) / MEAN.decayMs)).toBeLessThan(model.fleet.rttMs);
    expect(model.cost(load, fresh)).toBe(model.cost(load, 8));
    // Stale, the floor is off and the cost at most the fleet average's, as any stale endpoint's: it is probed.
    const stale = 7 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    expect(model.cost(load, stale)).toBeLessThanOrEqual(model.fleet.rttMs);
    // Without a mean nothing floors the decay: the peak signal without a rotation, or the mean signal
    // with ejection off (the textbook configuration), keep none.
    for (const settings of [PEAK, { ...MEAN, ejectionRatio: 0 }]) {
      const textbook = withSamples(settings, new Array(8).fill(15));
      expect(textbook.model.cost(textbook.load, fresh)).toBeLessThan(textbook.model.cost(textbook.load, 8) / 2);
    }
  });

  it('never ejects a stale endpoint, so it is probed; a fast probe re-admits it at once', () => {
    const { model, load } = withSamples(MEAN, [30, 30, 30]);
    // Without traffic the probe interval is time only: stale after maxEjectionTime.
    const staleAt = 2 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    expect(model.ejected(load, staleAt - 1)).toBe(true);
    expect(model.ejected(load, staleAt)).toBe(false);
    model.recordCall(load, CallOutcome.SUCCESS, 10, staleAt);
    expect(load.meanRttMs).toBe(10);
    expect(model.ejected(load, staleAt + 1)).toBe(false);
  });

  it('counts an answer that leaves the endpoint ejected as a failed probe; a good one resets the count', () => {
    const { model, load } = withSamples(MEAN, [30, 30, 30]);
    expect(load.consecutiveFailures).toBe(3);
    model.recordCall(load, CallOutcome.SUCCESS, 10, 4);
    // (30 − 20/8 = 27.5 ms: one good answer is not enough to come back.)
    expect(load.consecutiveFailures).toBe(4);
    const { model: healed, load: probed } = withSamples(MEAN, [30, 30, 30]);
    healed.recordCall(probed, CallOutcome.SUCCESS, 10, 2 + PEAK_EWMA_DEFAULTS.maxEjectionMs);
    expect(probed.consecutiveFailures).toBe(0);
  });

  it('resumes the back-off a lucky probe suspended when the answers after it eject the endpoint again', () => {
    // Three answers of 30 ms against F = 10 ms and R = 1.6: ejected, three failed probes' worth.
    const { model, load } = withSamples(MEAN, [30, 30, 30]);
    expect(load.consecutiveFailures).toBe(3);
    const probeAt = 2 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    // A lucky probe: back in, the count reset (the gate's "has not failed lately" reads it).
    model.recordCall(load, CallOutcome.SUCCESS, 10, probeAt);
    expect(load.consecutiveFailures).toBe(0);
    expect(model.ejected(load, probeAt)).toBe(false);
    // Its next answer: (10 + 30) / 2 = 20 ms > 16 ms, out again, the back-off where the probe found it.
    model.recordCall(load, CallOutcome.SUCCESS, 30, probeAt + 1);
    expect(load.consecutiveFailures).toBe(4);
    expect(probeBackoffFactor(load.consecutiveFailures, MEAN)).toBe(8);
  });

  it('starts the back-off afresh when an endpoint is ejected after a full window of typical answers since its probe', () => {
    const { model, load } = withSamples(MEAN, [30, 30, 30]);
    let t = 2 + PEAK_EWMA_DEFAULTS.maxEjectionMs;
    for (let i = 0; i < 8; i++) model.recordCall(load, CallOutcome.SUCCESS, 10, t++);
    expect(load.consecutiveFailures).toBe(0);
    // Slow again: 10 → 12.75 → 15.5 → 17.9 ms (each answer capped at 32 ms, weighing 1/8).
    for (let i = 0; i < 3; i++) model.recordCall(load, CallOutcome.SUCCESS, 50, t++);
    expect(model.ejected(load, t)).toBe(true);
    expect(load.consecutiveFailures).toBe(1);
  });

  it('takes a sample of at most 2 × R × F, so one call stuck behind a long one cannot eject a healthy endpoint', () => {
    // Fleet 10 ms, R 1.6: samples above 32 ms count as 32 ms.
    const { model, load } = withSamples(MEAN, [10, 10, 10, 500]);
    expect(load.meanRttMs).toBeCloseTo(10 + (32 - 10) / 8, 9);
    expect(model.ejected(load, 4)).toBe(false);
    // An endpoint slow on every call still ends at the cap, far above the line (here its own
    // answers are the fleet's only ones after the first, so F moves toward them too).
    const slow = withSamples(MEAN, [10, ...Array<number>(8).fill(500)]);
    expect(slow.load.meanRttMs).toBeGreaterThan(1.6 * slow.model.fleet.rttMs);
    expect(slow.load.meanRttMs).toBeLessThanOrEqual(2 * 1.6 * slow.model.fleet.rttMs);
    expect(slow.model.ejected(slow.load, 9)).toBe(true);
  });

  it('leaves failures to the error penalty: they move neither the mean nor, beyond their own count, the back-off', () => {
    const { model, load } = withSamples(MEAN, [10, 10]);
    for (let t = 2; t < 7; t++) {
      model.recordCall(load, CallOutcome.FAILURE, 0.1, t);
    }
    expect(load.meanRttMs).toBe(10);
    expect(load.consecutiveFailures).toBe(5);
    // The penalty still lands in the peak estimate, which the cost and the decay use.
    expect(load.rttMs).toBeGreaterThanOrEqual(PEAK_EWMA_DEFAULTS.errorPenaltyFactor * 10);
  });

  it('leaves the peak signal as it was: a slow answer is no failure there', () => {
    const { load } = withSamples(PEAK, [30, 30, 30]);
    expect(load.consecutiveFailures).toBe(0);
  });
});

describe('a light client (175 calls/s, 20 endpoints; endpoint 0 answers in 2.5 ms, the others in 0.5–1.5 ms)', () => {
  /** Calls to endpoint 0 over 60 s, each call done before the next. */
  function callsToSlow(settings: PeakEwmaSettings): number {
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(settings), choiceCount: 2, clock: clock.now, random: seededRandom(11) });
    const loads = Array.from({ length: 20 }, () => new EndpointLoad());
    const latency = seededRandom(5);
    let toSlow = 0;
    for (let call = 0; call < 60 * 175; call++) {
      clock.set((call * 1_000) / 175);
      const index = engine.pick(loads);
      const started = engine.callStarted(loads[index]);
      clock.advance(index === 0 ? 2.5 : 0.5 + latency());
      engine.callEnded(loads[index], CallOutcome.SUCCESS, started);
      toSlow += index === 0 ? 1 : 0;
    }
    return toSlow;
  }

  it('sends the slow endpoint under a quarter of the calls with the mean signal that it sends with the peak signal', () => {
    const peak = callsToSlow(PEAK);
    const mean = callsToSlow(MEAN);
    // The peak signal re-admits it once its peak decays under 1.6 × the fleet's ~1 ms, within τ·ln(2.5/1.6) ≈ 0.9 s.
    expect(peak).toBeGreaterThan(40);
    expect(mean).toBeLessThan(peak / 4);
    // Still probed: a healed backend would be found again.
    expect(mean).toBeGreaterThan(5);
  });
});
