import { combineRuns, detectAndRecover, groupShare, sharePerSecond } from '../../scripts/bench/analysis';
import { recoveryMeasurable } from '../../scripts/sim/metrics';
import { LoadRecorder } from '../../scripts/bench/load-recorder';

describe('load recorder and analysis', () => {
  const phases = [
    { name: 'before', fromS: 0, toS: 2 },
    { name: 'fault', fromS: 2, toS: 4 },
    { name: 'after', fromS: 4, toS: 6 },
  ];

  it('bins calls into phases (by completion) and seconds (by intended start), drops warm-up, counts failures at the deadline in the all-calls histogram', () => {
    const recorder = new LoadRecorder(6, phases, 3, 500);
    recorder.record(-500, 10, true, 0); // warm-up: not kept
    recorder.record(200, 10, true, 0);
    recorder.record(2500, 20, true, 1);
    recorder.record(2600, 3, false, 2, 14); // a fast UNAVAILABLE counts as 500 ms among all calls
    recorder.record(5900, 30, true, -1);
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
      a.record(500, 10, true, 0);
      b.record(500, 100, true, 0);
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
    a.record(100, 1, true, 0);
    a.record(200, 1, true, 1);
    b.record(300, 1, true, 0);
    b.record(400, 1, true, 3);
    b.record(1500, 1, true, 2);
    const shares = sharePerSecond([a.export(), b.export()]);
    expect(shares[0]).toEqual([0.5, 0.25, 0, 0.25]);
    expect(shares[1]).toEqual([0, 0, 1, 0]);
    expect(groupShare(shares, [0, 1])).toEqual([0.75, 0]);
  });

  it('grows per-backend counts when backends join mid-run', () => {
    const a = new LoadRecorder(2, [], 2, 500);
    a.record(100, 1, true, 0);
    a.record(1100, 1, true, 5);
    const shares = sharePerSecond([a.export()]);
    expect(shares[0]).toEqual([1, 0, 0, 0, 0, 0]);
    expect(shares[1]).toEqual([0, 0, 0, 0, 0, 1]);
  });

  it("uses the simulator's detection and recovery on per-backend shares", () => {
    // Two backends, backend 0 faulty: fair share 0.5; fault over [3, 6) of a 12 s window.
    const faulty = [0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
    const shares = faulty.map((x) => [x, 1 - x]);
    const timeline = { warmupMs: 0, measureS: 14, faultStartS: 3, faultEndS: 6 };
    // Trailing means from i = 3: 0.33, 0.167 (not below 0.5/3), 0 at i = 5 → t = 6 → 3 s after the start.
    const { detectS, recoverS } = detectAndRecover(shares, [0], 0.5, timeline);
    expect(detectS).toBe(3);
    // Smoothed back at 0.5 from i = 10 (i = 10, 11, 12) → (10 + 2 + 1) − 2 − 6 = 5.
    expect(recoverS).toBe(5);
    expect(detectAndRecover(shares.map(() => [0.5, 0.5]), [0], 0.5, timeline)).toEqual({ detectS: null, recoverS: 1 });
  });

  it("reads no recovery where the window ends less than 5 s after the fault, as bench:report's 8 s window does", () => {
    // timelineFor(8): fault over [2, 5). An ideal policy: off the faulty backend for the whole fault, back
    // at its fair share the second the fault ends. The first trailing mean without a fault second is at
    // i = 7 (5, 6, 7), and a recovery needs three of them: i = 7, 8, 9, past an 8 s window.
    const ideal = (measureS: number) => Array.from({ length: measureS }, (_, i) => (i >= 2 && i < 5 ? [0, 1] : [0.5, 0.5]));
    const short = { warmupMs: 0, measureS: 8, faultStartS: 2, faultEndS: 5 };
    const longEnough = { ...short, measureS: 10 };
    expect(recoveryMeasurable(short)).toBe(false);
    expect(recoveryMeasurable(longEnough)).toBe(true);
    expect(detectAndRecover(ideal(8), [0], 0.5, short)).toEqual({ detectS: 3, recoverS: null });
    expect(detectAndRecover(ideal(10), [0], 0.5, longEnough)).toEqual({ detectS: 3, recoverS: 3 });
    // A policy that never moved (round_robin) read 1 s there, a recovery from nothing; now none.
    expect(detectAndRecover(ideal(8).map(() => [0.5, 0.5]), [0], 0.5, short)).toEqual({ detectS: null, recoverS: null });
  });
});
