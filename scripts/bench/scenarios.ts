/**
 * The load test runs the simulator's scenarios (scripts/sim/scenarios.ts:
 * the reference's Tier 2 suite s01–s13 as data plus a `setup` that drives a
 * `ScenarioControl`), so a scenario is defined once for both. This module
 * picks them, shortens their timeline, and names them.
 */
import { Scenario, SCENARIOS as SIM_SCENARIOS, scenarioByName } from '../sim/scenarios';
import { QUICK_TIMELINE, REFERENCE_TIMELINE, Timeline } from '../sim/timeline';

export type { Scenario, Timeline };
export { REFERENCE_TIMELINE, QUICK_TIMELINE };

/**
 * The reference layout's scenarios (the simulator's own `herd` and
 * `fast-fail` compare policy variants the load test does not build).
 */
export const SCENARIOS: readonly Scenario[] = SIM_SCENARIOS.filter((s) => s.referenceLayout);

/** The default run: where policies differ most (s01, s03, s10) and the tie check (s02). */
export const QUICK_SCENARIOS = ['s01', 's02', 's03', 's10'];

/** "s03" for "s03-brownout". */
export function shortId(scenario: Scenario): string {
  return scenario.name.split('-')[0];
}

export function scenarioById(id: string): Scenario {
  const scenario = scenarioByName(id);
  if (!scenario.referenceLayout) {
    throw new RangeError(`scenario "${scenario.name}" is simulator-only (it compares policy variants); use npm run simulate`);
  }
  return scenario;
}

/**
 * The reference's proportions over a `measureS`-second window: faults over
 * [20/90, 60/90) of it; warm-up 20 s, or less for short windows (45 s gives
 * the simulator's quick timeline exactly).
 */
export function timelineFor(measureS: number, warmupS?: number): Timeline {
  if (measureS === REFERENCE_TIMELINE.measureS && (warmupS ?? 20) === 20) {
    return REFERENCE_TIMELINE;
  }
  const warmup = warmupS ?? Math.min(20, Math.max(5, Math.round(measureS / 4.5)));
  return {
    warmupMs: warmup * 1000,
    measureS,
    faultStartS: Math.round((measureS * 20) / 90),
    faultEndS: Math.round((measureS * 60) / 90),
  };
}

export function phasesOf(timeline: Timeline) {
  return [
    { name: 'before', fromS: 0, toS: timeline.faultStartS },
    { name: 'fault', fromS: timeline.faultStartS, toS: timeline.faultEndS },
    { name: 'after', fromS: timeline.faultEndS, toS: timeline.measureS },
  ];
}
