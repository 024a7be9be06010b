/**
 * The regime grid (issue 15): the same four scenarios across backend
 * concurrency and client count — slots {1, 2, 4, 8} × clients {8, 64} ×
 * {s01, s02, s03, s10}, uniform layout — because a rule tuned where every
 * backend serves 8 calls at once and each of 8 clients sends ~1,200 calls/s
 * can fail a fleet of single-threaded servers or a service with 64 callers.
 * The load stays 70 % of the fleet's capacity, so fewer slots mean fewer
 * calls and 64 clients send 1/64 of them each.
 *
 * Targets, per cell, on p99 over all calls (failures at the deadline):
 * peak_ewma's s02 ≤ 1.02 × round_robin's; its s01, s03 and s10 ≤ 1.3 ×
 * round_robin's s02 in the same cell, and below round_robin's,
 * least_request's and lr_od's in the same scenario.
 */
import { ClientStall } from './client-stall';
import { PolicyResult } from './results';
import { scenarioByName } from './scenarios';
import { PlannedRun } from './suite';
import { Timeline } from './timeline';
import { ArrivalMode } from './arrivals';

export const REGIME_SLOTS = [1, 2, 4, 8] as const;
export const REGIME_CLIENTS = [8, 64] as const;
export const REGIME_SCENARIOS = ['s01-steady-uneven', 's02-steady-identical', 's03-brownout', 's10-node-cpu-contention'] as const;
export const REGIME_POLICIES = ['round_robin', 'least_request', 'lr_od', 'peak_ewma', 'oracle'] as const;

/**
 * Small fleets: the load test's own layouts (2 slots × 3 backends, 1 slot ×
 * 6, 8 clients; docs/benchmarks.md) with the uneven fleet, the identical one
 * and the brownout. Every grid cell has 20 backends, and a rule judged there
 * alone can break a fleet of three: the defaults of 2026-12-05 morning did
 * (a brownout of three tipped over; docs/tuning-log.md §40). s10 is left out: it
 * slows pods 0–3, most of a fleet of six.
 */
export const SMALL_FLEETS = [
  { backends: 3, slots: 2 },
  { backends: 6, slots: 1 },
] as const;
export const SMALL_FLEET_CLIENTS = 8;
export const SMALL_FLEET_SCENARIOS = ['s01-steady-uneven', 's02-steady-identical', 's03-brownout'] as const;

/** cell ("<slots>x<clients>") → scenario → policy label → result. */
export type RegimeJson = Record<string, Record<string, Record<string, PolicyResult>>>;
/**
 * What the targets read: a regime grid's p99All per cell, scenario and
 * policy (one seed's, or a mean's), and its error rate where known (a tie
 * at the deadline goes to the fewer failures) and the p99 of its OK calls
 * (what a p99 at the deadline hides).
 */
export type RegimeP99s = Record<string, Record<string, Record<string, Pick<PolicyResult, 'p99All'> & Partial<Pick<PolicyResult, 'errorRate' | 'p99'>>>>>;

export interface RegimeOptions {
  seed: number;
  timeline: Timeline;
  /** Replaces peak_ewma (a tuning variant), as the suite's --policy. */
  policyUnderTest?: string;
  slots?: readonly number[];
  clients?: readonly number[];
  scenarios?: readonly string[];
  policies?: readonly string[];
  /** The clients' own pauses in every run (client-stall.ts); default none. */
  clientStall?: ClientStall;
  /** How clients space their calls (RunSpec.arrivals); default fixed, the reference's. */
  arrivals?: ArrivalMode;
  /** Closed loop only: callers per client (RunSpec.workers); default derived per cell (closed-loop.ts). */
  workers?: number;
  /** Backends per fleet (RunSpec.backends); default the scenario's (20), and the cell's key says so when set. */
  backends?: number;
}

/** A cell's key: "<slots>x<clients>", and "<backends>b-<slots>x<clients>" in a fleet of other than the scenario's size. */
export const regimeCell = (slots: number, clients: number, backends?: number): string =>
  `${backends === undefined ? '' : `${backends}b-`}${slots}x${clients}`;

/** The small fleets' runs (SMALL_FLEETS), keyed like "3b-2x8". */
export function planSmallFleets(options: Omit<RegimeOptions, 'slots' | 'clients' | 'scenarios' | 'backends'>): PlannedRun[] {
  return SMALL_FLEETS.flatMap(({ backends, slots }) =>
    planRegimes({ ...options, slots: [slots], clients: [SMALL_FLEET_CLIENTS], scenarios: SMALL_FLEET_SCENARIOS, backends }),
  );
}

export function planRegimes(options: RegimeOptions): PlannedRun[] {
  const runs: PlannedRun[] = [];
  for (const slots of options.slots ?? REGIME_SLOTS) {
    for (const clients of options.clients ?? REGIME_CLIENTS) {
      for (const scenario of (options.scenarios ?? REGIME_SCENARIOS).map((name) => scenarioByName(name).name)) {
        for (const policy of options.policies ?? REGIME_POLICIES) {
          const label = policy === 'peak_ewma' && options.policyUnderTest !== undefined ? options.policyUnderTest : policy;
          runs.push({
            kind: 'regime',
            key: regimeCell(slots, clients, options.backends),
            spec: {
              scenario,
              groups: [{ policy: label, clients }],
              seed: options.seed,
              timeline: options.timeline,
              slots,
              ...(options.backends === undefined ? {} : { backends: options.backends }),
              ...(options.clientStall === undefined ? {} : { clientStall: options.clientStall }),
              // Fixed is the default: left out, so the reference grid's specs stay as they were.
              ...(options.arrivals === undefined || options.arrivals === 'fixed' ? {} : { arrivals: options.arrivals }),
              ...(options.workers === undefined ? {} : { workers: options.workers }),
            },
          });
        }
      }
    }
  }
  return runs;
}

