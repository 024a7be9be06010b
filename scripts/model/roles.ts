/**
 * Backend roles and fleets (reference-load-test.md §3): on top of 8 slots and
 * σ = 0.3, a role overrides a few behaviour fields. The default backend's
 * slots can change (the simulator's --slots); roles keep their relative
 * differences: a throttled pod has half the slots.
 */
import { Behaviour, DEFAULT_BEHAVIOUR } from './behaviour';

export type Role = 'normal' | 'noisy' | 'gc' | 'flaky' | 'throttled' | 'single' | 'shedding' | 'warming';
export type FleetKind = 'het' | 'homo' | 'mixed' | 'mixed-shedding';

export const ROLE_OVERRIDES: Readonly<Record<Role, Partial<Behaviour>>> = {
  normal: {},
  /** Noisy neighbour: median 20 ms, mean 27.5 ms, p99 ≈ 129 ms at the 10 ms method. */
  noisy: { latencyFactor: 2, sigma: 0.8 },
  gc: { gcPeriodMs: 10_000, gcPauseMs: 500 },
  flaky: { errorRate: 0.05 },
  /** ...and half the slots (`halfSlots`): 4 of the reference's 8. */
  throttled: { latencyFactor: 1.5 },
  /**
   * A server that handles one call at a time (a Node.js, Python or Ruby
   * process) in a fleet of the default's: as fast per call, with one slot
   * whatever the default backend's (the "mixed" fleet).
   */
  single: { slots: 1 },
  /**
   * A one-slot server that sheds load rather than queue (grpcio with one
   * worker and maximum_concurrent_rpcs=1): a call that finds its slot busy
   * is refused at once with RESOURCE_EXHAUSTED (the "mixed-shedding" fleet).
   */
  shedding: { slots: 1, queueLimit: 0 },
  /**
   * A process just started that warms up with work (a JVM's JIT, a cold
   * cache): its first call 5 × slower, the extra falling by 1/e with every
   * 300 calls it begins (s17). At a fair share of the reference's load
   * (~480 calls/s a pod) that is a second or two of warm-up.
   */
  warming: { warmupFactor: 5, warmupCalls: 300 },
};

/**
 * Half of `slots`, at least 1 (a backend cannot serve half a call; 0,
 * unlimited, stays unlimited): a throttled pod, s10's contended node.
 */
export function halfSlots(slots: number): number {
  return slots === 0 ? 0 : Math.max(1, Math.floor(slots / 2));
}

/**
 * A role's behaviour with the reference's 8 slots. One argument on purpose:
 * callers map role lists with it, and an array index must not become slots.
 */
export function behaviourOf(role: Role): Behaviour {
  return behaviourAtSlots(role, DEFAULT_BEHAVIOUR.slots);
}

/** A role's behaviour when the default backend serves `slots` calls at once. */
export function behaviourAtSlots(role: Role, slots: number): Behaviour {
  const behaviour = { ...DEFAULT_BEHAVIOUR, slots, ...ROLE_OVERRIDES[role] };
  return role === 'throttled' ? { ...behaviour, slots: halfSlots(slots) } : behaviour;
}

/**
 * x rounded to the nearest integer, a half to the even one: Python 3's
 * `round()`, which the harness's `het_roles` uses (run.py). `Math.round`
 * takes halves up, and a fleet of 30 or 50 then had one more noisy, GC,
 * flaky and throttled pod than the harness's (50: 17 bad pods, not 14).
 */
export function roundHalfToEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest !== 0.5) {
    return Math.round(x);
  }
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The roles of an n-backend fleet, in the harness's order: "het" is
 * [noisy×3, gc, flaky, throttled, normal×14] at n = 20, the bad counts
 * scaling as round(3k), round(k)… with k = n/20 (halves to even, as
 * Python rounds), each at least 1; below 10
 * backends the bad ones are [noisy, flaky]. "homo" is all normal. "mixed"
 * is ⌊n/2⌋ single-slot pods, then normal ones (s15: two kinds of server
 * behind one name); "mixed-shedding" the same with one-slot pods that
 * refuse rather than queue (s16).
 */
export function fleetRoles(kind: FleetKind, backendCount: number): Role[] {
  if (!Number.isInteger(backendCount) || backendCount < 1) {
    throw new RangeError(`fleet size must be an integer >= 1, got ${backendCount}`);
  }
  if (kind === 'homo') {
    return new Array<Role>(backendCount).fill('normal');
  }
  if (kind === 'mixed' || kind === 'mixed-shedding') {
    const single = Math.floor(backendCount / 2);
    const role: Role = kind === 'mixed' ? 'single' : 'shedding';
    return [...new Array<Role>(single).fill(role), ...new Array<Role>(backendCount - single).fill('normal')];
  }
  let bad: Role[];
  if (backendCount < 10) {
    bad = ['noisy', 'flaky'];
  } else {
    const k = backendCount / 20;
    const count = (x: number): number => Math.max(1, roundHalfToEven(x));
    bad = [
      ...new Array<Role>(count(3 * k)).fill('noisy'),
      ...new Array<Role>(count(k)).fill('gc'),
      ...new Array<Role>(count(k)).fill('flaky'),
      ...new Array<Role>(count(k)).fill('throttled'),
    ];
  }
  bad = bad.slice(0, backendCount);
  return [...bad, ...new Array<Role>(backendCount - bad.length).fill('normal')];
}
