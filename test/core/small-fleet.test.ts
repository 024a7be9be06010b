/**
 * In a fleet of at most five READY endpoints the ejection line is R × the
 * median of the endpoints' means, not R × the fleet average F
 * (src/core/small-fleet.ts). Why: F sits near whichever endpoint answers
 * fastest, and in a fleet of three near its capacity a healthy backend's
 * queue took its mean over 1.5 × F; ejected, its calls tipped the fleet
 * over (docs/tuning-log.md §40).
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';
import { SMALL_FLEET_MAX, smallFleetMedianMs } from '../../src/core/small-fleet';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { ejectedOf, fleetWithMeans } from '../support/mean-fleet';

/** Today's defaults with `overrides`, a fleet average of `fleetMs`, and fresh endpoints whose mean answers are `meansMs`. */
const fleetOf = (meansMs: number[], fleetMs: number, overrides: Partial<PeakEwmaSettings> = {}) =>
  fleetWithMeans({ ...PEAK_EWMA_DEFAULTS, ...overrides }, meansMs, fleetMs);

function sampled(meansMs: (number | null)[]): EndpointLoad[] {
  return meansMs.map((meanMs) => {
    const load = new EndpointLoad();
    if (meanMs !== null) {
      load.hasSample = true;
      load.meanRttMs = meanMs;
      load.meanSamples = 8; // a whole window of answers (EndpointLoad.hasMean)
    }
    return load;
  });
}

describe('the small fleet: the line a multiple of the median mean', () => {
  it('is the median of the sampled endpoints\' means, up to five READY endpoints; none beyond', () => {
    const median = smallFleetMedianMs(sampled([30, 10, 20]), []);
    expect(median).toBe(20);
    const even = smallFleetMedianMs(sampled([40, 10, 20, 100]), []);
    expect(even).toBe(20); // of an even count, the lower middle one
    const two = smallFleetMedianMs(sampled([20, 10]), []);
    expect(two).toBe(10); // of two, the faster: the slower is out above R × its mean
    const unsampled = smallFleetMedianMs(sampled([null, 10, 50, 60]), []);
    expect(unsampled).toBe(50); // the one without an answer has no mean to count
    expect(SMALL_FLEET_MAX).toBe(5);
    const six = smallFleetMedianMs(sampled([10, 10, 10, 10, 10, 10]), []);
    expect(six).toBe(0); // judged against F
    const none = smallFleetMedianMs(sampled([null, null]), []);
    expect(none).toBe(0);
  });

  it('keeps a queued healthy backend of three in, which F would put out, and still puts out the slow one', () => {
    // F sits near the fastest (10 ms); the second healthy backend's queue takes its mean to 16 ms,
    // over 1.5 × F; the slow one answers in 50 ms. The median of the means is 16.
    const means = [10, 16, 50];
    const small = fleetOf(means, 10, { maxEjectionPercent: 100 });
    small.model.beforePick(small.loads, 0);
    expect(ejectedOf(small.model, small.loads)).toEqual([false, false, true]);
    expect(small.model.ejectionLineMs).toBe(1.5 * 16);
    // The same endpoints among six (three more like the fastest) are judged against F: both out.
    const large = fleetOf([...means, 10, 10, 10], 10, { maxEjectionPercent: 100 });
    large.model.beforePick(large.loads, 0);
    expect(ejectedOf(large.model, large.loads)).toEqual([false, true, true, false, false, false]);
    expect(large.model.ejectionLineMs).toBe(1.5 * 10);
  });

  it('never puts out the median endpoint or one faster: at most half of the fleet, the slower half', () => {
    const two = fleetOf([10, 20], 10, { maxEjectionPercent: 100 });
    two.model.beforePick(two.loads, 0);
    expect(ejectedOf(two.model, two.loads)).toEqual([false, true]); // of two, the slower, as against F
    const { model, loads } = fleetOf([10, 30, 31, 100, 120], 10, { maxEjectionPercent: 100 });
    model.beforePick(loads, 0);
    // Median 31: the line 46.5 ms; 30 and 31 (3 × F) stay in, 100 and 120 are out.
    expect(ejectedOf(model, loads)).toEqual([false, false, false, true, true]);
  });

  it('is taken again every n picks and when n changes, as the budget ranks', () => {
    const { model, loads } = fleetOf([10, 12, 60], 10, { maxEjectionPercent: 100 });
    model.beforePick(loads, 0);
    expect(model.ejectionLineMs).toBe(1.5 * 12);
    loads[1].meanRttMs = 20;
    model.beforePick(loads, 0);
    model.beforePick(loads, 0);
    expect(model.ejectionLineMs).toBe(1.5 * 12); // two picks since: not yet
    model.beforePick(loads, 0);
    expect(model.ejectionLineMs).toBe(1.5 * 20); // the third
    const two = [loads[0], loads[2]];
    model.beforePick(two, 0);
    expect(model.ejectionLineMs).toBe(1.5 * 10); // n changed: at once (of 10 and 60, the faster; the line was 1.5 × 20)
    loads[0].meanRttMs = 12;
    model.beforePick(two, 0);
    expect(model.ejectionLineMs).toBe(1.5 * 10); // the same n: not yet
    model.beforePick(two, 0);
    expect(model.ejectionLineMs).toBe(1.5 * 12); // the n-th (second) pick since
  });

  it('leaves the peak signal judged against F, and the budget ranks ratios to the median', () => {
    const peak = fleetOf([10, 16, 50], 10, { ejectionSignal: 'peak', maxEjectionPercent: 100 });
    peak.model.beforePick(peak.loads, 0);
    expect(peak.model.ejectionLineMs).toBe(1.5 * 10);
    // Budget of one among five (P 20): against the median (40) only 100 and 120 are over the line,
    // so the budget's line rises to 100's ratio and only 120 is out.
    const budgeted = fleetOf([10, 40, 41, 100, 120], 10, { maxEjectionPercent: 20 });
    budgeted.model.beforePick(budgeted.loads, 0);
    expect(ejectedOf(budgeted.model, budgeted.loads)).toEqual([false, false, false, false, true]);
    expect(budgeted.model.ejectionLineMs).toBe(100);
  });
});

describe("a small fleet's mean cap sits above its line", () => {
  it('a pod 10 × the median mean is ejected though one fast pod holds F below the median', () => {
    // Each answer was capped at 2 × R × F for the mean; with one 1 ms pod carrying most calls, F = 4.6 ms,
    // the 100 ms pod's mean stayed at 13.8 under the line R × median = 15, and it was never ejected (review, 2026-12-07).
    const clock = new ManualClock(1_000);
    const model = new PeakEwmaModel({ ...PEAK_EWMA_DEFAULTS });
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const latencyMs = [1, 10, 10, 100];
    const loads = latencyMs.map(() => new EndpointLoad());
    for (let i = 0; i < 4_000; i++) {
      const k = engine.pick(loads);
      const started = engine.callStarted(loads[k]);
      clock.advance(latencyMs[k]);
      engine.callEnded(loads[k], CallOutcome.SUCCESS, started);
    }
    const nowMs = clock.now();
    model.beforePick(loads, nowMs);
    expect(model.fleet.rttMs).toBeLessThan(10);
    expect(loads.map((load) => model.ejected(load, nowMs))).toEqual([false, false, false, true]);
  });
});
