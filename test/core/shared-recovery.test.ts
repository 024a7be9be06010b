/**
 * A fault that several endpoints went into together ends for all of them
 * together (src/core/shared-recovery.ts): when one of them comes back, the
 * others' probes are due at once; an endpoint whose fault began apart, or
 * that fails with errors, waits for its own probe.
 *
 * One client on a manual clock, calls one after another, each answered in
 * its pod's time: ten pods at 1 ms, some at 5 ms for a while.
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, seededRandom } from '../../src/core';
import { isStale } from '../../src/core/staleness';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

const SETTINGS = { ...PEAK_EWMA_DEFAULTS };
const PODS = 10;

interface Fault {
  readonly pod: number;
  readonly fromMs: number;
  readonly toMs: number;
  /** Fail every call instead of answering slowly. */
  readonly errors?: boolean;
}

/**
 * Runs calls until `untilMs`; at each of the balancer's returns records
 * which pods were then due for a probe before `maxEjectionTime` since their
 * last answer (stale early: only the news makes them so), and when the
 * first return came and each pod took its first call after `healMs`.
 */
function run(faults: readonly Fault[], healMs: number, untilMs: number, seed = 1) {
  const clock = new ManualClock();
  const model = new PeakEwmaModel(SETTINGS);
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(seed) });
  const loads = Array.from({ length: PODS }, () => new EndpointLoad());
  const faultOf = (pod: number, nowMs: number) => faults.find((f) => f.pod === pod && nowMs >= f.fromMs && nowMs < f.toMs);
  const firstCallAfterHeal = new Array<number>(PODS).fill(NaN);
  const dueEarlyAtReturns = new Set<number>();
  let returnAtMs = NaN;
  let returns = 0;
  while (clock.now() < untilMs) {
    const pod = engine.pick(loads);
    const startedAt = engine.callStarted(loads[pod]);
    const fault = faultOf(pod, clock.now());
    if (clock.now() >= healMs && Number.isNaN(firstCallAfterHeal[pod])) {
      firstCallAfterHeal[pod] = clock.now();
    }
    clock.advance(fault && !fault.errors ? 5 : 1);
    engine.callEnded(loads[pod], fault?.errors ? CallOutcome.FAILURE : CallOutcome.SUCCESS, startedAt);
    if (model.traffic.recovery.returns > returns) {
      returns = model.traffic.recovery.returns;
      if (Number.isNaN(returnAtMs)) {
        returnAtMs = clock.now();
      }
      loads.forEach((load, i) => {
        if (clock.now() - load.sampledAtMs < SETTINGS.maxEjectionMs! && isStale(load, clock.now(), SETTINGS, model.fleet, model.traffic)) {
          dueEarlyAtReturns.add(i);
        }
      });
    }
  }
  return { dueEarly: [...dueEarlyAtReturns].sort(), returnAtMs, firstCallAfterHeal };
}

describe('a fault shared by several endpoints', () => {
  // Onsets half a second apart (one fault, noticed at different moments), so the three are probed out of step.
  const together = [0, 1, 2].map((pod) => ({ pod, fromMs: 2_000 + 500 * pod, toMs: 12_000 }));

  it('when the first of three pods that slowed down together comes back, the others still waiting for their probe are probed at once', () => {
    const result = run(together, 12_000, 16_000);
    // A return after the heal made a pod of the fault due before its own probe (seed 1: pod 1, sampled
    // last 661 ms before; pod 0's own probe had come) and no other pod.
    expect(result.returnAtMs).toBeGreaterThan(12_000);
    expect(result.dueEarly.length).toBeGreaterThan(0);
    expect(result.dueEarly.every((pod) => pod <= 2)).toBe(true);
    // So every pod of the fault takes a call within a few ms of the first return, where a probe could be a second away.
    for (const pod of [0, 1, 2]) {
      expect(result.firstCallAfterHeal[pod] - result.returnAtMs).toBeLessThan(50);
    }
  });

  it('the same over twenty seeds: every pod of the fault back within 50 ms of the first return', () => {
    let dueEarly = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const result = run(together, 12_000, 14_000, seed);
      const late = [0, 1, 2].filter((pod) => !(result.firstCallAfterHeal[pod] - result.returnAtMs < 50));
      expect({ seed, late }).toEqual({ seed, late: [] });
      dueEarly += result.dueEarly.length;
    }
    // The news, not the pods' own probes, did it in most seeds.
    expect(dueEarly).toBeGreaterThan(10);
  });

  it('a pod whose fault began apart (more than 2 × maxEjectionTime before) is not made due by the others', () => {
    const result = run(
      [...together, { pod: 5, fromMs: 6_000, toMs: 12_000 }],
      12_000,
      16_000,
    );
    expect(result.returnAtMs).toBeGreaterThan(12_000);
    expect(result.dueEarly).not.toContain(5);
    expect(result.dueEarly.length).toBeGreaterThan(0);
  });

  it('a pod failing with errors (a crash loop) is not made due: its back-off is its own', () => {
    const result = run(
      [...together, { pod: 3, fromMs: 2_250, toMs: 12_000, errors: true }],
      12_000,
      16_000,
    );
    expect(result.returnAtMs).toBeGreaterThan(12_000);
    expect(result.dueEarly).not.toContain(3);
    expect(result.dueEarly.length).toBeGreaterThan(0);
  });

  it('a pod out for one slow spell of a few answers is no news: nothing returns', () => {
    // 60 ms slow: ejected, and back at its first probe, before three failed probes could make a sustained fault.
    const result = run([{ pod: 0, fromMs: 2_000, toMs: 2_060 }], 2_060, 6_000);
    expect(result.returnAtMs).toBeNaN();
  });
});
