/**
 * `oracle-static`, the client-only bound: a smooth weighted round robin over
 * each backend's true speed, blind to queues.
 */
import { seededRandom } from '../../src/core/random';
import { BackendModel } from '../../scripts/model/backend';
import { parsePolicySpec } from '../../scripts/sim/policies';
import { RoundRobinPolicy } from '../../scripts/sim/round-robin';
import { StaticOraclePolicy, staticCapacity } from '../../scripts/sim/oracle-static';
import { modelFleet } from '../support/model-fleet';

function fleet(roles: Parameters<typeof modelFleet>[0], slots = 1): BackendModel[] {
  return modelFleet(roles, slots);
}

function counts(policy: StaticOraclePolicy, picks: number, backends: number): number[] {
  const sent = new Array<number>(backends).fill(0);
  for (let i = 0; i < picks; i++) sent[policy.pick()]++;
  return sent;
}

describe('oracle-static', () => {
  it('is round_robin on identical backends: the READY list in order, from a random start', () => {
    const backends = fleet(['normal', 'normal', 'normal', 'normal', 'normal']);
    const oracle = new StaticOraclePolicy(backends, seededRandom(7), 4);
    const roundRobin = new RoundRobinPolicy(seededRandom(7));
    oracle.setReady([0, 1, 2, 3, 4]);
    roundRobin.setReady([0, 1, 2, 3, 4]);
    const picks = Array.from({ length: 15 }, () => oracle.pick());
    expect(picks).toEqual(Array.from({ length: 15 }, () => roundRobin.pick()));
    // Each backend once per cycle of five, in list order.
    for (let i = 5; i < 15; i++) expect(picks[i]).toBe((picks[i - 1] + 1) % 5);
  });

  it('stays round_robin from a random start when speed^k is huge (8 slots, k 30: 1e26)', () => {
    // Tie offsets added to the credits vanished in rounding at such weights,
    // and every client took the list from its first entry, in step.
    const backends = fleet(['normal', 'normal', 'normal', 'normal', 'normal'], 8);
    const starts = new Set<number>();
    for (let seed = 1; seed <= 10; seed++) {
      const oracle = new StaticOraclePolicy(backends, seededRandom(seed), 30);
      const roundRobin = new RoundRobinPolicy(seededRandom(seed));
      oracle.setReady([0, 1, 2, 3, 4]);
      roundRobin.setReady([0, 1, 2, 3, 4]);
      const picks = Array.from({ length: 1000 }, () => oracle.pick());
      expect(picks).toEqual(Array.from({ length: 1000 }, () => roundRobin.pick()));
      starts.add(picks[0]);
    }
    expect(starts.size).toBeGreaterThanOrEqual(3);
  });

  it('splits calls in proportion to speed^k, and gives none to a backend that cannot answer', () => {
    // At the reference's 8 slots, so the throttled pod's half is 4 slots, not the 1 that halfSlots(1) keeps.
    const backends = fleet(['normal', 'noisy', 'throttled', 'flaky', 'gc', 'normal'], 8);
    backends[5].setBehaviour({ mode: 'unavailable' });
    // Each pod's speed relative to a normal one, by hand from model/roles.ts and model/capacity.ts
    // (slots / mean service time, a lognormal's mean being median·e^(σ²/2); GC pauses and failed calls answer nothing):
    const relative = [
      1, // normal: 8 slots, median ×1, σ 0.3
      1 / (2 * Math.exp(0.8 ** 2 / 2 - 0.3 ** 2 / 2)), // noisy: median ×2, σ 0.8: 0.3798
      4 / 8 / 1.5, // throttled: 4 slots of 8, each 1.5× slower: 1/3
      1 - 0.05, // flaky: as fast, but 5 % of its calls fail, and a failure is no answer: 0.95
      1 - 500 / 10_000, // gc: paused 500 ms of every 10 s: 0.95
      0, // crash-looping: answers nothing
    ];
    expect(relative[1]).toBeCloseTo(0.3798, 4);
    backends.forEach((b, id) => expect({ id, speed: staticCapacity(b.behaviour) / staticCapacity(backends[0].behaviour) }).toEqual({ id, speed: expect.closeTo(relative[id], 9) }));
    for (const exponent of [1, 3]) {
      const policy = new StaticOraclePolicy(backends, seededRandom(3), exponent);
      policy.setReady([0, 1, 2, 3, 4, 5]);
      const sent = counts(policy, 100_000, 6);
      const weights = relative.map((speed) => speed ** exponent);
      const total = weights.reduce((a, b) => a + b, 0);
      sent.forEach((n, id) => expect({ id, exponent, share: n / 100_000 }).toEqual({ id, exponent, share: expect.closeTo(weights[id] / total, 3) }));
      expect(sent[5]).toBe(0);
    }
  });

  it("knows s10's fault: a pod cut from 8 slots to 4 serves half as much, so it gets (1/2)^k of the other's calls", () => {
    const backends = fleet(['normal', 'normal'], 8);
    backends[1].setBehaviour({ slots: 4 });
    for (const [exponent, slowShare] of [
      [1, 1 / 3], // 1/2 : 1
      [2, 1 / 5], // 1/4 : 1
      [3, 1 / 9], // 1/8 : 1
    ]) {
      const policy = new StaticOraclePolicy(backends, seededRandom(1), exponent);
      policy.setReady([0, 1]);
      const [fast, slow] = counts(policy, 9_000, 2);
      expect({ exponent, share: slow / (fast + slow) }).toEqual({ exponent, share: expect.closeTo(slowShare, 3) });
    }
  });

  it('knows a fault the moment it starts (the bound reads speeds, not queues)', () => {
    const backends = fleet(['normal', 'normal']);
    const policy = new StaticOraclePolicy(backends, seededRandom(1), 2);
    policy.setReady([0, 1]);
    expect(counts(policy, 1000, 2)).toEqual([500, 500]);
    backends[1].setBehaviour({ latencyFactor: 3 });
    const [fast, slow] = counts(policy, 10_000, 2);
    expect(slow / (fast + slow)).toBeCloseTo(1 / 10, 2); // (1/3)² against 1
  });

  it('is a simulator policy with a validated exponent', () => {
    expect(parsePolicySpec('k4=oracle-static{"exponent":4}')).toEqual({ label: 'k4', base: 'oracle-static', config: { exponent: 4 } });
    expect(() => parsePolicySpec('oracle-static{"exponent":0}')).toThrow(/"exponent" must be a finite number > 0, got 0/);
    expect(() => parsePolicySpec('oracle-static{"exponent":"2"}')).toThrow(/"exponent"/);
  });
});
