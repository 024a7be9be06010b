/**
 * least_request_experimental (gRFC A48) over real gRPC: its cost model on
 * its own. The shared machinery is tested in shared-skeleton.e2e.test.ts.
 */
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../src';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { clientFor, fastOutlierDetection, runTraffic, shareOf, trafficUntilClean } from '../support/traffic';

register();

/** Samples `backend.inFlight` every 5 ms while `work` runs; returns the mean. */
async function meanInFlight(backend: TestBackend, work: Promise<unknown>): Promise<number> {
  let sum = 0;
  let samples = 0;
  const timer = setInterval(() => {
    sum += backend.inFlight;
    samples++;
  }, 5);
  await work;
  clearInterval(timer);
  return sum / Math.max(samples, 1);
}

/**
 * The "20x longer" test's delays: 50 ms and 1 000 ms, not 20 and 400. The
 * test needs the slow backend to really hold calls 20x longer as the client
 * sees them; every call also costs this one process (client and servers) CPU,
 * and once that process is starved (a loaded machine) the fast calls queue in
 * its event loop: with 20 ms they took ≈ 140 ms end to end, round_robin's
 * in-flight on the slow backend fell from ≈ 14 to 7.9–8.4 while
 * least_request's stayed at ≈ 4.3 (16 workers / 4 endpoints: it counts the
 * queued calls too), and `< roundRobin / 2` failed (4.33 vs 3.93 in a full
 * run; 4.26 vs 4.19 with test/support/event-loop-stall.js at 50 ms of every
 * 60). With 50 ms the same starvation leaves round_robin at 11.4–12.1 and
 * least_request at 4.9–5.4: the same claim, with room. 2.5x fewer calls per
 * second, so the window is 6 s (6 slow calls per worker, as 4 s gave 10).
 */
const FAST_MS = 50;
const WINDOW_MS = 6_000;

describe('least_request_experimental', () => {
  let backends: TestBackend[];

  beforeEach(async () => {
    backends = await startBackendsAnswering([5, 5, 5, 5]);
  });
  afterEach(() => stopBackends(backends));

  it('gives a backend that holds each call 20x longer far fewer concurrent calls than round_robin does', async () => {
    backends.forEach((backend) => (backend.behaviour.delayMs = FAST_MS));
    backends[0].behaviour.delayMs = 20 * FAST_MS;
    const run = async (config: object[]) => {
      const client = clientFor(backends, config, { [STATS_LABEL_OPTION]: 'lr-20x' });
      try {
        await runTraffic(client, { concurrency: 4, maxCalls: 20, maxDurationMs: 5_000 }); // connect
        const traffic = runTraffic(client, { concurrency: 16, maxCalls: 100_000, maxDurationMs: WINDOW_MS });
        const inFlight = await meanInFlight(backends[0], traffic);
        expect((await traffic).failures).toEqual([]);
        if ('least_request_experimental' in config[0]) {
          // Ours ran (pick_first on another backend would also give a low number).
          expect(getLoadBalancerStats().find((s) => s.label === 'lr-20x')?.policy).toBe('least_request_experimental');
        }
        return inFlight;
      } finally {
        client.close();
      }
    };
    const roundRobin = await run([{ round_robin: {} }]);
    const leastRequest = await run([{ least_request_experimental: {} }]);
    // Closed loop, 16 workers: round_robin parks many of them on the slow backend.
    expect(roundRobin).toBeGreaterThan(2);
    expect(leastRequest).toBeLessThan(roundRobin / 2);
  });

  // Each config's own candidates per pick, so that a config the parser dropped (a typo is ignored, as
  // gRFC A21 asks) cannot pass as the defaults' case.
  it.each([
    [{}, 2],
    [{ selectionMethod: 'FULL_SCAN' }, Infinity],
    [{ choiceCount: 4 }, 4],
  ])(
    'shares evenly across identical backends (%j, %d candidates a pick)',
    async (config, candidatesPerPick) => {
      const client = clientFor(backends, [{ least_request_experimental: config }], {
        [STATS_LABEL_OPTION]: `lr-even-${JSON.stringify(config)}`,
      });
      try {
        const result = await runTraffic(client, { concurrency: 8, maxCalls: 2_000, maxDurationMs: 20_000 });
        expect(result.failures).toEqual([]);
        for (const backend of backends) {
          expect(shareOf(result, backend)).toBeGreaterThan(0.18);
          expect(shareOf(result, backend)).toBeLessThan(0.32);
        }
        const stats = getLoadBalancerStats().find((s) => s.label === `lr-even-${JSON.stringify(config)}`)!;
        expect(stats.policy).toBe('least_request_experimental');
        expect(stats.config).toMatchObject({ least_request_experimental: config });
        expect(stats.candidatesPerPick).toBe(candidatesPerPick);
        expect(stats.endpoints.every((e) => e.estimateMs === null)).toBe(true);
      } finally {
        client.close();
      }
    },
  );

  it('works wrapped in outlier_detection (the reference baseline lr_od): the failing backend is ejected', async () => {
    backends[1].behaviour.failWith = 14;
    const client = clientFor(backends, [fastOutlierDetection({ least_request_experimental: { choiceCount: 2 } })], {
      [STATS_LABEL_OPTION]: 'lr-od',
    });
    try {
      const warmUp = await trafficUntilClean(client, 20_000);
      expect(warmUp).toMatchObject({ clean: true, failuresSeen: expect.any(Number) });
      expect(warmUp.failuresSeen).toBeGreaterThan(0); // it did fail before ejection
      const result = await runTraffic(client, { concurrency: 8, maxCalls: 400, maxDurationMs: 15_000 });
      expect(result.failures).toEqual([]);
      expect(getLoadBalancerStats().find((s) => s.label === 'lr-od')!.policy).toBe('least_request_experimental');
      for (const backend of [backends[0], backends[2], backends[3]]) {
        expect(shareOf(result, backend)).toBeGreaterThan(0.2);
      }
    } finally {
      client.close();
    }
  });
});
