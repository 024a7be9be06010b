/**
 * s18 over real gRPC, small: its five newcomers must run at their patched
 * speed. Before 2026-12-07 the load test sent a newcomer's patch before the
 * newcomer existed; the hosts dropped it, s18's "10 × slower" pods served at
 * full speed, and two sessions' real s18 numbers (docs/tuning-log.md §63,
 * §70) measured a healthy scale-out. round_robin, which gives every pod its
 * turn, makes the newcomers' speed show in the fault phase's tail; the
 * result's `joinedShare` says how many calls they served. 6 backends
 * (ids 0–5; newcomers 6–10) at 5 % load, backend hosts and clients forked as
 * `npm run bench` forks them, 127.0.0.1. Bounds far from the machine's speed:
 * a newcomer's median is 100 ms, everyone else's 10 ms.
 */
import { runLoadTest } from '../../scripts/bench/loadtest';
import { scenarioById } from '../../scripts/bench/scenarios';

process.env.BENCH_CHILD_NODE_ARGS = '--import tsx';

describe('a load-test run of s18 (slow newcomers)', () => {
  it('serves the newcomers at their patched speed and records their share per second', async () => {
    const result = await runLoadTest({
      scenario: scenarioById('s18'),
      layout: 'uniform',
      policies: ['round_robin'],
      uniformClients: 2,
      // Newcomers join at 2 s; the first five originals leave at 9 − 5 = 4 s.
      timeline: { warmupMs: 1000, measureS: 10, faultStartS: 2, faultEndS: 9 },
      scale: { slots: 8, timeFactor: 1, load: 0.05, backends: 6 },
      backendHosts: 1,
      seed: 1,
    });
    const [rr] = result.policies;
    const joined = rr.joinedShare!;
    expect(joined).toHaveLength(10);
    // None before they join; round_robin's 5 of 11 turns after, 5 of 6 once the originals leave.
    expect(joined[0]).toBe(0);
    expect(Math.max(...joined.slice(5))).toBeGreaterThan(0.6);
    // The fleet's own speed before they join; in the fault phase most calls are theirs, at 100 ms (13.6 ms with the patch lost).
    expect(rr.phases.before.okLatency.p50Ms).toBeLessThan(40);
    expect(rr.phases.fault.okLatency.p50Ms).toBeGreaterThan(60);
    expect(rr.window.failed).toBe(0);
  }, 120_000);
});
