import { loopDelayOf } from '../../scripts/bench/loop-delay';
import { bootstrapMeanInterval, meanOfRead, seedOf } from '../../scripts/bench/stats';
import { seededRandom } from '../../src/core/random';

describe('bootstrap intervals', () => {
  it('are exact with a seeded source: the same values and seed give the same interval', () => {
    const values = [272, 301, 288, 315, 280];
    const a = bootstrapMeanInterval(values, seededRandom(7));
    expect(bootstrapMeanInterval(values, seededRandom(7))).toEqual(a);
    // A percentile interval of the mean lies inside the values' range and holds their mean.
    expect(a[0]).toBeGreaterThanOrEqual(272);
    expect(a[1]).toBeLessThanOrEqual(315);
    expect(a[0]).toBeLessThan(291.2);
    expect(a[1]).toBeGreaterThan(291.2);
  });

  it('matches a hand-computed case: two values resample to their mean 1/2 of the time, each end 1/4', () => {
    // Resamples of [0, 10] have means 0, 5, 5, 10 with probability 1/4, 1/2, 1/4: the 2.5 % and 97.5 % quantiles are 0 and 10.
    expect(bootstrapMeanInterval([0, 10], seededRandom(1))).toEqual([0, 10]);
    // At level 0.4 the quantiles 0.3 and 0.7 both fall on the middle mass.
    expect(bootstrapMeanInterval([0, 10], seededRandom(1), 0.4)).toEqual([5, 5]);
  });

  it('gives one value as its own interval and ignores values that are not finite', () => {
    expect(bootstrapMeanInterval([42], seededRandom(1))).toEqual([42, 42]);
    expect(bootstrapMeanInterval([NaN, 42], seededRandom(1))).toEqual([42, 42]);
    expect(bootstrapMeanInterval([], seededRandom(1)).every(Number.isNaN)).toBe(true);
  });

  it('seeds per cell from a stable hash', () => {
    expect(seedOf('s02|uniform|8x160/20|peak_ewma|p99')).toBe(seedOf('s02|uniform|8x160/20|peak_ewma|p99'));
    expect(seedOf('a')).not.toBe(seedOf('b'));
  });
});

describe('loop delay', () => {
  it("subtracts the monitor's resolution: an idle loop reports 0, not 10 ms", () => {
    expect(loopDelayOf({ percentile: () => 10.2e6, max: 9.9e6 })).toEqual({ p99: expect.closeTo(0.2, 6), max: 0 });
    expect(loopDelayOf({ percentile: () => 35e6, max: 130e6 })).toEqual({ p99: 25, max: 120 });
  });
});

describe('meanOfRead', () => {
  it('is the mean, or NaN where a figure was written to JSON as null (NaN)', () => {
    expect(meanOfRead([10, 20])).toBe(15);
    expect(meanOfRead(JSON.parse(JSON.stringify([10, NaN])))).toBeNaN();
  });
});
