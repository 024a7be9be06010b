/**
 * `learned-static`, the research yardstick: oracle-static's schedule with
 * speeds learnt from the client's own answers, weights frozen between updates.
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { seededRandom } from '../../src/core/random';
import { LEARNED_STATIC_DEFAULTS, LearnedStaticPolicy } from '../../scripts/sim/learned-static';
import { RoundRobinPolicy } from '../../scripts/sim/round-robin';
import { parsePolicySpec } from '../../scripts/sim/policies';

describe('learned-static', () => {
  it('is round_robin while every backend answers alike', () => {
    let nowMs = 0;
    const policy = new LearnedStaticPolicy(() => nowMs, seededRandom(5), LEARNED_STATIC_DEFAULTS);
    const roundRobin = new RoundRobinPolicy(seededRandom(5));
    policy.setReady([0, 1, 2, 3]);
    roundRobin.setReady([0, 1, 2, 3]);
    for (let i = 0; i < 400; i++) {
      const id = policy.pick();
      expect(id).toBe(roundRobin.pick());
      const token = policy.started();
      nowMs += 10;
      policy.ended(id, CallOutcome.SUCCESS, true, token);
    }
  });

  it('gives a backend whose mean is over gate × the fleet (gate·F/M)^k of a share once the weights update', () => {
    let nowMs = 0;
    const settings = { ...LEARNED_STATIC_DEFAULTS, gate: 1.3, exponent: 2, floor: 0.02, updateMs: 1000 };
    const policy = new LearnedStaticPolicy(() => nowMs, seededRandom(1), settings);
    policy.setReady([0, 1, 2, 3]);
    // Backend 3 answers in 40 ms, the others in 10: M = 40 against F = (10 + 10 + 10 + 40) / 4 = 17.5.
    const answer = (id: number): void => {
      const token = policy.started();
      nowMs += id === 3 ? 40 : 10;
      policy.ended(id, CallOutcome.SUCCESS, true, token);
    };
    for (let i = 0; i < 200; i++) answer(policy.pick());
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 10_000; i++) counts[policy.pick()]++;
    const weight = ((1.3 * 17.5) / 40) ** 2; // 0.323
    expect(counts[3] / 10_000).toBeCloseTo(weight / (3 + weight), 2);
  });

  it('is a simulator policy whose fields are validated by name', () => {
    expect(parsePolicySpec('learned-static{"window":64,"gate":1.6}').config).toEqual({ window: 64, gate: 1.6 });
    expect(() => parsePolicySpec('learned-static{"windw":64}')).toThrow(/unknown field "windw"/);
    expect(() => parsePolicySpec('learned-static{"floor":2}')).toThrow(/"floor" must be a finite number > 0 and ≤ 1, got 2/);
    expect(() => parsePolicySpec('learned-static{"gate":-1}')).toThrow(/"gate" must be a finite number > 0, got -1/);
  });
});
