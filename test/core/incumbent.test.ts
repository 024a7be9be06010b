/**
 * The incumbent rule (`rotationMargin`, issue 15): the next endpoint in a
 * per-balancer rotation keeps its turn unless a randomly drawn other costs
 * less than margin × its cost, so with nothing to tell endpoints apart the
 * picks follow a rotation (round_robin's spacing) while a clearly cheaper
 * one still wins (docs/tuning-log.md §9). On by default since 2026-12-02, behind
 * the gate of rotation.ts (test/core/rotation.test.ts).
 */
import fc from 'fast-check';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, PowerOfChoices, seededRandom } from '../../src/core';

describe('PowerOfChoices.chooseAgainst', () => {
  it('the incumbent keeps its turn unless a challenger costs less than margin × its cost', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 2, maxLength: 12 }),
        fc.nat(),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 1e6 }),
        (costs, incumbentSeed, margin, choiceCount, seed) => {
          const incumbent = incumbentSeed % costs.length;
          const seen: number[] = [];
          const chooser = new PowerOfChoices(seededRandom(seed));
          const chosen = chooser.chooseAgainst(incumbent, costs[incumbent], costs.length, choiceCount, margin, (i) => (seen.push(i), costs[i]));
          const challengers = seen;
          // min(d − 1, n − 1) distinct others (the caller priced the incumbent).
          expect(new Set(challengers).size).toBe(challengers.length);
          expect(challengers).not.toContain(incumbent);
          expect(challengers.length).toBe(Math.min(choiceCount - 1, costs.length - 1));
          const best = Math.min(...challengers.map((i) => costs[i]));
          if (best < margin * costs[incumbent]) {
            expect(costs[chosen]).toBe(best);
          } else {
            expect(chosen).toBe(incumbent);
          }
        },
      ),
    );
  });

  it('an ejected challenger never displaces the incumbent, however cheap', () => {
    const chooser = new PowerOfChoices(seededRandom(3));
    for (let i = 0; i < 100; i++) {
      expect(chooser.chooseAgainst(0, 50, 4, 2, 0.5, () => 1, (j) => j !== 0)).toBe(0);
    }
  });
});

describe('the engine with rotationMargin', () => {
  const SETTINGS: PeakEwmaSettings = { decayMs: 2_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 5, rotationMargin: 0.5 };

  it('identical endpoints: each gets exactly one of every n picks, in rotation', () => {
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(SETTINGS), choiceCount: 2, clock: clock.now, random: seededRandom(11) });
    const loads = Array.from({ length: 7 }, () => new EndpointLoad());
    const picks: number[] = [];
    for (let i = 0; i < 700; i++) {
      const index = engine.pick(loads);
      picks.push(index);
      const startedAt = engine.callStarted(loads[index]);
      clock.advance(1);
      engine.callEnded(loads[index], CallOutcome.SUCCESS, startedAt);
      clock.advance(1);
    }
    // After the first round every endpoint has answered in 1 ms; costs tie
    // within the margin, so the rotation decides: every window of 7 picks holds each endpoint once.
    for (let start = 7; start + 7 <= picks.length; start += 7) {
      expect(new Set(picks.slice(start, start + 7)).size).toBe(7);
    }
  });

  it("draws the rotation's start again when the number of endpoints changes, so clients that started on part of the list spread over all of it", () => {
    // A channel's first picks often come while some endpoints still connect.
    // 300 clients each pick once among 2 READY endpoints, then once among all 3.
    const firstOfThree = [0, 0, 0];
    for (let client = 0; client < 300; client++) {
      const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(SETTINGS), choiceCount: 2, clock: new ManualClock().now, random: seededRandom(1000 + client) });
      const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
      engine.pick(loads.slice(0, 2));
      firstOfThree[engine.pick(loads)]++;
    }
    // A start kept from the two-endpoint list would be position 1 or 2, never 0:
    // every client on two of the three phases. Drawn again, each position gets about a third.
    for (const count of firstOfThree) {
      expect(count).toBeGreaterThan(70);
    }
    // With the count unchanged the rotation goes on from where it was.
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(SETTINGS), choiceCount: 2, clock: new ManualClock().now, random: seededRandom(7) });
    const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
    const first = engine.pick(loads);
    expect([1, 2, 3, 4, 5].map(() => engine.pick(loads))).toEqual([1, 2, 3, 4, 5].map((k) => (first + k) % 3));
  });

  it('a clearly slower endpoint loses its turns (plain two-choice draws without the rule)', () => {
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(SETTINGS), choiceCount: 2, clock: clock.now, random: seededRandom(5) });
    const loads = Array.from({ length: 5 }, () => new EndpointLoad());
    const counts = new Array<number>(5).fill(0);
    for (let i = 0; i < 5_000; i++) {
      const index = engine.pick(loads);
      counts[index]++;
      const startedAt = engine.callStarted(loads[index]);
      clock.advance(index === 0 ? 10 : 1); // endpoint 0 answers 10× slower
      engine.callEnded(loads[index], CallOutcome.SUCCESS, startedAt);
    }
    expect(counts[0] / 5_000).toBeLessThan(0.05);
  });
});

