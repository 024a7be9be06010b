/**
 * What a suite runs: the reference layout (4 policies × 2 clients sharing
 * the fleet), the uniform layout (every client on one policy, one run per
 * policy), the herd and fast-fail scenarios, the sensitivity grid and the
 * scale run. Each planned run is independent and carries its own seed, so
 * runs can execute in any order, in workers, with the same numbers.
 */
import { ClientStall } from './client-stall';
import { SCENARIOS, Scenario } from './scenarios';
import { GRID_TIMELINE, QUICK_TIMELINE, REFERENCE_TIMELINE, SCALE_TIMELINE, Timeline } from './timeline';
import { ArrivalMode } from './arrivals';
import { RunSpec } from './world';

export type Layout = 'reference' | 'uniform';

/** The reference's four policies; the second is the policy under test. */
export const REFERENCE_POLICIES = ['round_robin', 'peak_ewma', 'least_request', 'lr_od'] as const;

export const UNIFORM_POLICIES = [
  'round_robin',
  'least_request',
  'lr_od',
  'peak_ewma',
  'peak_ewma_od',
  'oracle',
  'oracle-capacity',
] as const;

export const GRID_BACKENDS = [5, 20, 50] as const;
export const GRID_LOADS = [0.3, 0.7, 0.9] as const;
export const SCALE_POLICIES = ['round_robin', 'least_request', 'peak_ewma'] as const;

export type RunKind = 'reference' | 'uniform' | 'grid' | 'scale' | 'regime';

export interface PlannedRun {
  kind: RunKind;
  /** Where the result goes in the JSON (scenario name, or grid cell). */
  key: string;
  spec: RunSpec;
}

export interface SuiteOptions {
  scenarios: readonly Scenario[];
  layouts: readonly Layout[];
  seed: number;
  quick: boolean;
  /** Replaces "peak_ewma" (the policy under test) everywhere, e.g. a tuning variant. */
  policyUnderTest?: string;
  /** Replaces the uniform layout's policy list. */
  uniformPolicies?: readonly string[];
  grid: boolean;
  scale: boolean;
  /** Client call spacing for every run (RunSpec.arrivals); default fixed. */
  arrivals?: ArrivalMode;
  /** Closed loop only: callers per client (RunSpec.workers); default derived (closed-loop.ts). */
  workers?: number;
  /**
   * Clients per run in the reference and uniform layouts (default 8, herd
   * 16), at the same total load, so each sends 1/clients of it: a lower
   * per-client rate. The reference layout splits them evenly over its four
   * policies, so this must be a multiple of 4 there.
   */
  clients?: number;
  /** The default backend's slots for every run (RunSpec.slots); default 8. */
  slots?: number;
  /** Backends of the reference and uniform layouts' runs (RunSpec.backends); default the scenario's. */
  backends?: number;
  /** The clients' own pauses for every run (RunSpec.clientStall, client-stall.ts); default none. */
  clientStall?: ClientStall;
}

export function substitute(policy: string, underTest: string | undefined): string {
  if (underTest === undefined) {
    return policy;
  }
  if (policy === 'peak_ewma') {
    return underTest;
  }
  if (policy === 'peak_ewma_od') {
    // The same variant wrapped in outlier detection.
    return underTest.replace(/(^|=)peak_ewma(?=\{|$)/, '$1peak_ewma_od').replace(/^([\w.-]+)=/, '$1-od=');
  }
  return policy;
}

/** A scenario's fault hits fixed pods (s10: 0–3): a fleet without them is refused here, not run into a crash in a worker. */
function requireFaultyPods(scenarios: readonly Scenario[], backends: number): void {
  for (const scenario of scenarios) {
    const highest = Math.max(-1, ...scenario.faulty);
    if (highest >= backends) {
      throw new RangeError(`--backends ${backends}: ${scenario.name} faults pods ${scenario.faulty.join(', ')}, so it needs at least ${highest + 1} backends`);
    }
  }
}

export function planSuite(options: SuiteOptions): PlannedRun[] {
  const timeline: Timeline = options.quick ? QUICK_TIMELINE : REFERENCE_TIMELINE;
  const runs: PlannedRun[] = [];
  const sub = (policy: string): string => substitute(policy, options.policyUnderTest);
  if (options.backends !== undefined) {
    requireFaultyPods(options.scenarios, options.backends);
  }
  for (const scenario of options.scenarios) {
    if (options.layouts.includes('reference') && scenario.referenceLayout) {
      runs.push({
        kind: 'reference',
        key: scenario.name,
        spec: {
          scenario: scenario.name,
          groups: REFERENCE_POLICIES.map((policy) => ({
            policy: sub(policy),
            clients: options.clients === undefined ? 2 : options.clients / REFERENCE_POLICIES.length,
          })),
          seed: options.seed,
          timeline,
        },
      });
    }
    if (options.layouts.includes('uniform')) {
      const policies = options.uniformPolicies ?? scenario.uniformPolicies ?? UNIFORM_POLICIES;
      for (const policy of policies) {
        runs.push({
          kind: 'uniform',
          key: scenario.name,
          spec: {
            scenario: scenario.name,
            groups: [{ policy: sub(policy), clients: options.clients ?? scenario.uniformClients }],
            seed: options.seed,
            timeline,
          },
        });
      }
    }
  }
  if (options.grid) {
    for (const backends of GRID_BACKENDS) {
      for (const load of GRID_LOADS) {
        runs.push({
          kind: 'grid',
          key: `${backends}x${Math.round(load * 100)}`,
          spec: {
            scenario: 's01-steady-uneven',
            groups: REFERENCE_POLICIES.map((policy) => ({ policy: sub(policy), clients: 1 })),
            seed: options.seed,
            timeline: GRID_TIMELINE,
            backends,
            load,
          },
        });
      }
    }
  }
  if (options.scale) {
    for (const policy of SCALE_POLICIES) {
      runs.push({
        kind: 'scale',
        key: 'scale-500x64',
        spec: {
          scenario: 's01-steady-uneven',
          groups: [{ policy: sub(policy), clients: 64 }],
          seed: options.seed,
          timeline: options.quick ? { ...SCALE_TIMELINE, measureS: 10 } : SCALE_TIMELINE,
          backends: 500,
        },
      });
    }
  }
  const { arrivals, workers, slots, backends, clientStall } = options;
  // Only set when given, so a default run's spec (and JSON) is unchanged.
  // The grid and the scale run size their own fleets.
  const sized = (kind: PlannedRun['kind']): boolean => backends !== undefined && (kind === 'reference' || kind === 'uniform');
  return runs.map((run) => ({
    ...run,
    spec: {
      ...run.spec,
      ...(sized(run.kind) ? { backends } : {}),
      ...(arrivals === undefined ? {} : { arrivals }),
      ...(workers === undefined ? {} : { workers }),
      ...(slots === undefined ? {} : { slots }),
      ...(clientStall === undefined ? {} : { clientStall }),
    },
  }));
}

export function allScenarios(): readonly Scenario[] {
  return SCENARIOS;
}