export interface RegimeCheck {
  cell: string;
  scenario: string;
  target: string;
  /** The ratio the target bounds. */
  value: number;
  bound: number;
  met: boolean;
  /** For 'below every baseline': the baselines the cell had and was judged against (a grid may run fewer). */
  rivals?: string[];
}

const S02 = 's02-steady-identical';
/**
 * The scenarios judged against the healthy fleet: the grid's three, and s15
 * (half the pods serve one call at a time) and s16 (the same pods shedding
 * load), which the grid runs only when asked (`--regime-scenarios`): not
 * among issue 15's targets, the same yardstick.
 */
const SICK = ['s01-steady-uneven', 's03-brownout', 's10-node-cpu-contention', 's15-mixed-concurrency', 's16-mixed-shedding'];
const BASELINES = ['round_robin', 'least_request', 'lr_od'];

/**
 * Every target of every cell, for the policy labelled `underTest` (default
 * peak_ewma). Cells or policies missing from `json` are skipped.
 */
export function regimeChecks(json: RegimeP99s, underTest = 'peak_ewma'): RegimeCheck[] {
  const checks: RegimeCheck[] = [];
  for (const [cell, byScenario] of Object.entries(json)) {
    const healthyRr = byScenario[S02]?.round_robin?.p99All;
    const healthyPeak = byScenario[S02]?.[underTest]?.p99All;
    if (healthyRr !== undefined && healthyPeak !== undefined) {
      checks.push({ cell, scenario: S02, target: '≤ 1.02 × round_robin', value: healthyPeak / healthyRr, bound: 1.02, met: healthyPeak <= 1.02 * healthyRr });
    }
    for (const scenario of SICK) {
      const results = byScenario[scenario];
      const peak = results?.[underTest]?.p99All;
      if (peak === undefined) {
        continue;
      }
      if (healthyRr !== undefined) {
        checks.push({ cell, scenario, target: '≤ 1.3 × round_robin s02', value: peak / healthyRr, bound: 1.3, met: peak <= 1.3 * healthyRr });
      }
      const present = BASELINES.filter((policy) => results[policy] !== undefined);
      if (present.length > 0) {
        const rivals = present.map((policy) => results[policy]);
        const best = Math.min(...rivals.map((rival) => rival.p99All));
        const ours = results[underTest];
        checks.push({ cell, scenario, target: 'below every baseline', value: peak / best, bound: 1, met: rivals.every((rival) => leads(ours, rival)), rivals: present });
      }
    }
  }
  return checks;
}

/**
 * Whether `a` ranks ahead of `b`: a lower p99 over all calls, or the same
 * one (most often both at the deadline: 1 % or more failed) and fewer
 * failures, as the load test's report judges (docs/tuning-log.md §32).
 */
export function leads(a: RegimeP99s[string][string][string], b: RegimeP99s[string][string][string]): boolean {
  return a.p99All < b.p99All || (a.p99All === b.p99All && a.errorRate !== undefined && b.errorRate !== undefined && a.errorRate < b.errorRate);
}

const fmt = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(1));

/**
 * One table: a row per cell and scenario, p99All per policy, and the
 * cell's targets (✓/✗ with the ratio).
 */
export function regimeTable(json: RegimeJson, underTest = 'peak_ewma'): string {
  const cells = Object.keys(json);
  if (cells.length === 0) {
    return '';
  }
  const policies = [...new Set(cells.flatMap((cell) => Object.values(json[cell]).flatMap((byPolicy) => Object.keys(byPolicy))))];
  const checks = regimeChecks(json, underTest);
  const rows = [['slots×clients', 'scenario', ...policies, 'targets']];
  for (const cell of cells) {
    for (const [scenario, byPolicy] of Object.entries(json[cell])) {
      const marks = checks
        .filter((check) => check.cell === cell && check.scenario === scenario)
        .map((check) => `${check.met ? '✓' : '✗'}${check.value.toFixed(2)}`)
        .join(' ');
      rows.push([cell, scenario.split('-')[0], ...policies.map((policy) => fmt(byPolicy[policy]?.p99All)), marks]);
    }
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const text = rows.map((row) => row.map((cell, c) => (c < 2 || c === row.length - 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
  const met = checks.filter((check) => check.met).length;
  return (
    `\n== regimes: slots × clients, uniform layout, p99 over all calls (ms) ==\n` +
    `(targets: s02 ${underTest} ÷ round_robin ≤ 1.02; s01/s03/s10 (and s15, s16) ${underTest} ÷ round_robin's s02 ≤ 1.3, then ÷ the best of round_robin/least_request/lr_od < 1)\n` +
    `${text}\n${met} of ${checks.length} targets met`
  );
}
