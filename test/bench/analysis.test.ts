import { combineRuns, groupShare, sharePerSecond, timeToDetectS, timeToRecoverS, trailingMean3 } from '../../scripts/bench/analysis';
import { LoadRecorder } from '../../scripts/bench/load-recorder';

describe('load recorder and analysis', () => {
  const phases = [
    { name: 'before', fromS: 0, toS: 2 },
    { name: 'fault', fromS: 2, toS: 4 },
    { name: 'after', fromS: 4, toS: 6 },
  ];

  it('bins calls by intended start, drops warm-up, counts failures at the deadline in the all-calls histogram', () => {
    const recorder = new LoadRecorder(6, phases, 3, 500);
    recorder.record(-0.5, 10, true, 0); // warm-up: not kept
    recorder.record(0.2, 10, true, 0);
    recorder.record(2.5, 20, true, 1);
    recorder.record(2.6, 3, false, 2, 14); // a fast UNAVAILABLE counts as 500 ms among all calls
    recorder.record(5.9, 30, true, -1);
    const run = recorder.export();
    expect(run.ok).toBe(3);
    expect(run.failed).toBe(1);
    expect(run.failuresByCode).toEqual({ '14': 1 });
    expect(run.seconds[0].perBackend).toEqual([1, 0, 0]);
    expect(run.seconds[2].perBackend).toEqual([0, 1, 1]);
    expect(run.seconds[5].unattributed).toBe(1);

    const { window, phases: byPhase } = combineRuns([run]);
    expect(window.calls).toBe(4);
    expect(window.errorRate).toBeCloseTo(0.25);
    expect(window.okLatency.maxMs).toBeCloseTo(30, 1);
    expect(window.allLatency.maxMs).toBeCloseTo(500, 0);
    expect(byPhase.fault.calls).toBe(2);
    expect(byPhase.fault.okLatency.p50Ms).toBeCloseTo(20, 1);
    expect(byPhase.before.calls).toBe(1);
    expect(byPhase.after.calls).toBe(1);
  });

  it('merges clients exactly (one histogram over both), and also keeps the mean of per-client p99s', () => {
    const a = new LoadRecorder(1, [], 1, 500);
    const b = new LoadRecorder(1, [], 1, 500);
    for (let i = 0; i < 100; i++) {
      a.record(0.5, 10, true, 0);
      b.record(0.5, 100, true, 0);
    }
    const { window } = combineRuns([a.export(), b.export()]);
    expect(window.ok).toBe(200);
    // Merged: half the calls at 100 ms, so the p99 is 100 ms, not the mean of 10 and 100.
    expect(window.okLatency.p99Ms).toBeCloseTo(100, 0);
    expect(window.meanClientOkP99Ms).toBeCloseTo(55, 0);
  });

  it('computes per-second shares over several clients and a group share', () => {
    const a = new LoadRecorder(2, [], 4, 500);
    const b = new LoadRecorder(2, [], 4, 500);
    a.record(0.1, 1, true, 0);
    a.record(0.2, 1, true, 1);
    b.record(0.3, 1, true, 0);
    b.record(0.4, 1, true, 3);
    b.record(1.5, 1, true, 2);
    const shares = sharePerSecond([a.export(), b.export()], 4);
    expect(shares[0]).toEqual([0.5, 0.25, 0, 0.25]);
    expect(shares[1]).toEqual([0, 0, 1, 0]);
    expect(groupShare(shares, [0, 1])).toEqual([0.75, 0]);
  });

  it('detects when the smoothed share of the faulty backend falls below a third of fair', () => {
    // fair = 0.05; fault from t = 3
    const share = [0.05, 0.05, 0.05, 0.05, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0];
    // smoothed at i=5: (0.05 + 0.02 + 0) / 3 = 0.0233 (not < 0.0167); i=6: 0.0067 < 0.0167 → t = 7 → 4 s after 3
    expect(trailingMean3(share)[6]).toBeCloseTo(0.02 / 3, 6);
    expect(timeToDetectS(share, 0.05, 3, 9)).toBe(4);
    expect(timeToDetectS(new Array(10).fill(0.05), 0.05, 3, 9)).toBeNull();
  });

  it('reports recovery as the reference does: third point of a run within ±10 % of fair, minus 2, minus the end', () => {
    // fault ends at t = 2; shares return to fair from i = 4
    const share = [0, 0, 0, 0.02, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05];
    // smoothed: i=4 0.0233, i=5 0.04, i=6 0.05, i=7 0.05, i=8 0.05 → run starts at i=6 → (6+2+1) - 2 - 2 = 5
    expect(timeToRecoverS(share, 0.05, 2)).toBe(5);
    expect(timeToRecoverS([0, 0, 0, 0, 0], 0.05, 2)).toBeNull();
  });
});
