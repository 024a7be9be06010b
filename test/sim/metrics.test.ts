import { detectionAndRecovery, lostShareSeconds, RunMetrics, summariseLatency } from '../../scripts/sim/metrics';

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

  it('pools every client\'s calls for p99AllPooled, so a tail held by a few clients shows there and not in the mean', () => {
    // 20 clients; client 0 is the unlucky one: 5 % of its calls take 500 ms,
    // so its own p99 is 500 ms and every other client's 10 ms. Mean of
    // per-client p99s: (500 + 19 × 10) / 20 = 34.5 ms. Pooled: 10 of 4000
    // calls (0.25 %) are slow, under the 1 % a p99 ignores: 10 ms.
    const clients = Array.from({ length: 20 }, (_, c) => c);
    const metrics = new RunMetrics({ clientGroups: clients.map(() => 0), groupCount: 1, maxBackends: 1, timeline });
    for (const c of clients) {
      for (let i = 0; i < 200; i++) metrics.recordEnd(c, c === 0 && i % 20 === 0 ? 500 : 10, true, 1000, 100 + i * 10);
    }
    const summary = summariseLatency(metrics, clients, 'window');
    expect(summary.p99All).toBeGreaterThan(30);
    expect(summary.p99All).toBeLessThan(40);
    expect(summary.p99AllPooled).toBeCloseTo(10, 0);
    // ...and the other way round: 2 % of every client's calls slow puts both at 500 ms.
    const everyone = new RunMetrics({ clientGroups: clients.map(() => 0), groupCount: 1, maxBackends: 1, timeline });
    for (const c of clients) {
      for (let i = 0; i < 200; i++) everyone.recordEnd(c, i % 50 < 1 || i % 50 === 25 ? 500 : 10, true, 1000, 100 + i * 10);
    }
    const spread = summariseLatency(everyone, clients, 'window');
    expect(spread.p99AllPooled).toBeGreaterThan(450);
    expect(spread.p99All).toBeGreaterThan(450);
  });

  it('leaves a client that ended no call out of both', () => {
    const metrics = new RunMetrics({ clientGroups: [0, 0], groupCount: 1, maxBackends: 1, timeline });
    for (let i = 0; i < 200; i++) metrics.recordEnd(0, 10, true, 1000, 100 + i * 10);
    const summary = summariseLatency(metrics, [0, 1], 'window');
    expect(summary.p99All).toBeCloseTo(summary.p99, 6);
    expect(summary.p99).toBeCloseTo(10, 0);
  });
});

describe("recovery's two readings", () => {
  // 20 backends, the faulty pair at 0 and 1 (fair share 0.1), the fault over seconds 20–60.
  const timeline = { warmupMs: 0, measureS: 90, faultStartS: 20, faultEndS: 60 };
  const fair = 0.1;
  /** Per-second shares: the pair holds `pairShare(s)` of the calls, the other 18 split the rest. */
  function shares(pairShare: (second: number) => number): Float64Array[] {
    return Array.from({ length: 90 }, (_, s) => {
      const row = new Float64Array(20);
      row[0] = row[1] = pairShare(s) / 2;
      row.fill((1 - pairShare(s)) / 18, 2);
      return row;
    });
  }
  const outOfFault = (s: number, backIn: (s: number) => number): number => (s < 20 ? fair : s < 60 ? 0 : backIn(s));

  it('reads a pair back in full from the first healed second as no share lacked', () => {
    expect(lostShareSeconds(shares((s) => outOfFault(s, () => fair)), [0, 1], fair, timeline)).toBeCloseTo(0, 9);
  });

  it('counts the share lacked second by second, over five seconds, and not what came after', () => {
    // Half back in the first healed second, 90 % in the second, in full from the third; the tenth second's
    // dip is past the five seconds read.
    const ramp = (s: number): number => (s === 60 ? 0.05 : s === 61 ? 0.09 : s === 69 ? 0 : fair);
    expect(lostShareSeconds(shares((s) => outOfFault(s, ramp)), [0, 1], fair, timeline)).toBeCloseTo(0.5 + 0.1, 9);
    // An overshoot later does not pay back an earlier lack: the reading is how long the pods waited.
    const overshoot = (s: number): number => (s === 60 ? 0 : s === 61 ? 0.2 : fair);
    expect(lostShareSeconds(shares((s) => outOfFault(s, overshoot)), [0, 1], fair, timeline)).toBeCloseTo(1, 9);
  });

  it('tells apart two ramps that report.py reads as the same whole seconds', () => {
    // Both ramps read a recovery of 4 s; the second lacks twice the share.
    const quick = (s: number): number => (s === 60 ? 0.06 : fair);
    const slow = (s: number): number => (s === 60 ? 0.02 : s === 61 ? 0.08 : fair);
    const recovery = (back: (s: number) => number) => detectionAndRecovery(shares((s) => outOfFault(s, back)), [0, 1], fair, timeline).recoverySeconds;
    expect(recovery(quick)).toBe(4);
    expect(recovery(slow)).toBe(4);
    expect(lostShareSeconds(shares((s) => outOfFault(s, quick)), [0, 1], fair, timeline)).toBeCloseTo(0.4, 9);
    expect(lostShareSeconds(shares((s) => outOfFault(s, slow)), [0, 1], fair, timeline)).toBeCloseTo(1.0, 9);
  });
});

describe("the simulator's p99.9", () => {
  const timeline = { warmupMs: 0, measureS: 100, faultStartS: 30, faultEndS: 60 };
  /** `perClient[c]` OK calls of 10 ms for client c, one in a thousand at 400 ms. */
  function run(perClient: readonly number[]): RunMetrics {
    const metrics = new RunMetrics({ clientGroups: perClient.map(() => 0), groupCount: 1, maxBackends: 1, timeline });
    perClient.forEach((calls, c) => {
      for (let i = 0; i < calls; i++) metrics.recordEnd(c, i % 1000 === 999 ? 400 : 10, true, 1000, 100 + (i % 90_000));
    });
    return metrics;
  }

  it('is published only where every client had 10,000 OK calls, as in the load test', () => {
    const enough = summariseLatency(run([10_000, 12_000]), [0, 1], 'window');
    expect(enough.p999).toBeGreaterThan(9);
    expect(enough.p99).toBeCloseTo(10, 0);
    // One client short of 10,000: its p99.9 would be its few slowest calls, so there is none.
    const short = summariseLatency(run([9_999, 12_000]), [0, 1], 'window');
    expect(short.p999).toBeNaN();
    // ...and the other percentiles are still read.
    expect(short.p99).toBeCloseTo(10, 0);
    expect(short.p50).toBeCloseTo(10, 0);
  });
});
