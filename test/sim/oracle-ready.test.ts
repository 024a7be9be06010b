/**
 * `oracle-ready`: the product's engine shown only the backends an oracle
 * deems healthy, so the regime grid can tell what peak_ewma does not know
 * from what its rule does with what it knows.
 */
import { PickPath } from '../../src/core/pick-paths';
import { seededRandom } from '../../src/core/random';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';
import { BackendModel } from '../../scripts/model/backend';
import { EnginePolicy } from '../../scripts/sim/engine-policy';
import { ReadyOraclePolicy } from '../../scripts/sim/oracle-ready';
import { parsePolicySpec } from '../../scripts/sim/policies';
import { modelFleet } from '../support/model-fleet';

function fleet(roles: Parameters<typeof modelFleet>[0], slots = 1): BackendModel[] {
  return modelFleet(roles, slots);
}

function oracleOver(backends: BackendModel[], healthy: number): { oracle: ReadyOraclePolicy; engine: EnginePolicy } {
  const config = PeakEwmaLoadBalancingConfig.parse({});
  const engine = new EnginePolicy({ model: config.createModel(), choiceCount: config.choiceCount }, () => 0, seededRandom(5));
  const oracle = new ReadyOraclePolicy(engine, backends, healthy);
  oracle.setReady(backends.map((_, id) => id));
  return { oracle, engine };
}

function counts(policy: ReadyOraclePolicy, picks: number, backends: number): number[] {
  const sent = new Array<number>(backends).fill(0);
  for (let i = 0; i < picks; i++) sent[policy.pick(0)]++;
  return sent;
}

describe('oracle-ready', () => {
  it("runs the product's rotation over the healthy backends only", () => {
    // normal, noisy (median 2×, σ 0.8), normal, throttled (1.5× slower), normal.
    const backends = fleet(['normal', 'noisy', 'normal', 'throttled', 'normal']);
    const { oracle, engine } = oracleOver(backends, 0.99);
    const sent = counts(oracle, 300, 5);
    expect(sent).toEqual([100, 0, 100, 0, 100]);
    // The engine made the picks: every one a rotation turn (nothing answered yet, so nothing is refused).
    expect(engine.engine.picks.snapshot()).toMatchObject({ turn: 300, refused: 0, drawn: 0 });
    expect(oracle.lastPickPath()).toBe(PickPath.turn);
  });

  it('knows a fault the moment it starts and forgets it the moment it ends', () => {
    const backends = fleet(['normal', 'normal', 'normal']);
    const { oracle } = oracleOver(backends, 0.99);
    expect(counts(oracle, 30, 3)).toEqual([10, 10, 10]);
    backends[1].setBehaviour({ latencyFactor: 5 });
    expect(counts(oracle, 30, 3)).toEqual([15, 0, 15]);
    backends[1].setBehaviour({ latencyFactor: 1 });
    expect(counts(oracle, 30, 3)).toEqual([10, 10, 10]);
  });

  it('draws its line at `healthy` × the best capacity: 0.9 keeps a pod failing 5 % of calls, 0.99 does not', () => {
    const backends = fleet(['normal', 'flaky', 'normal']);
    expect(counts(oracleOver(backends, 0.9).oracle, 30, 3)).toEqual([10, 10, 10]);
    expect(counts(oracleOver(backends, 0.99).oracle, 30, 3)).toEqual([15, 0, 15]);
  });

  it('draws the line by hand-computed speeds at the reference 8 slots: throttled 1/3, noisy 0.38, flaky and gc 0.95 of a normal pod', () => {
    // Relative speeds (model/roles.ts, model/capacity.ts): noisy 1/(2·e^(0.8²/2 − 0.3²/2)) = 0.3798; throttled
    // 4 of 8 slots at 1.5× the time = 1/3; flaky answers 95 % of its calls; gc is paused 500 ms of every 10 s = 0.95.
    const backends = fleet(['normal', 'noisy', 'throttled', 'flaky', 'gc'], 8);
    const shown = (healthy: number) => counts(oracleOver(backends, healthy).oracle, 60, 5).map((n) => n > 0);
    expect(shown(0.96)).toEqual([true, false, false, false, false]);
    expect(shown(0.94)).toEqual([true, false, false, true, true]);
    expect(shown(0.38)).toEqual([true, false, false, true, true]);
    expect(shown(0.37)).toEqual([true, true, false, true, true]);
    expect(shown(0.34)).toEqual([true, true, false, true, true]);
    expect(shown(0.33)).toEqual([true, true, true, true, true]);
  });

  it("knows s10's fault: a pod cut from 8 slots to 4 has half the capacity, shown at healthy 0.49 and hidden at 0.51", () => {
    const backends = fleet(['normal', 'normal'], 8);
    backends[1].setBehaviour({ slots: 4 });
    expect(counts(oracleOver(backends, 0.49).oracle, 20, 2)).toEqual([10, 10]);
    expect(counts(oracleOver(backends, 0.51).oracle, 20, 2)).toEqual([20, 0]);
  });

  it('shows every READY backend when none is healthy (none answers)', () => {
    const backends = fleet(['normal', 'normal']);
    backends.forEach((b) => b.setBehaviour({ mode: 'unavailable' }));
    expect(counts(oracleOver(backends, 0.99).oracle, 20, 2)).toEqual([10, 10]);
  });

  it('is a simulator policy: "healthy" validated, the rest parsed as peak_ewma config', () => {
    expect(parsePolicySpec('ready=oracle-ready{"healthy":0.9,"choiceCount":3}')).toEqual({
      label: 'ready',
      base: 'oracle-ready',
      config: { healthy: 0.9, choiceCount: 3 },
    });
    expect(() => parsePolicySpec('oracle-ready{"healthy":0}')).toThrow(/"healthy" must be a number in \(0, 1\], got 0/);
    expect(() => parsePolicySpec('oracle-ready{"healthy":1.5}')).toThrow(/"healthy"/);
    expect(() => parsePolicySpec('oracle-ready{"choiceCount":0}')).toThrow(/choiceCount/);
  });
});
