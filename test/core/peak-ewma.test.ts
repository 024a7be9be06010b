/**
 * The peak-EWMA estimate, as a specification. τ = decayMs is a time constant.
 */
import { blendRttMs, decayedRttMs, nextRttMs, retainedFraction } from '../../src/core/peak-ewma';

const TAU_MS = 1_000;

describe('between samples the estimate decays toward zero', () => {
  it('keeps exp(-Δt/τ) of its value: 36.8 % after τ, half after τ·ln 2', () => {
    expect(decayedRttMs(100, TAU_MS, TAU_MS)).toBeCloseTo(100 * Math.exp(-1), 10);
    expect(decayedRttMs(100, TAU_MS * Math.LN2, TAU_MS)).toBeCloseTo(50, 10);
  });

  it('does not move at Δt = 0, and treats a clock that went backwards as Δt = 0', () => {
    expect(decayedRttMs(42, 0, TAU_MS)).toBe(42);
    expect(decayedRttMs(42, -5, TAU_MS)).toBe(42);
    expect(retainedFraction(-1, TAU_MS)).toBe(1);
  });

  it('composes: decaying for a then b equals decaying for a + b', () => {
    const twoSteps = decayedRttMs(decayedRttMs(80, 300, TAU_MS), 700, TAU_MS);
    expect(twoSteps).toBeCloseTo(decayedRttMs(80, 1_000, TAU_MS), 10);
  });
});

describe('a sample above the decayed estimate replaces it at once (the peak)', () => {
  it('jumps from 10 ms to 500 ms on one slow answer, however recent the last sample', () => {
    expect(nextRttMs(10, 1, 500, TAU_MS)).toBe(500);
    expect(nextRttMs(10, 0, 500, TAU_MS)).toBe(500);
  });

  it('compares with the decayed value: 60 ms beats 100 ms decayed for τ (36.8 ms)', () => {
    expect(nextRttMs(100, TAU_MS, 60, TAU_MS)).toBe(60);
  });
});

describe('a lower sample is blended in with weight 1 - exp(-Δt/τ)', () => {
  it('barely moves the estimate when it comes right after the last sample', () => {
    const next = nextRttMs(100, 1, 10, TAU_MS);
    const alpha = 1 - Math.exp(-1 / TAU_MS);
    const decayed = 100 * Math.exp(-1 / TAU_MS);
    expect(next).toBeCloseTo((1 - alpha) * decayed + alpha * 10, 10);
    expect(next).toBeGreaterThan(99);
  });

  it('moves it most of the way after a long gap', () => {
    const next = nextRttMs(100, 3 * TAU_MS, 4, TAU_MS);
    // decayed = 4.98, alpha = 0.95: the sample dominates.
    expect(next).toBeGreaterThan(4);
    expect(next).toBeLessThan(4.1);
  });

  it('never raises the estimate above its decayed value, nor below the sample', () => {
    for (const [rtt, dt, sample] of [
      [100, 10, 50],
      [100, 500, 20],
      [30, 200, 24],
      [5, 0, 5],
    ]) {
      const decayed = decayedRttMs(rtt, dt, TAU_MS);
      const next = nextRttMs(rtt, dt, sample, TAU_MS);
      expect(next).toBeLessThanOrEqual(decayed);
      expect(next).toBeGreaterThanOrEqual(sample);
    }
  });
});

describe('a sample of weight v < 1 (a cheap method\'s answer) takes v of either step', () => {
  it('raises a 10 ms estimate to 15 ms, not 30, on a 30 ms sample of weight 1/4', () => {
    expect(blendRttMs(10, 0.5, 30, 0.25)).toBe(15);
  });

  it('lowers it by v · α of the gap: 10 ms with α = 1/2 and a 2 ms sample of weight 1/4 → 9 ms', () => {
    expect(blendRttMs(10, 0.5, 2, 0.25)).toBe(9);
  });

  it('is the plain peak rule at weight 1, to the bit', () => {
    for (const [decayed, retained, sample] of [
      [10, 0.5, 30],
      [10, 0.3, 2],
      [7.3, 0.999, 7.2999],
    ]) {
      expect(blendRttMs(decayed, retained, sample, 1)).toBe(blendRttMs(decayed, retained, sample));
    }
    expect(blendRttMs(10, 0.3, 2)).toBe(0.3 * 10 + 0.7 * 2);
  });
});
