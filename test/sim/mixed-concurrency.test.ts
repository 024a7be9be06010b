/**
 * s15, a fleet of two kinds of server behind one name (a migration, a
 * mixed-language service): pods 0–9 serve one call at a time, pods 10–19
 * the default 8, each as fast per call. Capacity is 90 slots, and an even
 * split gives each one-slot pod 1/20 of 70 % of it: 3.15 slots' worth of
 * calls, three times what it serves. At reduced length, 8 clients, seed 1,
 * each policy alone on the fleet (uniform layout); virtual time, so the
 * numbers are exact. What must hold: round_robin and least_request fail
 * calls at the deadline (least_request counts only its own client's calls
 * in flight, 1/8 of a one-slot pod's queue); peak_ewma fails none and has
 * the lowest p99 over all calls of the three. docs/simulation.md
 * ("Mixed-concurrency fleets") has the full-length grid.
 */
import { fleetRoles, behaviourAtSlots } from '../../scripts/model/roles';
import { fleetCapacityRps } from '../../scripts/model/capacity';
import { SINGLE_METHOD } from '../../scripts/model/methods';
import { uniformGroupsByPolicy } from '../support/uniform-runs';

const POLICIES = ['round_robin', 'least_request', 'peak_ewma'];

describe('s15 mixed concurrency: half the pods serve one call at a time', () => {
  it('is a fleet of 10 one-slot pods and 10 of the default slots, 90 slots in all', () => {
    const roles = fleetRoles('mixed', 20);
    expect(roles.filter((role) => role === 'single')).toHaveLength(10);
    expect(roles.slice(0, 10).every((role) => role === 'single')).toBe(true);
    expect(roles.map((role) => behaviourAtSlots(role, 8).slots).reduce((a, b) => a + b)).toBe(90);
    // One slot whatever the default backend's.
    expect(behaviourAtSlots('single', 2).slots).toBe(1);
    const perSlotRps = fleetCapacityRps([behaviourAtSlots('normal', 1)], SINGLE_METHOD);
    expect(fleetCapacityRps(roles.map((role) => behaviourAtSlots(role, 8)), SINGLE_METHOD)).toBeCloseTo(90 * perSlotRps, 6);
  });

  it('round_robin and least_request fail calls; peak_ewma fails none and has the lowest p99 over all calls', () => {
    const groups = uniformGroupsByPolicy('s15', POLICIES);
    const seen = Object.fromEntries(
      POLICIES.map((policy) => [policy, { failsCalls: groups[policy].errorRate > 0.01, lowestP99All: POLICIES.every((other) => other === policy || groups[policy].p99All < groups[other].p99All) }]),
    );
    expect(seen).toEqual({
      round_robin: { failsCalls: true, lowestP99All: false },
      least_request: { failsCalls: true, lowestP99All: false },
      peak_ewma: { failsCalls: false, lowestP99All: true },
    });
    expect(groups.peak_ewma.errorRate).toBe(0);
  });
});
