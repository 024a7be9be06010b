/**
 * The clients' own pauses (`--client-stall`): when each client is paused,
 * and what a pause does to a run. Virtual time, so the numbers are exact.
 */
import { parseClientStall, StallSchedule } from '../../scripts/sim/client-stall';
import { executeRun } from '../../scripts/sim/execute';
import { Timeline } from '../../scripts/sim/timeline';

const TIMELINE: Timeline = { warmupMs: 2_000, measureS: 8, faultStartS: 2, faultEndS: 6 };

describe('parseClientStall', () => {
  it('reads MS/EVERY', () => {
    expect(parseClientStall('50/1000')).toEqual({ ms: 50, everyMs: 1000 });
    expect(parseClientStall(' 12.5/400 ')).toEqual({ ms: 12.5, everyMs: 400 });
  });

  it.each(['50', '0/1000', '1000/1000', '50/', 'a/b', '-5/100'])('rejects %s, naming the flag and the rule', (text) => {
    expect(() => parseClientStall(text)).toThrow(/--client-stall must be MS\/EVERY with 0 < MS < EVERY/);
  });
});

describe('StallSchedule', () => {
  const schedule = new StallSchedule({ ms: 50, everyMs: 1000 }, 8, 1);

  it('pauses each client MS of every EVERY ms, and says how long is left', () => {
    for (let client = 0; client < 8; client++) {
      let pausedMs = 0;
      let longest = 0;
      const wrong: string[] = [];
      for (let t = 0; t < 10_000; t += 1) {
        const left = schedule.remainingMs(client, t);
        if (left < 0 || left > 50) wrong.push(`${t}: ${left} left`);
        if (left > 0) {
          pausedMs++;
          longest = Math.max(longest, left);
          // Still paused just before the end, running from it on.
          if (!(schedule.remainingMs(client, t + left - 0.5) > 0) || schedule.remainingMs(client, t + left) !== 0) wrong.push(`${t}: ends wrong`);
        }
      }
      expect(wrong).toEqual([]);
      expect(pausedMs).toBe(500); // 10 periods × 50 ms, sampled each ms
      expect(longest).toBeGreaterThan(49);
    }
  });

  it('gives clients their own phases', () => {
    const startOfPause = (client: number): number => {
      let t = 0;
      while (schedule.remainingMs(client, t) === 0) t++;
      return t;
    };
    expect(new Set([0, 1, 2, 3, 4, 5, 6, 7].map(startOfPause)).size).toBeGreaterThan(4);
  });
});

describe('a run with client pauses', () => {
  const run = (clientStall?: { ms: number; everyMs: number }) =>
    executeRun({ scenario: 's02-steady-identical', groups: [{ policy: 'round_robin', clients: 8 }], seed: 1, timeline: TIMELINE, ...(clientStall ? { clientStall } : {}) }).groups[0];

  it('answers that reach a paused client wait for it: 50 ms every second reaches p99, and not p50', () => {
    const calm = run();
    const paused = run({ ms: 50, everyMs: 1000 });
    expect(calm.p99All).toBeLessThan(25);
    // 5 % of the time paused: every answer then waits up to 50 ms.
    expect(paused.p99All).toBeGreaterThan(45);
    expect(paused.p99All).toBeLessThan(75);
    expect(Math.abs(paused.p50 - calm.p50)).toBeLessThan(1);
    expect(paused.errorRate).toBe(0);
  });

  it('is the same run to the last digit for the same seed', () => {
    expect(run({ ms: 50, everyMs: 1000 })).toEqual(run({ ms: 50, everyMs: 1000 }));
  });
});
