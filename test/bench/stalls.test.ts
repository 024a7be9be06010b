import { parseArgs } from '../../scripts/bench/args';
import { longestStallMs, runsAgain, runUnderStallRule, STALL_RERUNS } from '../../scripts/bench/stalls';
import { discardedLines } from '../../scripts/bench/report-noise';

const run = (backendMaxMs: number, clientMaxMs: number[]) => ({
  backendLoopDelayMs: { p99: 1, max: backendMaxMs },
  policies: clientMaxMs.map((max) => ({ clientLoopDelayMs: { p99: 1, max } })),
});

describe('the stall rule (--max-stall)', () => {
  it('reads the longest stall of the backend hosts and of every client', () => {
    expect(longestStallMs(run(40, [30, 20]) as never)).toBe(40);
    expect(longestStallMs(run(40, [30, 505]) as never)).toBe(505);
  });

  it('runs again only past the bound, and at most STALL_RERUNS times', () => {
    expect(runsAgain(101, 100, 0)).toBe(true);
    expect(runsAgain(100, 100, 0)).toBe(false);
    expect(runsAgain(5_000, undefined, 0)).toBe(false);
    expect(runsAgain(101, 100, STALL_RERUNS - 1)).toBe(true);
    expect(runsAgain(101, 100, STALL_RERUNS)).toBe(false);
  });

  it('re-runs a stalled run until one is within the bound, or keeps the last of STALL_RERUNS re-runs', async () => {
    const stalls = [300, 150, 40, 500];
    const discarded: number[] = [];
    let calls = 0;
    const runOnce = async () => run(stalls[calls++], [10]);
    const kept = await runUnderStallRule(runOnce, 100, (_result, stallMs) => discarded.push(stallMs));
    expect(longestStallMs(kept as never)).toBe(40);
    expect(discarded).toEqual([300, 150]);

    calls = 0;
    stalls.splice(0, stalls.length, 200, 200, 200, 200, 200);
    discarded.length = 0;
    const last = await runUnderStallRule(runOnce, 100, (_result, stallMs) => discarded.push(stallMs));
    expect(calls).toBe(1 + STALL_RERUNS);
    expect(discarded).toHaveLength(STALL_RERUNS);
    expect(longestStallMs(last as never)).toBe(200);
  });

  it('is off unless asked, and a bound that is not a number > 0 fails naming the flag', () => {
    expect(parseArgs([]).maxStallMs).toBeUndefined();
    expect(parseArgs(['--max-stall', '100']).maxStallMs).toBe(100);
    expect(parseArgs(['--max-stall=62.5']).maxStallMs).toBe(62.5);
    expect(() => parseArgs(['--max-stall', '0'])).toThrow(/--max-stall must be a number > 0/);
    expect(() => parseArgs(['--max-stall', 'soon'])).toThrow(/--max-stall/);
  });
});

describe('the report on discarded runs', () => {
  const base = { options: { maxStallMs: 100 } } as never;
  it('says the rule and each discarded run, or that none was', () => {
    expect(discardedLines({ ...(base as object), discarded: [] } as never)[0]).toMatch(/--max-stall 100.*none was\./);
    const line = discardedLines({
      ...(base as object),
      discarded: [{ scenario: 's02', layout: 'uniform', policies: ['round_robin'], slots: 2, repeat: 4, stallMs: 564, startedAt: '' }],
    } as never)[0];
    expect(line).toMatch(/1 was: s02 uniform round_robin 2 slots #5 \(564ms\)\./);
  });

  it('says nothing when the rule was off', () => {
    expect(discardedLines({ options: {}, discarded: [] } as never)).toEqual([]);
  });
});
