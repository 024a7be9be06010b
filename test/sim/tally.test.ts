/**
 * The tally (scripts/sim/tally.ts, `--tally MS`): each policy group's calls by
 * the kind of pod that served them and the path of the pick that sent them,
 * in % of the group's calls, with the points over the bound or failed.
 */
import { executeRun } from '../../scripts/sim/execute';
import { formatTally, GroupTally, PathTally } from '../../scripts/sim/tally';
import { Timeline } from '../../scripts/sim/timeline';
import { PickPath } from '../../src/core/pick-paths';

describe('PathTally', () => {
  it('counts calls per pod kind and path, over the bound or failed, in % of the group', () => {
    const tally = new PathTally(['a', 'b'], 40);
    tally.record(0, 'normal', PickPath.turn, 10, true);
    tally.record(0, 'normal', PickPath.turn, 41, true); // over
    tally.record(0, 'noisy', PickPath.refused, 5, false); // failed
    tally.record(0, 'noisy', -1, 40, true); // at the bound: not over
    tally.record(1, 'normal', PickPath.drawn, 1, true);
    const [a, b] = tally.summary();
    expect(a).toEqual({
      policy: 'a',
      boundMs: 40,
      calls: 4,
      overPct: 50,
      rows: [
        { pods: 'noisy', path: 'other', sharePct: 25, overPoints: 0 },
        { pods: 'noisy', path: 'refused', sharePct: 25, overPoints: 25 },
        { pods: 'normal', path: 'turn', sharePct: 50, overPoints: 25 },
      ],
    });
    expect(b.rows).toEqual([{ pods: 'normal', path: 'drawn', sharePct: 100, overPoints: 0 }]);
    expect(formatTally('s01', [a]).split('\n')[0]).toBe('tally s01 a: 4 calls, 50.00 % over 40 ms or failed');
  });
});

describe('--tally in a run', () => {
  const short: Timeline = { warmupMs: 2_000, measureS: 8, faultStartS: 2, faultEndS: 4 };
  const run = (tallyBoundMs?: number) =>
    executeRun({
      scenario: 's01-steady-uneven',
      groups: [
        { policy: 'round_robin', clients: 4 },
        { policy: 'peak_ewma', clients: 4 },
      ],
      seed: 3,
      timeline: short,
      slots: 1,
      tallyBoundMs,
    });

  it('leaves the run as it was, and adds a tally whose rows sum to every measured call', () => {
    const { tally, wallMs: _w1, ...withTally } = run(40);
    const { tally: none, wallMs: _w2, ...without } = run();
    expect(none).toBeUndefined();
    expect(withTally).toEqual(without);
    for (const group of tally!) {
      const sum = (pick: (row: GroupTally['rows'][number]) => number) => group.rows.reduce((s, row) => s + pick(row), 0);
      expect(sum((row) => row.sharePct)).toBeCloseTo(100, 1);
      expect(sum((row) => row.overPoints)).toBeCloseTo(group.overPct, 1);
    }
    // The tally counts every call that ends after the warm-up (world.ts endCall); the metrics count those that end
    // in the measured window. So the tally has every measured call, plus those still in flight when the window
    // closes: each was sent less than its deadline (500 ms) before the end, so at most 4 clients × 148 calls/s × 0.5 s.
    expect(withTally.ratePerClientRps).toBe(148);
    withTally.groups.forEach((result, g) => {
      const measured = result.phases.window.okCalls + result.phases.window.failedCalls;
      const group = tally![g];
      expect(group.policy).toBe(result.policy);
      expect(group.calls - measured).toBeGreaterThanOrEqual(0);
      expect(group.calls - measured).toBeLessThanOrEqual(4 * 148 * 0.5);
    });
  });

  it('counts failed calls: with a bound no call reaches, the points over are the failures, 100 × the error rate', () => {
    const result = run(1e9);
    result.groups.forEach((group, g) => {
      const tally = result.tally![g];
      const measured = group.phases.window.okCalls + group.phases.window.failedCalls;
      const failed = Math.round((tally.overPct * tally.calls) / 100);
      // Both runs fail calls at slots 1 (calls past their deadline), so a tally that dropped failures would show 0.
      expect(group.failedCalls).toBeGreaterThan(5);
      // Every failure the metrics counted, and at most the calls the tally counts beyond them (those ending after the window).
      expect(failed).toBeGreaterThanOrEqual(group.failedCalls);
      expect(failed - group.failedCalls).toBeLessThanOrEqual(tally.calls - measured);
      expect(tally.overPct).toBeCloseTo(100 * group.errorRate, 1);
    });
  });

  it("names the pods that joined during the run apart from the fleet's own: s18's slow newcomers", () => {
    const { tally } = executeRun({
      scenario: 's18-slow-scale-out',
      groups: [{ policy: 'round_robin', clients: 4 }],
      seed: 1,
      timeline: { warmupMs: 1_000, measureS: 12, faultStartS: 2, faultEndS: 10 },
      tallyBoundMs: 40,
    });
    const [roundRobin] = tally!;
    const joined = roundRobin.rows.filter((row) => row.pods === 'joined normal');
    const own = roundRobin.rows.filter((row) => row.pods === 'normal');
    const sum = (rows: typeof joined, pick: (row: (typeof joined)[number]) => number) => rows.reduce((s, row) => s + pick(row), 0);
    // round_robin's turns: 5 of 25 pods from 2 s, 5 of 20 from 5 s (the first five leave), over 12 s.
    expect(sum(joined, (row) => row.sharePct)).toBeGreaterThan(15);
    expect(sum(joined, (row) => row.sharePct)).toBeLessThan(25);
    // The newcomers are 10 × slower: nearly all their calls are over 40 ms, and almost none of the others'.
    expect(sum(joined, (row) => row.overPoints)).toBeGreaterThan(0.9 * sum(joined, (row) => row.sharePct));
    expect(sum(own, (row) => row.overPoints)).toBeLessThan(1);
  });

  it('round_robin reports no path; peak_ewma sends most calls to healthy pods as rotation turns and refuses noisy pods most of theirs', () => {
    const [roundRobin, peakEwma] = run(40).tally!;
    expect(new Set(roundRobin.rows.map((row) => row.path))).toEqual(new Set(['other']));
    // round_robin gives each of the 3 noisy pods of 20 its 5 %.
    const share = (t: GroupTally, pods: string, path?: string) =>
      t.rows.filter((row) => row.pods === pods && (path === undefined || row.path === path)).reduce((s, row) => s + row.sharePct, 0);
    expect(share(roundRobin, 'noisy')).toBeCloseTo(15, 0);
    expect(share(peakEwma, 'normal', 'turn')).toBeGreaterThan(50);
    expect(share(peakEwma, 'noisy')).toBeLessThan(5);
    expect(share(peakEwma, 'normal', 'refused')).toBeGreaterThan(5);
  });
});