/**
 * Warm pods answering in `answerMs` (`warmUpCalls` calls, one at a time;
 * a function gives each call's answers, for a pod that slows down), then
 * `newPods` new pods and a burst of 20 calls picked before any starts, as
 * grpc-js places a fan-out (the picker claims each pick at once:
 * EndpointLoad.callPicked). The probe rule (new-endpoint.ts) promises each
 * new pod one of them.
 */
function burstToNewPods(
  seed: number,
  answerMs: number[] | ((call: number) => number[]),
  warmUpCalls: number,
  settings: Partial<PeakEwmaSettings> = {},
  newPods = 1,
): { toNewPods: number[]; ejected: number; ejectedTurns: number; refusedTurns: number } {
  const answersAt = typeof answerMs === 'function' ? answerMs : () => answerMs;
  const clock = new ManualClock();
  const model = new PeakEwmaModel({ ...PEAK_EWMA_DEFAULTS, ...settings });
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(seed) });
  const loads = answersAt(0).map(() => new EndpointLoad());
  for (let call = 0; call < warmUpCalls; call++) {
    const index = engine.pick(loads);
    const startedAt = engine.callStarted(loads[index]);
    clock.advance(answersAt(call)[index]);
    engine.callEnded(loads[index], CallOutcome.SUCCESS, startedAt);
  }
  const warm = loads.length;
  for (let pod = 0; pod < newPods; pod++) {
    loads.push(new EndpointLoad());
  }
  const ejected = loads.filter((load) => model.ejected(load, clock.now())).length;
  const before = engine.picks.snapshot();
  const toNewPods = new Array<number>(newPods).fill(0);
  for (let call = 0; call < 20; call++) {
    const index = engine.pick(loads);
    loads[index].callPicked(1);
    if (index >= warm) {
      toNewPods[index - warm]++;
    }
  }
  const after = engine.picks.snapshot();
  return { toNewPods, ejected, ejectedTurns: after.ejected - before.ejected, refusedTurns: after.refused - before.refused };
}

