/**
 * Random fleets and histories for the invariant harness (harness.ts): each
 * endpoint a latency distribution with stalls, failures, load shedding,
 * lost hedges and cancels; each history bursts picked before they start,
 * paced calls, idle time, endpoints joining, leaving, coming back and
 * changing behaviour; one of harness.ts's configurations.
 */
import fc from 'fast-check';
import { Behaviour, Scenario, Step, VARIANTS } from './harness';

export const behaviour = (): fc.Arbitrary<Behaviour> =>
  fc.record({
    baseMs: fc.oneof(fc.double({ min: 0.2, max: 5, noNaN: true }), fc.double({ min: 5, max: 200, noNaN: true })),
    sigma: fc.double({ min: 0, max: 1, noNaN: true }),
    pStall: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.2, noNaN: true })),
    stallMs: fc.integer({ min: 200, max: 30_000 }),
    pFail: fc.oneof(fc.constant(0), fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
    pShed: fc.oneof(fc.constant(0), fc.constant(0), fc.double({ min: 0, max: 0.6, noNaN: true })),
    pLost: fc.oneof(fc.constant(0), fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
    pCancel: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.3, noNaN: true })),
  });

export const step = (): fc.Arbitrary<Step> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ t: fc.constant('burst' as const), k: fc.integer({ min: 1, max: 20 }), forgetP: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.3, noNaN: true })), lateP: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.2, noNaN: true })), method: fc.integer({ min: -1, max: 2 }) }) },
    { weight: 6, arbitrary: fc.record({ t: fc.constant('calls' as const), count: fc.integer({ min: 1, max: 60 }), gapMs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5, noNaN: true }), fc.double({ min: 5, max: 300, noNaN: true })), method: fc.integer({ min: -1, max: 2 }) }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 100, max: 5000 })) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('join' as const), b: behaviour() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('leave' as const), idx: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('back' as const) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('change' as const), idx: fc.nat(), b: behaviour() }) },
  );

export const scenario = (opts: { variants?: number[]; zeroMs?: boolean; maxFleet?: number; maxSteps?: number } = {}): fc.Arbitrary<Scenario> =>
  fc.record({
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    variant: opts.variants ? fc.constantFrom(...opts.variants) : fc.integer({ min: 0, max: VARIANTS.length - 1 }),
    choiceCount: fc.oneof(fc.constant(2), fc.constant(2), fc.integer({ min: 2, max: 4 })),
    deadlineMs: fc.oneof(fc.constant(Infinity), fc.integer({ min: 20, max: 5000 })),
    zeroMs: fc.constant(opts.zeroMs ?? false),
    fleet: fc.array(behaviour(), { minLength: 0, maxLength: opts.maxFleet ?? 25 }),
    steps: fc.array(step(), { minLength: 1, maxLength: opts.maxSteps ?? 30 }),
  });
