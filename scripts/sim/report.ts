/** The stdout tables and the JSON document. */
import { PolicyResult, RunResult } from './results';
import { RegimeJson } from './regimes';
import { PlannedRun } from './suite';

export interface SuiteJson {
  meta: Record<string, unknown>;
  /** Uniform layout: every client on one policy. */
  scenarios: Record<string, Record<string, PolicyResult>>;
  reference: { scenarios: Record<string, Record<string, PolicyResult>> };
  grid: Record<string, Record<string, PolicyResult>>;
  scale: Record<string, PolicyResult>;
  /** The regime grid (regimes.ts), only when it ran. */
  regimes?: RegimeJson;
}

export function assemble(runs: readonly PlannedRun[], results: readonly RunResult[], meta: Record<string, unknown>): SuiteJson {
  const json: SuiteJson = { meta, scenarios: {}, reference: { scenarios: {} }, grid: {}, scale: {} };
  runs.forEach((run, i) => {
    if (run.kind === 'regime') {
      const cell = ((json.regimes ??= {})[run.key] ??= {});
      const target = (cell[run.spec.scenario] ??= {});
      for (const group of results[i].groups) {
        target[group.policy] = group;
      }
      return;
    }
    const target =
      run.kind === 'reference'
        ? (json.reference.scenarios[run.key] ??= {})
        : run.kind === 'uniform'
          ? (json.scenarios[run.key] ??= {})
          : run.kind === 'grid'
            ? (json.grid[run.key] ??= {})
            : json.scale;
    for (const group of results[i].groups) {
      target[group.policy] = group;
    }
  });
  return json;
}

const fmt = (x: number | null | undefined, digits = 1): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits);
const pct = (x: number): string => (x === 0 ? '0' : `${(x * 100).toFixed(x < 0.001 ? 3 : 2)}%`);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  return rows.map((row) => row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}

export function scenarioTable(title: string, byScenario: Record<string, Record<string, PolicyResult>>): string {
  const rows = [['scenario', 'policy', 'p50', 'p99', 'p99.9', 'p99All', 'errors', 'detect', 'recover', 'busiest', 'vs s02']];
  const s02 = byScenario['s02-steady-identical'];
  for (const [scenario, policies] of Object.entries(byScenario)) {
    for (const [policy, r] of Object.entries(policies)) {
      const base = s02?.[policy]?.p99;
      rows.push([
        scenario,
        policy,
        fmt(r.p50),
        fmt(r.p99),
        fmt(r.p999),
        fmt(r.p99All),
        pct(r.errorRate),
        r.detectionSeconds === null ? '-' : `${r.detectionSeconds}s`,
        r.recoverySeconds === null ? (r.detectionSeconds === null ? '-' : 'never') : `${r.recoverySeconds}s`,
        fmt(r.busiestHealthy.p95, 2),
        base ? fmt(r.p99 / base, 2) : '-',
      ]);
    }
  }
  return `\n== ${title} ==\n(ms; p50/p99/p99.9 over OK calls, mean of clients; p99All counts failures at the deadline; ` +
    `fault window for fault scenarios; busiest = busiest healthy backend / fair, p95 over seconds; vs s02 = p99 / same policy's s02 p99)\n` +
    table(rows);
}

/**
 * Per method group, for the scenarios that mix methods: p50/p99/p99.9 over
 * OK calls and p99All (failures at that method's deadline), all of a
 * policy's clients pooled; "failed" = failed / ended (deadline misses when
 * the scenario has no fault).
 */
export function methodTable(title: string, byScenario: Record<string, Record<string, PolicyResult>>): string {
  const rows = [['scenario / method', 'policy', 'p50', 'p99', 'p99.9', 'p99All', 'failed', 'calls']];
  for (const [scenario, policies] of Object.entries(byScenario)) {
    const methods = Object.values(policies).find((r) => r.methods !== undefined)?.methods;
    if (methods === undefined) {
      continue;
    }
    for (const method of Object.keys(methods)) {
      for (const [policy, r] of Object.entries(policies)) {
        const m = r.methods?.[method];
        if (m !== undefined) {
          rows.push([`${scenario} ${method}`, policy, fmt(m.p50), fmt(m.p99), fmt(m.p999), fmt(m.p99All), pct(m.errorRate), String(m.calls)]);
        }
      }
    }
  }
  if (rows.length === 1) {
    return '';
  }
  return `\n== ${title}: per method (ms; all of a policy's clients pooled; p99All and failed count failures at the method's deadline) ==\n${table(rows)}`;
}

/** The scenarios the fresh-backend table reports (and the scenario tables leave out). */
export const HERD_SCENARIOS: readonly string[] = ['herd', 'herd-fast'];

export function freshTable(byScenario: Record<string, Record<string, PolicyResult>>): string {
  return HERD_SCENARIOS.map((name) => freshTableOf(name, byScenario[name])).join('');
}

function freshTableOf(name: string, herd: Record<string, PolicyResult> | undefined): string {
  if (!herd) {
    return '';
  }
  const rows = [['policy', 'event', 'first second / fair', 'peak 100 ms / fair', 'busiest healthy p95', 'p99']];
  for (const [policy, r] of Object.entries(herd)) {
    (r.fresh ?? []).forEach((event, i) => {
      rows.push([policy, i === 0 ? `joins @${event.atS}s` : `restart @${event.atS}s`, fmt(event.firstSecond, 2), fmt(event.peakBin, 2), fmt(r.busiestHealthy.p95, 2), fmt(r.p99)]);
    });
  }
  const clients = Object.values(herd)[0]?.clients;
  return `\n== ${name}: ${clients === undefined ? '' : `${clients} clients, `}fresh backend's share ==\n${table(rows)}`;
}

export function gridTable(grid: Record<string, Record<string, PolicyResult>>): string {
  const cells = Object.keys(grid);
  if (cells.length === 0) {
    return '';
  }
  const policies = Object.keys(grid[cells[0]]);
  const rows = [['backends x load%', '', ...policies.map((p) => `${p} p99`)]];
  for (const cell of cells) {
    rows.push([cell, '', ...policies.map((p) => fmt(grid[cell][p]?.p99))]);
  }
  return `\n== sensitivity grid (s01 fleet, 1 client per policy, 15 s + 45 s) ==\n${table(rows)}`;
}

export function scaleTable(scale: Record<string, PolicyResult>): string {
  if (Object.keys(scale).length === 0) {
    return '';
  }
  const rows = [['policy', '', 'p50', 'p99', 'p99.9', 'p99All', 'errors', 'busiest']];
  for (const [policy, r] of Object.entries(scale)) {
    rows.push([policy, '', fmt(r.p50), fmt(r.p99), fmt(r.p999), fmt(r.p99All), pct(r.errorRate), fmt(r.busiestHealthy.p95, 2)]);
  }
  return `\n== scale: 500 backends (het), 64 clients ==\n${table(rows)}`;
}