describe('an ejected incumbent', () => {
  /*
   * Three pods at 8 ms; after 30 calls two of them speed up to 5 ms, and the
   * line (1.5 × the small fleet's median mean) falls below the third's mean
   * between its answers. Out by the others' answers, not its own, it has no
   * failed probe against it, and it stays under the gate's 1.45 × the fleet
   * average, so it keeps its place in the rotation and its turns reach the
   * ejected path. A pod whose own answer takes it over the line is not this
   * case: that answer counts as a failed probe, and the gate refuses its
   * turns for the count (the second test here).
   */
  const fleetSpeedsUp = (call: number): number[] => (call < 30 ? [8, 8, 8] : [5, 5, 8]);

  it('leaves the call to the draw, so a pod being probed never takes its turn (one probe call per burst)', () => {
    let ejectedTurns = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const burst = burstToNewPods(seed, fleetSpeedsUp, 120);
      expect({ seed, ejected: burst.ejected }).toEqual({ seed, ejected: 1 });
      // Before: a single challenger took an ejected incumbent's turn whatever it cost, the new pod at the probe penalty too (2–4 of 20).
      expect({ seed, toNewPods: burst.toNewPods }).toEqual({ seed, toNewPods: [1] });
      ejectedTurns += burst.ejectedTurns;
    }
    // The 8 ms pod was ejected at its turns (about 6 of each burst's 20): the case this is about ran.
    expect(ejectedTurns).toBeGreaterThan(4 * 40);
  });

  it('a pod whose own answers take it over the line has failed probes against it: its turns are refused, not ejected', () => {
    let refusedTurns = 0;
    for (let seed = 1; seed <= 40; seed++) {
      // Slow from its first answer (a new endpoint's probe), or slowing down among steady peers.
      const burst = burstToNewPods(seed, seed % 2 ? [5, 5, 8] : (call) => (call < 30 ? [5, 5, 5] : [5, 5, 8]), seed % 2 ? 30 : 120);
      expect({ seed, ejectedTurns: burst.ejectedTurns }).toEqual({ seed, ejectedTurns: 0 });
      expect({ seed, toNewPods: burst.toNewPods }).toEqual({ seed, toNewPods: [1] });
      refusedTurns += burst.refusedTurns;
    }
    expect(refusedTurns).toBeGreaterThan(4 * 40);
  });
});

describe('an incumbent being probed', () => {
  /*
   * The rotation offered an endpoint that had not answered its turns as to
   * any other (the gate judged only endpoints that had answered), and the
   * margin then weighed its probe penalty as a cost: it kept its turn
   * whenever the challengers drawn were ejected, and every turn with no
   * margin.
   */
  it('takes no turn while its probe is out, though both challengers drawn are ejected: one call per burst', () => {
    // Two of five pods at 4 × the others' latency: both out (the budget of five is two).
    for (let seed = 1; seed <= 40; seed++) {
      const burst = burstToNewPods(seed, [5, 5, 5, 20, 20], 60);
      expect(burst.ejected).toBe(2);
      // Before: 2–3 of 20 in 16 of 40 seeds (seed 10: picks 2 and 8, both its turns).
      expect({ seed, toNewPods: burst.toNewPods }).toEqual({ seed, toNewPods: [1] });
    }
  });

  it('with the gate alone (no margin), takes no turn while its probe is out', () => {
    for (let seed = 1; seed <= 40; seed++) {
      // Before: every turn, 4 of 20 in a fleet of five (seed 1: picks 2, 7, 12 and 17).
      expect({ seed, toNewPods: burstToNewPods(seed, [5, 5, 5, 5], 60, { rotationMargin: 0 }).toNewPods }).toEqual({ seed, toNewPods: [1] });
    }
  });

  it('with the margin alone (no gate), takes no turn while its probe is out', () => {
    for (let seed = 1; seed <= 40; seed++) {
      // Before: 2–3 of 20 in 12 of 40 seeds (the first is seed 9).
      expect({ seed, toNewPods: burstToNewPods(seed, [5, 5, 5, 20, 20], 60, { rotationGate: 0 }).toNewPods }).toEqual({ seed, toNewPods: [1] });
    }
  });
});

