import { decodeHistogram } from '../../scripts/bench/histogram';
import { LoadRecorder } from '../../scripts/bench/load-recorder';

const PHASES = [
  { name: 'before', fromS: 0, toS: 1 },
  { name: 'fault', fromS: 1, toS: 3 },
  { name: 'after', fromS: 3, toS: 5 },
];

const counts = (recorder: LoadRecorder) => {
  const run = recorder.export();
  return Object.fromEntries(run.phases.map((p) => [p.name, decodeHistogram(p.allHistogram).totalCount]));
};

describe('LoadRecorder', () => {
  it('bins latency by completion, as the reference and the simulator do, and routing by intended start', () => {
    const recorder = new LoadRecorder(5, PHASES, 2, 500);
    // Intended at 0.9 s, answered 300 ms later: a fault-phase latency, sent in second 0.
    recorder.record(900, 300, true, 1);
    // Intended at 2.9 s, timed out at the deadline: the failure lands in the after phase.
    recorder.record(2900, 500, false, 0, 4);
    expect(counts(recorder)).toEqual({ before: 0, fault: 1, after: 1 });
    const run = recorder.export();
    expect(run.seconds[0].perBackend).toEqual([0, 1]);
    expect(run.seconds[2].perBackend).toEqual([1, 0]);
    expect(run.phases.map((p) => [p.ok, p.failed])).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
  });

  it('keeps warm-up sends out of the per-second counts but counts their completions inside the window', () => {
    const recorder = new LoadRecorder(5, PHASES, 1, 500);
    recorder.record(-100, 250, true, 0);
    // Completes after the window: not counted at all.
    recorder.record(4900, 200, true, 0);
    expect(counts(recorder)).toEqual({ before: 1, fault: 0, after: 0 });
    expect(recorder.export().ok).toBe(1);
    expect(recorder.export().seconds.reduce((n, s) => n + s.sent, 0)).toBe(1);
  });

  it('measures time-scaled runs in timeline seconds of secondMs real ms', () => {
    // Time × 4: a timeline second is 4 real seconds; intended at 3.8 real s (0.95), done at 4.2 (1.05).
    const recorder = new LoadRecorder(5, PHASES, 1, 2000, 4000);
    recorder.record(3800, 400, true, 0);
    expect(counts(recorder)).toEqual({ before: 0, fault: 1, after: 0 });
    expect(recorder.export().seconds[0].sent).toBe(1);
  });
});

describe('LoadRecorder method groups', () => {
  const METHODS = [
    { name: 'U5_cheap', deadlineMs: 500 },
    { name: 'U100_costly', deadlineMs: 2000 },
  ];

  it("keeps a histogram pair per method group beside the all-calls one, each failure at its own method's deadline", () => {
    const recorder = new LoadRecorder(5, PHASES, 1, 2000, 1000, METHODS);
    recorder.record(100, 6, true, 0, 0, 0);
    recorder.record(200, 8, true, 0, 0, 0);
    // A cheap call failing fast counts as its own deadline (500 ms), not the workload's longest (2 s).
    recorder.record(300, 20, false, 0, 14, 0);
    recorder.record(400, 120, true, 0, 0, 1);
    const run = recorder.export();
    expect(run.methods?.map((m) => [m.name, m.ok, m.failed])).toEqual([
      ['U5_cheap', 2, 1],
      ['U100_costly', 1, 0],
    ]);
    const cheapAll = decodeHistogram(run.methods![0].allHistogram);
    const cheapOk = decodeHistogram(run.methods![0].okHistogram);
    const costlyOk = decodeHistogram(run.methods![1].okHistogram);
    expect(cheapOk.totalCount).toBe(2);
    expect(cheapOk.maxValue).toBeLessThan(8_010);
    expect(cheapAll.maxValue).toBeGreaterThanOrEqual(499_000);
    expect(cheapAll.maxValue).toBeLessThan(501_000);
    expect(costlyOk.minNonZeroValue).toBeGreaterThanOrEqual(119_000);
    // The all-calls histograms (the window's and the phases') count it at its own deadline too, as the
    // simulator does: at the workload's longest (2 s) a 2 % failure rate of a cheap method read as a
    // p99 of the longest deadline (found by a measurement audit).
    const all = decodeHistogram(run.allHistogram);
    expect(all.totalCount).toBe(4);
    expect(all.maxValue).toBeGreaterThanOrEqual(499_000);
    expect(all.maxValue).toBeLessThan(501_000);
    const before = decodeHistogram(run.phases[0].allHistogram);
    expect(before.totalCount).toBe(4);
    expect(before.maxValue).toBeLessThan(501_000);
    expect([run.ok, run.failed]).toEqual([3, 1]);
  });

  it('keeps no method groups (and exports none) for a one-method workload, as before', () => {
    const recorder = new LoadRecorder(5, PHASES, 1, 500);
    recorder.record(100, 6, true, 0);
    const run = recorder.export();
    expect('methods' in run).toBe(false);
    expect(Object.keys(run)).toEqual(['okHistogram', 'allHistogram', 'phases', 'seconds', 'ok', 'failed', 'failuresByCode']);
  });
});
