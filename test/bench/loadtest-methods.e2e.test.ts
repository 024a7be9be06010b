/**
 * One whole load-test run of the two-method scenario (m2), small: backend
 * hosts and client processes forked as `npm run bench` forks them, real
 * gRPC on 127.0.0.1, 4 backends at 5 % load for 3 s. The result must carry
 * per-method groups for every policy (their calls adding up to the window's),
 * the workload's methods, and peak_ewma's balancers must have counted both
 * paths and report their picks by path. Counts only: nothing depends on the machine's speed.
 */
import { runLoadTest } from '../../scripts/bench/loadtest';
import { methodRunTable } from '../../scripts/bench/method-tables';
import { TWO_METHODS } from '../../scripts/bench/scenarios';

// The children are TypeScript: under jest they need tsx's loader (npm run bench runs under tsx already).
process.env.BENCH_CHILD_NODE_ARGS = '--import tsx';

describe('a load-test run of m2 (two methods on the het fleet)', () => {
  it('records each method group per policy, and peak_ewma sees both paths', async () => {
    const result = await runLoadTest({
      scenario: TWO_METHODS,
      layout: 'reference',
      policies: ['round_robin', 'peak_ewma'],
      clientsPerPolicy: 1,
      timeline: { warmupMs: 1000, measureS: 3, faultStartS: 1, faultEndS: 2 },
      scale: { slots: 8, timeFactor: 1, load: 0.05, backends: 4 },
      backendHosts: 1,
      seed: 1,
    });
    expect(result.methods?.map((m) => m.name)).toEqual(['U5_cheap', 'U100_costly']);
    for (const policy of result.policies) {
      const groups = policy.methods!;
      expect(Object.keys(groups)).toEqual(['U5_cheap', 'U100_costly']);
      expect(groups.U5_cheap.calls + groups.U100_costly.calls).toBe(policy.window.calls);
      expect(groups.U5_cheap.calls).toBeGreaterThan(groups.U100_costly.calls);
    }
    const peak = result.policies.find((p) => p.policy === 'peak_ewma')!;
    const counted = new Map(peak.evidence.flatMap((b) => b.methods ?? []).map((m) => [m.method, m.calls]));
    expect(Array.from(counted.keys()).sort()).toEqual(['/loadtest.Probe/U100_costly', '/loadtest.Probe/U5_cheap']);
    // Each balancer's picks by path come back too, one per call it placed (a pick re-run for a
    // queued call counts again, so at least as many), and its refused turns by reason.
    for (const balancer of peak.evidence) {
      const picks = Object.values(balancer.picks!).reduce((sum, n) => sum + n, 0);
      expect(picks).toBeGreaterThanOrEqual(balancer.callsStarted);
      expect(Object.values(balancer.refusals!).reduce((sum, n) => sum + n, 0)).toBe(balancer.picks!.refused);
    }
    // round_robin is grpc-js's own: no stats of ours, and none expected.
    expect(result.policies.find((p) => p.policy === 'round_robin')!.evidence).toEqual([]);
    expect(methodRunTable(result)!.rows).toHaveLength(6);
  }, 120_000);
});
