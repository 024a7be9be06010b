import { bootstrapRatioInterval, sideBySide } from '../../scripts/bench/side-by-side';
import { seededRandom } from '../../src/core/random';

/** A saved uniform-layout run of `policy` at `slots`, repeat `repeat`, whose p99 over all calls is `p99Ms`. */
const run = (policy: string, slots: number, repeat: number, p99Ms: number, scenario = 's02', layout = 'uniform') =>
  ({ scenario, layout, repeat, regime: { slots }, policies: [{ policy, headline: { allLatency: { p99Ms } } }] }) as never;

describe('side-by-side repeats (scripts/bench/side-by-side.ts)', () => {
  it('pairs repeats by file and repeat number, per scenario and slot count, and leaves unpaired ones out', () => {
    const files = new Map([
      ['a.json', [run('peak_ewma', 1, 0, 110), run('round_robin', 1, 0, 100), run('peak_ewma', 1, 1, 90), run('round_robin', 1, 1, 100), run('peak_ewma', 2, 0, 60)]],
      // The same repeat numbers in another file are other pairs; a reference-layout run is not a uniform one.
      ['b.json', [run('round_robin', 1, 0, 200), run('peak_ewma', 1, 0, 300), run('peak_ewma', 1, 1, 50, 's02', 'reference')]],
    ]);
    const [oneSlot, ...rest] = sideBySide(files, 'peak_ewma', 'round_robin');
    expect(rest).toEqual([]); // two slots had no round_robin repeat
    expect(oneSlot).toMatchObject({ scenario: 's02', slots: 1, pairs: 3, policyMeanMs: 500 / 3, baselineMeanMs: 400 / 3 });
    expect(oneSlot.ratioOfMeans).toBeCloseTo(1.25, 12);
    // Per-pair ratios 1.1, 0.9, 1.5: one wild pair moves the mean, not the median.
    expect(oneSlot.pairedMedian).toBeCloseTo(1.1, 12);
    expect(oneSlot.ratioOfMedians).toBeCloseTo(110 / 100, 12);
  });

  it('never pools two regimes at the same slot count: a set at another median or fleet size is its own group', () => {
    const at = (policy: string, repeat: number, p99Ms: number, medianMs: number, backends: number) =>
      ({ scenario: 's02', layout: 'uniform', repeat, regime: { slots: 1, medianMs, backends, timeScaled: true }, policies: [{ policy, headline: { allLatency: { p99Ms } } }] }) as never;
    const files = new Map([['a.json', [at('peak_ewma', 0, 90, 20, 6), at('round_robin', 0, 100, 20, 6), at('peak_ewma', 1, 30, 10, 20), at('round_robin', 1, 20, 10, 20)]]]);
    const groups = sideBySide(files, 'peak_ewma', 'round_robin');
    expect(groups.map((g) => [g.slots, g.pairs, g.ratioOfMeans])).toEqual([
      [1, 1, 1.5],
      [1, 1, 0.9],
    ]);
  });

  it("the ratio's interval holds the ratio of means, and is one point when every pair is alike", () => {
    const a = [90, 110, 130, 70, 100];
    const b = [100, 100, 100, 100, 100];
    const [low, high] = bootstrapRatioInterval(a, b, seededRandom(1));
    expect(low).toBeLessThan(1);
    expect(high).toBeGreaterThan(1);
    expect(high - low).toBeLessThan(0.4);
    expect(bootstrapRatioInterval([120, 120], [100, 100], seededRandom(1))).toEqual([1.2, 1.2]);
  });
});
