import { foundBackAfterMs, RECONNECT_BACKOFF } from '../../scripts/sim/reconnect';
import { seededRandom } from '../../src/core/random';

/** A draw in the middle of the jitter: every wait is its nominal value. */
const NO_JITTER = () => 0.5;

describe('foundBackAfterMs (gRPC connection back-off)', () => {
  it('finds a backend that was never down at the first try', () => {
    expect(foundBackAfterMs(0, NO_JITTER)).toBe(0);
  });

  it('tries again exactly 1 s after the refusal: grpc-js does not jitter the first wait', () => {
    expect(foundBackAfterMs(1, () => 0)).toBe(1000);
    expect(foundBackAfterMs(1000, () => 1)).toBe(1000);
  });

  it('finds a pod down for 3 s at the fourth try: 1 + 1.6 + 2.56 s without jitter', () => {
    expect(foundBackAfterMs(3000, NO_JITTER)).toBeCloseTo(5160, 6);
  });

  it('jitters each later wait by ±20 % of its nominal value, compounding', () => {
    const random = seededRandom(7);
    const draws = Array.from({ length: 10_000 }, () => foundBackAfterMs(3000, random));
    // Second wait 1.6 s ± 20 %; the third 1.6 × the second ± 20 %.
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(1000 + 1280 + 0.8 * 1.6 * 1280);
    expect(Math.max(...draws)).toBeLessThanOrEqual(1000 + 1920 + 1.2 * 1.6 * 1920);
    // Compounding: the third wait is 1.6 × the second as drawn, so a short second makes a short third.
    // Jitter on fixed nominal waits (1.6 s, 2.56 s) would never find the pod before 1000 + 1280 + 2048.
    expect(Math.min(...draws)).toBeLessThan(1000 + 1280 + 2048);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean).toBeGreaterThan(5100);
    expect(mean).toBeLessThan(5220);
    expect(new Set(draws.map((d) => Math.round(d))).size).toBeGreaterThan(1000);
  });

  it('never waits longer than the cap between tries (its jitter aside)', () => {
    const downMs = 3_600_000;
    const back = foundBackAfterMs(downMs, NO_JITTER);
    expect(back).toBeGreaterThanOrEqual(downMs);
    expect(back - downMs).toBeLessThanOrEqual(RECONNECT_BACKOFF.maxMs);
    const jittered = foundBackAfterMs(downMs, () => 1);
    expect(jittered - downMs).toBeLessThanOrEqual(RECONNECT_BACKOFF.maxMs * (1 + RECONNECT_BACKOFF.jitter));
  });
});
