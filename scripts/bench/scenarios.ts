/**
 * The reference's Tier 2 scenarios (reference-load-test.md §5) as data, and
 * the timeline they run on. Faults hit pod 0 (pods 0–3 for s10) from 20/90
 * to 60/90 of the measurement window and then heal; a shorter `measureS`
 * keeps those proportions.
 */
import type { Behaviour, FleetKind } from '../model';

export interface FaultSpec {
  /** Indices of the backends the fault hits. */
  readonly backends: readonly number[];
  readonly patch: Partial<Behaviour>;
  readonly heal: Partial<Behaviour>;
}

export type Churn = 'rolling_restart' | 'scale_up_down';

export interface ScenarioSpec {
  readonly id: string;
  readonly title: string;
  readonly fleet: FleetKind;
  /** Method mix, in the harness's notation. */
  readonly methods: string;
  readonly fault?: FaultSpec;
  /** Behaviour overrides for some backends for the whole run (s12). */
  readonly standing?: { readonly backends: readonly number[]; readonly patch: Partial<Behaviour> };
  readonly maxConnectionAgeMs?: number;
  /** s11: each client replaces its channel at this fraction of the window. */
  readonly replaceClientAtFraction?: number;
  readonly churn?: Churn;
}

const U10 = 'U10_get';

export const SCENARIOS: readonly ScenarioSpec[] = [
  { id: 's01', title: 'steady, uneven fleet', fleet: 'het', methods: U10 },
  { id: 's02', title: 'identical pods', fleet: 'homo', methods: U10 },
  {
    id: 's03',
    title: 'one pod 5x slower (brownout)',
    fleet: 'homo',
    methods: U10,
    fault: { backends: [0], patch: { latencyFactor: 5 }, heal: { latencyFactor: 1 } },
  },
  {
    id: 's04',
    title: 'crash-looping pod',
    fleet: 'homo',
    methods: U10,
    fault: { backends: [0], patch: { mode: 'unavailable' }, heal: { mode: 'normal' } },
  },
  {
    id: 's05',
    title: 'black-hole pod',
    fleet: 'homo',
    methods: U10,
    fault: { backends: [0], patch: { mode: 'blackhole' }, heal: { mode: 'normal' } },
  },
  {
    id: 's06',
    title: 'GC-pausing pod',
    fleet: 'homo',
    methods: U10,
    fault: { backends: [0], patch: { gcPeriodMs: 10_000, gcPauseMs: 500 }, heal: { gcPeriodMs: 0, gcPauseMs: 0 } },
  },
  { id: 's07', title: 'rolling restart', fleet: 'homo', methods: U10, churn: 'rolling_restart' },
  { id: 's08', title: 'scale up, then down', fleet: 'homo', methods: U10, churn: 'scale_up_down' },
  { id: 's09', title: 'max connection age 10 s', fleet: 'homo', methods: U10, maxConnectionAgeMs: 10_000 },
  {
    id: 's10',
    title: '4 pods 2x slower (node CPU contention)',
    fleet: 'homo',
    methods: U10,
    fault: { backends: [0, 1, 2, 3], patch: { latencyFactor: 2, slots: 4 }, heal: { latencyFactor: 1, slots: 8 } },
  },
  { id: 's11', title: 'client restart (cold LB, warm fleet)', fleet: 'het', methods: U10, replaceClientAtFraction: 30 / 90 },
  {
    id: 's12',
    title: 'cross-zone pods (+2 ms)',
    fleet: 'homo',
    methods: U10,
    standing: { backends: [0, 1, 2, 3, 4, 5], patch: { extraDelayMs: 2 } },
  },
  {
    id: 's13',
    title: 'uneven fleet, 5 methods',
    fleet: 'het',
    methods: 'U1_ping:40,U10_get:30,U50_list:20,U200_search:8,U1000_report:2',
  },
];

/** The default run: the scenarios where policies differ most, plus the tie check. */
export const QUICK_SCENARIOS = ['s01', 's02', 's03', 's10'];

export function scenarioById(id: string): ScenarioSpec {
  const found = SCENARIOS.find((s) => s.id === id || id.startsWith(`${s.id}_`));
  if (!found) {
    throw new RangeError(`unknown scenario "${id}"; expected one of ${SCENARIOS.map((s) => s.id).join(', ')}`);
  }
  return found;
}

export interface Timeline {
  readonly warmupS: number;
  readonly measureS: number;
  /** Fault window [fromS, toS) after t = 0. */
  readonly faultFromS: number;
  readonly faultToS: number;
}

export const REFERENCE_TIMELINE: Timeline = { warmupS: 20, measureS: 90, faultFromS: 20, faultToS: 60 };

/** The reference's proportions over a `measureS`-second window. */
export function timelineFor(measureS: number, warmupS = Math.min(20, Math.max(5, Math.round(measureS / 4.5)))): Timeline {
  return {
    warmupS,
    measureS,
    faultFromS: Math.round((measureS * 20) / 90),
    faultToS: Math.round((measureS * 60) / 90),
  };
}

export function phasesOf(timeline: Timeline) {
  return [
    { name: 'before', fromS: 0, toS: timeline.faultFromS },
    { name: 'fault', fromS: timeline.faultFromS, toS: timeline.faultToS },
    { name: 'after', fromS: timeline.faultToS, toS: timeline.measureS },
  ];
}

/** Whether the scenario's headline number is its fault phase (the reference's "worst-case p99"). */
export function hasFaultPhase(scenario: ScenarioSpec): boolean {
  return scenario.fault !== undefined || scenario.churn !== undefined;
}