describe('endpoints being probed, drawn together', () => {
  /*
   * Two endpoints with their probes out compared as penaltyValue + 1 each,
   * so the draw gave one of them a second call; and one being probed drawn
   * with an ejected one won for not being ejected. The draw now looks past
   * both for an endpoint with a price (choice.ts, new-endpoint.ts isProbing).
   */
  it('a scale-out of two new pods into four warm ones: each new pod gets one call of the burst', () => {
    for (let seed = 1; seed <= 40; seed++) {
      // Before: one of them got 2 in 20 of 40 seeds.
      expect({ seed, toNewPods: burstToNewPods(seed, [5, 5, 5, 5], 60, {}, 2).toNewPods }).toEqual({ seed, toNewPods: [1, 1] });
    }
  });

  it('the same with plain two-choice draws (no rotation)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      // Before: 29 of 40 seeds gave one of them a second call.
      expect({ seed, toNewPods: burstToNewPods(seed, [5, 5, 5, 5], 60, { rotationGate: 0, rotationMargin: 0 }, 2).toNewPods }).toEqual({ seed, toNewPods: [1, 1] });
    }
  });

  it('with ejection off the draw compares costs alone, as Envoy does: the textbook config keeps its rule', () => {
    let secondCalls = 0;
    for (let seed = 1; seed <= 40; seed++) {
      secondCalls += burstToNewPods(seed, [5, 5, 5, 5], 60, { ejectionRatio: 0 }, 2).toNewPods.some((calls) => calls > 1) ? 1 : 0;
    }
    expect(secondCalls).toBeGreaterThan(10);
  });

  it('one new pod drawn with ejected pods: the draw looks on for a priced one (no budget, six of ten warm pods ejected)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const burst = burstToNewPods(seed, [5, 5, 5, 5, 50, 50, 50, 50, 50, 50], 200, { maxEjectionPercent: 100 });
      // Five or six: a slow pod's second answer (first-answer.ts) took it past the warm-up's end in some
      // seeds, due its probe by then, and a stale one is not ejected.
      expect([5, 6]).toContain(burst.ejected);
      // Before: the new pod, not ejected, beat every ejected one it was drawn with: a second call in 24 of 40 seeds.
      expect({ seed, toNewPods: burst.toNewPods }).toEqual({ seed, toNewPods: [1] });
    }
  });

  it('three new pods into a fleet with two of five ejected: one call each', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const burst = burstToNewPods(seed, [5, 5, 5, 20, 20], 60, {}, 3);
      expect(burst.ejected).toBe(2);
      expect({ seed, toNewPods: burst.toNewPods }).toEqual({ seed, toNewPods: [1, 1, 1] });
    }
  });

  it('an endpoint being probed still beats a peer whose call has hung past the probe penalty', () => {
    // Two warm 1 ms pods; a call to the first hangs for 900 ms (pending-aware:
    // it then costs more than penaltyValue, though not ejected or stale); the
    // second leaves and two new pods join. Looking past the probes must not
    // hand the burst to the hung pod.
    for (let seed = 1; seed <= 40; seed++) {
      const clock = new ManualClock();
      const model = new PeakEwmaModel({ ...PEAK_EWMA_DEFAULTS });
      const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(seed) });
      const hung = new EndpointLoad();
      const warm = [hung, new EndpointLoad()];
      for (let call = 0; call < 40; call++) {
        const index = engine.pick(warm);
        const startedAt = engine.callStarted(warm[index]);
        clock.advance(1);
        engine.callEnded(warm[index], CallOutcome.SUCCESS, startedAt);
      }
      engine.callStarted(hung);
      clock.advance(900);
      const loads = [hung, new EndpointLoad(), new EndpointLoad()];
      expect(model.ejected(hung, clock.now())).toBe(false);
      expect(model.cost(hung, clock.now())).toBeGreaterThan(PEAK_EWMA_DEFAULTS.penaltyValue);
      const calls = [0, 0, 0];
      for (let call = 0; call < 20; call++) {
        const index = engine.pick(loads);
        loads[index].callPicked(1);
        calls[index]++;
      }
      // The hung pod costs more than either probe; the probes share the burst.
      expect({ seed, toHung: calls[0] }).toEqual({ seed, toHung: 0 });
    }
  });

  it('a start-up burst larger than the fleet goes to the endpoints with the fewest calls out among up to four drawn', () => {
    // Five new endpoints, 20 calls picked before any starts: nothing is
    // priced but the probes. Once each has one, every candidate is being
    // probed, so the draw takes 2d = 4 of them and the one with the fewest calls out.
    const mostToOne = new Map<number, number>();
    for (let seed = 1; seed <= 400; seed++) {
      const most = Math.max(...burstToNewPods(seed, [], 0, {}, 5).toNewPods);
      mostToOne.set(most, (mostToOne.get(most) ?? 0) + 1);
    }
    // Before (two drawn): 4 each in 91 of 400 seeds, 5 to one in 305, 6 in 4.
    expect(Math.max(...mostToOne.keys())).toBe(5);
    expect(mostToOne.get(4)).toBeGreaterThan(300);
  });
});
