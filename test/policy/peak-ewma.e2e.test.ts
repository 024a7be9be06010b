/**
 * peak_ewma_experimental over real gRPC on 127.0.0.1. Every test shows the
 * policy ran: a silent pick_first fallback would send everything to one
 * backend, round_robin would give the slow one 20 %.
 */
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../src';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { clientFor, fastOutlierDetection, runTraffic, shareOf, trafficUntilClean } from '../support/traffic';

register();

// Large enough that timer granularity and a busy 2-core machine do not
// blur the 10x ratio.
const FAST_MS = 40;
const SLOW_MS = 400;

function statsFor(label: string) {
  const found = getLoadBalancerStats().filter((stats) => stats.label === label);
  expect(found).toHaveLength(1);
  return found[0];
}

describe('peak_ewma_experimental steers away from a slow backend', () => {
  let backends: TestBackend[];

  beforeEach(async () => {
    backends = await startBackendsAnswering([SLOW_MS, FAST_MS, FAST_MS, FAST_MS, FAST_MS]);
  });
  afterEach(() => stopBackends(backends));

  it('gives a 10x slower backend under 5 % of calls where round_robin gives it 20 %', async () => {
    const peak = clientFor(backends, [{ peak_ewma_experimental: {} }], { [STATS_LABEL_OPTION]: 'slow-peak' });
    const roundRobin = clientFor(backends, [{ round_robin: {} }]);
    try {
      const traffic = { concurrency: 8, maxCalls: 1_000, maxDurationMs: 20_000 };
      // Stats are read the moment peak_ewma's traffic ends: round_robin, held
      // up by the slow backend, finishes seconds later, and by then the idle
      // estimate would have decayed (τ = 2 s) toward nothing.
      let stats: ReturnType<typeof statsFor> | undefined;
      const [peakResult, rrResult] = await Promise.all([
        runTraffic(peak, traffic).then((result) => ((stats = statsFor('slow-peak')), result)),
        runTraffic(roundRobin, traffic),
      ]);
      expect(peakResult.failures).toEqual([]);
      expect(rrResult.failures).toEqual([]);
      expect(shareOf(rrResult, backends[0])).toBeCloseTo(0.2, 1);
      expect(shareOf(peakResult, backends[0])).toBeLessThan(0.05);
      // Every fast backend is used: not a pick_first fallback.
      for (const backend of backends.slice(1)) {
        expect(shareOf(peakResult, backend)).toBeGreaterThan(0.15);
      }
      expect(stats!.policy).toBe('peak_ewma_experimental');
      expect(stats!.state).toBe('READY');
      const slow = stats!.endpoints.find((endpoint) => endpoint.address === backends[0].address)!;
      expect(slow.estimateMs).toBeGreaterThan(2 * FAST_MS); // decayed since its last probe, still well above
      expect(stats!.endpoints.every((endpoint) => endpoint.outstanding === 0)).toBe(true);
    } finally {
      peak.close();
      roundRobin.close();
    }
  });

  it('returns the backend to a fair share within about decayTime once it is fast again', async () => {
    const decayMs = 1_000;
    const client = clientFor(backends, [{ peak_ewma_experimental: { decayTime: '1s' } }]);
    try {
      const traffic = { concurrency: 8, maxCalls: 100_000 };
      const slowPhase = await runTraffic(client, { ...traffic, maxDurationMs: 3_000 });
      // With τ = 1 s the slow backend is re-probed every ~1.6 s (400 ms decays
      // to a fast backend's cost): well below fair, not as low as with τ = 10 s.
      expect(shareOf(slowPhase, backends[0])).toBeLessThan(0.1);
      backends[0].behaviour.delayMs = FAST_MS;
      await runTraffic(client, { ...traffic, maxDurationMs: 2 * decayMs });
      // Measured over 1 000 calls, not over 1 s: 1 s of 8 workers was ~150 calls on a loaded machine,
      // where a fair 0.2 has σ ≈ 0.033 and 0.14 is 1.8σ away (a few % of runs failed by chance). Over
      // 1 000 calls σ ≈ 0.013 and both bounds are more than 4.5σ away (< 1e-5 by chance). 24 workers
      // keep the window short (≈ 1.7 s quiet, 2.7 s loaded, i.e. 2-3 decayTimes), so it still shows
      // recovery within about decayTime: a backend still avoided for the window's first second would
      // bring the share under 0.14.
      const recovered = await runTraffic(client, { concurrency: 24, maxCalls: 1_000, maxDurationMs: 30_000 });
      expect(recovered.total).toBe(1_000);
      expect(shareOf(recovered, backends[0])).toBeGreaterThan(0.14);
      expect(shareOf(recovered, backends[0])).toBeLessThan(0.3);
    } finally {
      client.close();
    }
  });
});

describe('peak_ewma_experimental under outlier_detection', () => {
  it('still steers away from the slow backend while outlier_detection ejects the failing one', async () => {
    const backends = await startBackendsAnswering(Array<number>(6).fill(FAST_MS));
    backends[0].behaviour.delayMs = SLOW_MS;
    backends[1].behaviour.failWith = 14;
    const client = clientFor(backends, [fastOutlierDetection({ peak_ewma_experimental: { errorPenaltyFactor: 1 } })], {
      [STATS_LABEL_OPTION]: 'od-peak',
    });
    try {
      const warmUp = await trafficUntilClean(client, 20_000);
      expect(warmUp.clean).toBe(true);
      expect(warmUp.failuresSeen).toBeGreaterThan(0); // it did fail before ejection
      const result = await runTraffic(client, { concurrency: 8, maxCalls: 600, maxDurationMs: 15_000 });
      expect(result.failures).toEqual([]); // the failing backend is ejected
      expect(shareOf(result, backends[0])).toBeLessThan(0.05);
      for (const backend of backends.slice(2)) {
        expect(shareOf(result, backend)).toBeGreaterThan(0.12);
      }
      expect(statsFor('od-peak').policy).toBe('peak_ewma_experimental');
    } finally {
      client.close();
      stopBackends(backends);
    }
  });
});
