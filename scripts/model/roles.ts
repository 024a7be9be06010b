/**
 * Backend roles and fleets (reference-load-test.md §3): on top of 8 slots and
 * σ = 0.3, a role overrides a few behaviour fields.
 */
import { Behaviour, DEFAULT_BEHAVIOUR } from './behaviour';

export type Role = 'normal' | 'noisy' | 'gc' | 'flaky' | 'throttled';
export type FleetKind = 'het' | 'homo';

export const ROLE_OVERRIDES: Readonly<Record<Role, Partial<Behaviour>>> = {
  normal: {},
  /** Noisy neighbour: median 20 ms, mean 27.5 ms, p99 ≈ 129 ms at the 10 ms method. */
  noisy: { latencyFactor: 2, sigma: 0.8 },
  gc: { gcPeriodMs: 10_000, gcPauseMs: 500 },
  flaky: { errorRate: 0.05 },
  throttled: { latencyFactor: 1.5, slots: 4 },
};

export function behaviourOf(role: Role): Behaviour {
  return { ...DEFAULT_BEHAVIOUR, ...ROLE_OVERRIDES[role] };
}

/**
 * The roles of an n-backend fleet, in the harness's order: "het" is
 * [noisy×3, gc, flaky, throttled, normal×14] at n = 20, the bad counts
 * scaling as round(3k), round(k)… with k = n/20, each at least 1; below 10
 * backends the bad ones are [noisy, flaky]. "homo" is all normal.
 */
export function fleetRoles(kind: FleetKind, backendCount: number): Role[] {
  if (!Number.isInteger(backendCount) || backendCount < 1) {
    throw new RangeError(`fleet size must be an integer >= 1, got ${backendCount}`);
  }
  if (kind === 'homo') {
    return new Array<Role>(backendCount).fill('normal');
  }
  let bad: Role[];
  if (backendCount < 10) {
    bad = ['noisy', 'flaky'];
  } else {
    const k = backendCount / 20;
    const count = (x: number): number => Math.max(1, Math.round(x));
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
