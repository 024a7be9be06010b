/**
 * s16, s15's fleet with one-slot pods that shed load rather than queue
 * (grpcio with one worker and maximum_concurrent_rpcs=1): pods 0–9 refuse
 * at once, with RESOURCE_EXHAUSTED, a call that finds their slot busy; pods
 * 10–19 serve the default 8 at a time. In the simulator that status is
 * CallOutcome.SHED, which ejects the endpoint until its probe
 * (src/core/shed.ts, docs/tuning-log.md §49). At reduced length, 8
 * clients, seed 1, each policy alone on the fleet (uniform layout); virtual
 * time, so the numbers are exact. Every client-only policy's p99 over all
 * calls sits at the deadline here (refused calls count as failed at the
 * deadline), so what tells them apart is the share of calls failed:
 * measured 38.7 % round_robin, 43.2 % least_request (a refused call ends at
 * once, so the pod looks idle to a count of calls in flight), peak_ewma
 * about 1.7 % (7.84 % without the shed rule, RESOURCE_EXHAUSTED a plain
 * failure as before 2ffb290), the oracle none (it never picks a full pod).
 * docs/simulation.md ("Load-shedding fleets") has the full-length grid.
 */
import { fleetRoles, behaviourAtSlots } from '../../scripts/model/roles';
import { scenarioByName } from '../../scripts/sim/scenarios';
import { uniformGroupsByPolicy } from '../support/uniform-runs';
import { outcomeOfStatus } from '../../scripts/sim/world';
import { STATUS_OK, STATUS_RESOURCE_EXHAUSTED, STATUS_UNAVAILABLE } from '../../scripts/model/backend';
import { CallOutcome } from '../../src/core/endpoint-load';

const POLICIES = ['round_robin', 'least_request', 'peak_ewma', 'oracle'];

describe('s16 mixed shedding: half the pods serve one call at a time and refuse the rest', () => {
  it('is s15 with shedding pods: 10 one-slot pods with no queue, then 10 of the default slots', () => {
    expect(scenarioByName('s16').name).toBe('s16-mixed-shedding');
    const roles = fleetRoles('mixed-shedding', 20);
    expect(roles.slice(0, 10).every((role) => role === 'shedding')).toBe(true);
    expect(roles.slice(10).every((role) => role === 'normal')).toBe(true);
    expect(roles.map((role) => behaviourAtSlots(role, 8).slots).reduce((a, b) => a + b)).toBe(90);
    expect(fleetRoles('mixed-shedding', 5)).toEqual(['shedding', 'shedding', 'normal', 'normal', 'normal']);
  });

  it('maps the model statuses to outcomes as call-outcome.ts maps gRPC ones', () => {
    expect(outcomeOfStatus(STATUS_OK)).toBe(CallOutcome.SUCCESS);
    expect(outcomeOfStatus(STATUS_RESOURCE_EXHAUSTED)).toBe(CallOutcome.SHED);
    expect(outcomeOfStatus(STATUS_UNAVAILABLE)).toBe(CallOutcome.FAILURE);
  });

  it('round_robin and least_request fail over a tenth of the calls; peak_ewma under 3.5 % (the refusal ejects); the oracle none', () => {
    const groups = uniformGroupsByPolicy('s16', POLICIES);
    const failed = Object.fromEntries(POLICIES.map((policy) => [policy, groups[policy].errorRate]));
    expect({
      roundRobinOverTenth: failed.round_robin > 0.1,
      leastRequestOverTenth: failed.least_request > 0.1,
      peakEwmaUnder: failed.peak_ewma < 0.035,
      peakEwmaFewest: failed.peak_ewma < Math.min(failed.round_robin, failed.least_request),
      oracleNone: failed.oracle === 0,
    }).toEqual({ roundRobinOverTenth: true, leastRequestOverTenth: true, peakEwmaUnder: true, peakEwmaFewest: true, oracleNone: true });
    // Its OK calls are not the price: their p99 stays near the oracle's.
    expect(groups.peak_ewma.p99).toBeLessThan(1.5 * groups.oracle.p99);
  });
});
