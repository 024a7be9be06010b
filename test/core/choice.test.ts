/**
 * Power of d choices: d distinct candidates drawn uniformly, the cheapest
 * kept, ties broken at random; d >= n (or Infinity) compares everyone.
 */
import { PowerOfChoices, seededRandom } from '../../src/core';

function recordingCost(costs: readonly number[], seen: number[]) {
  return (index: number) => {
    seen.push(index);
    return costs[index];
  };
}

describe('PowerOfChoices', () => {
  it('returns -1 with no candidates and the only one with one, without drawing', () => {
    let draws = 0;
    const chooser = new PowerOfChoices(() => {
      draws++;
      return 0.5;
    });
    expect(chooser.choose(0, 2, () => 0)).toBe(-1);
    expect(chooser.choose(1, 2, () => 0)).toBe(0);
    expect(draws).toBe(0);
  });

  it('reads exactly d distinct candidates and keeps the cheapest of them', () => {
    const chooser = new PowerOfChoices(seededRandom(7));
    const costs = Array.from({ length: 50 }, (_, i) => (i * 37) % 50);
    for (let round = 0; round < 1_000; round++) {
      for (const d of [2, 3, 10]) {
        const seen: number[] = [];
        const chosen = chooser.choose(costs.length, d, recordingCost(costs, seen));
        expect(seen).toHaveLength(d);
        expect(new Set(seen).size).toBe(d);
        expect(costs[chosen]).toBe(Math.min(...seen.map((i) => costs[i])));
      }
    }
  });

  it('compares every candidate when d >= n, and always finds the global minimum', () => {
    const chooser = new PowerOfChoices(seededRandom(1));
    const costs = [5, 3, 9, 1, 7];
    for (const d of [5, 8, Infinity]) {
      const seen: number[] = [];
      expect(chooser.choose(costs.length, d, recordingCost(costs, seen))).toBe(3);
      expect(new Set(seen).size).toBe(costs.length);
    }
  });

  it('draws each candidate with equal probability (20 identical endpoints, 200k picks, within 5 sigma)', () => {
    const n = 20;
    const picks = 200_000;
    const chooser = new PowerOfChoices(seededRandom(42));
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < picks; i++) {
      counts[chooser.choose(n, 2, () => 1)]++;
    }
    const p = 1 / n;
    const sigma = Math.sqrt(picks * p * (1 - p));
    for (const count of counts) {
      expect(Math.abs(count - picks * p)).toBeLessThan(5 * sigma);
    }
  });

  it('breaks ties uniformly at random even when comparing all candidates', () => {
    const chooser = new PowerOfChoices(seededRandom(3));
    const costs = [1, 2, 1, 2, 1];
    const counts = [0, 0, 0, 0, 0];
    const picks = 30_000;
    for (let i = 0; i < picks; i++) {
      counts[chooser.choose(costs.length, Infinity, (index) => costs[index])]++;
    }
    expect(counts[1] + counts[3]).toBe(0);
    const sigma = Math.sqrt(picks * (1 / 3) * (2 / 3));
    for (const index of [0, 2, 4]) {
      expect(Math.abs(counts[index] - picks / 3)).toBeLessThan(5 * sigma);
    }
  });

  it('with 2 choices, picks a 2x-costlier endpoint only when both draws are costly', () => {
    // 1 expensive endpoint of 10: it wins only if drawn... never, since the
    // other draw is always cheaper. 2 expensive of 10: both drawn 1/45 of the time.
    const chooser = new PowerOfChoices(seededRandom(9));
    const costs = [2, 2, 1, 1, 1, 1, 1, 1, 1, 1];
    let expensive = 0;
    const picks = 90_000;
    for (let i = 0; i < picks; i++) {
      if (costs[chooser.choose(10, 2, (index) => costs[index])] === 2) expensive++;
    }
    const p = 1 / 45;
    expect(Math.abs(expensive - picks * p)).toBeLessThan(5 * Math.sqrt(picks * p * (1 - p)));
  });
});
