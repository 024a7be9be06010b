/**
 * The two oracles of scripts/sim/oracle.ts: `oracle` (the expected response
 * time of one more call at each backend, from its true queue and speed) and
 * `oracle-capacity` ((calls there + 1) / capacity). Both read the backends'
 * state at the pick, so a fault is seen at once, and neither ever picks a
 * backend that answers nothing while another answers.
 */
import { seededRandom } from '../../src/core/random';
import { BackendModel } from '../../scripts/model/backend';
import { executeRun } from '../../scripts/sim/execute';
import { OracleKind, OraclePolicy } from '../../scripts/sim/oracle';
import { parsePolicySpec } from '../../scripts/sim/policies';
import { modelFleet } from '../support/model-fleet';

const KINDS: OracleKind[] = ['oracle', 'oracle-capacity'];
// The fleet's scheduler is never advanced: it stays at 0 ms, and calls submitted stay where they are.
const NOW = () => 0;
const MEDIAN_MS = 10;

function oracleOver(kind: OracleKind, backends: BackendModel[], seed = 1): OraclePolicy {
  const oracle = new OraclePolicy(kind, backends, NOW, seededRandom(seed), () => MEDIAN_MS);
  oracle.setReady(backends.map((_, id) => id));
  return oracle;
}

function counts(oracle: OraclePolicy, picks: number, backends: number): number[] {
  const sent = new Array<number>(backends).fill(0);
  for (let i = 0; i < picks; i++) sent[oracle.pick()]++;
  return sent;
}

/** `count` calls of the 10 ms method submitted to `backend` (the first 8 take its slots, the rest queue). */
function load(backend: BackendModel, count: number): void {
  for (let i = 0; i < count; i++) backend.submit(i, MEDIAN_MS, 500);
}

describe.each(KINDS)('%s', (kind) => {
  it('spreads picks evenly over identical idle backends (ties broken at random)', () => {
    const sent = counts(oracleOver(kind, modelFleet(['normal', 'normal', 'normal'], 8)), 3_000, 3);
    // Reservoir sampling over three equal costs: a third each, ±100 of 1,000 at this seed.
    sent.forEach((n) => expect(Math.abs(n - 1_000)).toBeLessThan(100));
  });

  it('sends the next call to the idle backend, not the one whose 8 slots are busy', () => {
    const backends = modelFleet(['normal', 'normal'], 8);
    load(backends[0], 8);
    expect(backends[0].inService).toBe(8);
    expect(counts(oracleOver(kind, backends), 100, 2)).toEqual([0, 100]);
  });

  it('sees a fault at once: a 10× slower pod, then a crash-looping one, with not a call ended', () => {
    const backends = modelFleet(['normal', 'normal'], 8);
    // Pod 0 has 8 calls in service and 4 waiting; pod 1 is idle.
    load(backends[0], 12);
    const oracle = oracleOver(kind, backends);
    expect(counts(oracle, 100, 2)).toEqual([0, 100]);
    // Pod 1 ten times slower: one call there costs ~105 ms (capacity: 1/(8/104.6) = 13.1) against pod 0's
    // 5th slot to free and a call (~20 ms; capacity: 13 calls / (8/10.46) = 17.0)...
    backends[1].setBehaviour({ latencyFactor: 10 });
    const slow = counts(oracle, 100, 2);
    if (kind === 'oracle') {
      expect(slow).toEqual([100, 0]);
    } else {
      // ... which oracle-capacity, blind to when calls end, still prefers at 10×, and leaves at 20×: 1/(8/209) = 26 > 17.
      expect(slow).toEqual([0, 100]);
      backends[1].setBehaviour({ latencyFactor: 20 });
      expect(counts(oracle, 100, 2)).toEqual([100, 0]);
    }
    // Crash-looping: never chosen while pod 0 answers, however busy pod 0 is.
    backends[1].setBehaviour({ latencyFactor: 1, mode: 'unavailable' });
    load(backends[0], 50);
    expect(counts(oracle, 100, 2)).toEqual([100, 0]);
    // Healed: idle again, and chosen again.
    backends[1].setBehaviour({ mode: 'normal' });
    expect(counts(oracle, 100, 2)).toEqual([0, 100]);
  });
});

describe('oracle and a pod that sheds load', () => {
  it('never sends a call to a pod that would refuse it while another can take it, however long its queue', () => {
    const backends = modelFleet(['shedding', 'normal'], 8);
    load(backends[0], 1);
    expect(backends[0].full).toBe(true);
    // Pod 1: 8 in service and 40 queued, ~60 ms away; the shedding pod's one slot frees in ~10 ms, but it refuses now.
    load(backends[1], 48);
    const oracle = oracleOver('oracle', backends);
    expect(counts(oracle, 100, 2)).toEqual([0, 100]);
    // Its queue, had it one, would make it the better pick.
    backends[0].setBehaviour({ queueLimit: 1 });
    expect(counts(oracle, 100, 2)).toEqual([100, 0]);
  });
});

describe('the oracles as simulator policies', () => {
  it('parse as policies of their own', () => {
    expect(parsePolicySpec('oracle')).toEqual({ label: 'oracle', base: 'oracle', config: {} });
    expect(parsePolicySpec('cap=oracle-capacity')).toEqual({ label: 'cap', base: 'oracle-capacity', config: {} });
  });

  it('s03: take calls off the browned-out pod from the fault\'s first second, where round_robin keeps its 1/20', () => {
    const timeline = { warmupMs: 1_000, measureS: 4, faultStartS: 1, faultEndS: 3 };
    const run = (policy: string) =>
      executeRun({ scenario: 's03-brownout', groups: [{ policy, clients: 2 }], seed: 1, timeline, slots: 2 }).groups[0];
    const podZeroInFault = (policy: string) => {
      const shares = run(policy).shareBySecond.slice(1, 3).map((second) => second[0]);
      expect(shares).toHaveLength(2); // the fault's two seconds, or the checks below check nothing
      return shares;
    };
    podZeroInFault('round_robin').forEach((share) => expect(share).toBeCloseTo(1 / 20, 2));
    for (const oracle of KINDS) {
      podZeroInFault(oracle).forEach((share) => expect({ oracle, under: share < 1 / 40 }).toEqual({ oracle, under: true }));
    }
  });
});
