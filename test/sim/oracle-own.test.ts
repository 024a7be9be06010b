/**
 * `oracle-own`, the client-side yardstick of docs/tuning-log.md §22: every
 * backend's speed and the client's own calls in flight, nothing of the
 * other clients'.
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { seededRandom } from '../../src/core/random';
import { BackendModel } from '../../scripts/model/backend';
import { parsePolicySpec } from '../../scripts/sim/policies';
import { OwnQueueOraclePolicy } from '../../scripts/sim/oracle-own';
import { modelFleet } from '../support/model-fleet';

function fleet(roles: Parameters<typeof modelFleet>[0], slots = 8): BackendModel[] {
  return modelFleet(roles, slots);
}

/** `count` calls of nominal median `medianMs` placed and left in flight; the backends they went to. */
function placeAndHold(policy: OwnQueueOraclePolicy, count: number): number[] {
  const chosen: number[] = [];
  for (let i = 0; i < count; i++) {
    const backend = policy.pick();
    policy.started(backend);
    chosen.push(backend);
  }
  return chosen;
}

describe('oracle-own', () => {
  it('spreads its own calls in flight evenly over identical backends', () => {
    const policy = new OwnQueueOraclePolicy(fleet(['normal', 'normal', 'normal', 'normal']), seededRandom(1), () => 10, 1);
    policy.setReady([0, 1, 2, 3]);
    const sent = [0, 0, 0, 0];
    placeAndHold(policy, 40).forEach((backend) => sent[backend]++);
    expect(sent).toEqual([10, 10, 10, 10]);
  });

  it('prices a slow backend by its speed, and frees its own work when a call ends', () => {
    // noisy: twice the median, σ 0.8, so 2.6 × a normal pod's time per call.
    const policy = new OwnQueueOraclePolicy(fleet(['noisy', 'normal']), seededRandom(1), () => 10, 1);
    policy.setReady([0, 1]);
    // The normal pod takes calls until its own work over 8 slots makes it dearer than an idle noisy pod: the 15th call.
    const first = placeAndHold(policy, 14);
    expect(first.every((backend) => backend === 1)).toBe(true);
    expect(policy.pick()).toBe(0);
    // One of them ends: the normal pod is again the cheaper.
    policy.ended(1, CallOutcome.SUCCESS, true, 1);
    expect(policy.pick()).toBe(1);
  });

  it('takes no backend that answers nothing while another does; without knowsSpeed, every answering pod is alike', () => {
    const backends = fleet(['normal', 'noisy', 'normal']);
    backends[0].setBehaviour({ mode: 'unavailable' });
    const knows = new OwnQueueOraclePolicy(backends, seededRandom(2), () => 10, 1);
    knows.setReady([0, 1, 2]);
    expect(placeAndHold(knows, 20).includes(0)).toBe(false);
    const blind = new OwnQueueOraclePolicy(backends, seededRandom(2), () => 10, 1, Infinity, false);
    blind.setReady([0, 1, 2]);
    const sent = [0, 0, 0];
    placeAndHold(blind, 20).forEach((backend) => sent[backend]++);
    expect(sent).toEqual([0, 10, 10]);
  });

  it('compares `choices` random backends when asked, not all of them', () => {
    // Four backends, one of them idle and the rest holding 2 calls each: two random candidates miss the idle one half the time.
    const policy = new OwnQueueOraclePolicy(fleet(['normal', 'normal', 'normal', 'normal']), seededRandom(3), () => 10, 1, 2);
    policy.setReady([1, 2, 3]);
    placeAndHold(policy, 6);
    policy.setReady([0, 1, 2, 3]);
    let idle = 0;
    for (let i = 0; i < 2_000; i++) idle += policy.pick() === 0 ? 1 : 0;
    expect(idle / 2_000).toBeCloseTo(0.5, 1);
  });

  it('is a simulator policy whose fields are validated by name', () => {
    expect(parsePolicySpec('o4=oracle-own{"othersScale":4}')).toEqual({ label: 'o4', base: 'oracle-own', config: { othersScale: 4 } });
    expect(() => parsePolicySpec('oracle-own{"othersScale":-1}')).toThrow(/"othersScale" must be a finite number >= 0, got -1/);
    expect(() => parsePolicySpec('oracle-own{"choices":1.5}')).toThrow(/"choices" must be an integer >= 1, got 1.5/);
    expect(() => parsePolicySpec('oracle-own{"knowsSpeed":"no"}')).toThrow(/"knowsSpeed" must be true or false/);
    expect(() => parsePolicySpec('oracle-own{"scale":2}')).toThrow(/unknown field "scale"/);
  });
});
