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
