import { RunMetrics, summariseLatency } from '../../scripts/sim/metrics';

describe("the simulator's latency summary", () => {
  const timeline = { warmupMs: 0, measureS: 10, faultStartS: 3, faultEndS: 6 };

  it('counts a client whose every call failed in p99 over all calls, at its deadline, as the load test does', () => {
    const metrics = new RunMetrics({ clientGroups: [0, 0], groupCount: 1, maxBackends: 1, timeline });
    // Client 0: 200 OK calls of 10 ms. Client 1: 50 calls, every one failed (deadline 1000 ms).
    for (let i = 0; i < 200; i++) metrics.recordEnd(0, 10, true, 1000, 100 + i * 10);
    for (let i = 0; i < 50; i++) metrics.recordEnd(1, 3, false, 1000, 100 + i * 10);
    const summary = summariseLatency(metrics, [0, 1], 'window');
    // OK-call percentiles: client 0 alone (client 1 has no OK call to rank).
    expect(summary.p99).toBeCloseTo(10, 0);
    // p99All: the mean of both clients' (10 ms and 1000 ms), not client 0's alone (10 ms, as before the fix).
    expect(summary.p99All).toBeGreaterThan(450);
    expect(summary.p99All).toBeLessThan(560);
    expect(summary.errorRate).toBeCloseTo(50 / 250, 6);
  });

  it('leaves a client that ended no call out of both', () => {
    const metrics = new RunMetrics({ clientGroups: [0, 0], groupCount: 1, maxBackends: 1, timeline });
    for (let i = 0; i < 200; i++) metrics.recordEnd(0, 10, true, 1000, 100 + i * 10);
    const summary = summariseLatency(metrics, [0, 1], 'window');
    expect(summary.p99All).toBeCloseTo(summary.p99, 6);
    expect(summary.p99).toBeCloseTo(10, 0);
  });
});
