/**
 * The simulator's numbers beside the real runs: a table, and whether the
 * policies come out in the same order. The simulator's JSON is read by
 * `readSimulatorJson`, which keeps only what the comparison needs.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AggregateRow } from './aggregate';
import { REPO_ROOT } from './package-under-test';
import { PolicyId, POLICY_LABELS } from './policies';
import { formatMs } from './progress';
import { Table } from './tables';
import { isTieOrBetter, Verdict } from './verdicts';

export interface SimulatorRow {
  /** Short scenario id, e.g. "s03". */
  readonly scenario: string;
  readonly policy: PolicyId;
  /** Headline p99 of OK calls (fault phase for fault scenarios), ms. */
  readonly p99Ms: number;
  readonly errorRate: number;
}

export interface SimulatorSummary {
  /** How the numbers were produced (command, scale). */
  readonly source: string;
  readonly rows: readonly SimulatorRow[];
}

const COMPARED: readonly PolicyId[] = ['peak_ewma', 'least_request', 'lr_od', 'round_robin'];

/** The parts of `npm run simulate -- --json` this comparison reads (scripts/sim/report.ts SuiteJson). */
interface SimulatorJson {
  readonly meta: { readonly command?: string; readonly timeline?: { measureS: number } };
  readonly reference: { readonly scenarios: Record<string, Record<string, { p99: number; errorRate: number }>> };
}

export function readSimulatorJson(json: SimulatorJson, source: string): SimulatorSummary {
  const rows: SimulatorRow[] = [];
  for (const [name, byPolicy] of Object.entries(json.reference.scenarios)) {
    for (const [policy, result] of Object.entries(byPolicy)) {
      if ((COMPARED as readonly string[]).includes(policy)) {
        rows.push({ scenario: name.split('-')[0], policy: policy as PolicyId, p99Ms: result.p99, errorRate: result.errorRate });
      }
    }
  }
  return { source, rows };
}

/**
 * Runs the simulator's reference layout for `scenarios` (its quick timeline
 * when the load test ran 45 s windows, else the reference's 90 s) and reads
 * its JSON. The simulator runs the reference's scale (8 slots, 10 ms), and
 * the work tree's src/ (through tsx), not the build the load test measured.
 */
export function runSimulator(scenarios: readonly string[], measureS: number, seed: number): SimulatorSummary {
  const file = path.join(os.tmpdir(), `bench-sim-${process.pid}.json`);
  const args = ['run', '--silent', 'simulate', '--', '--layout', 'reference', '--seed', String(seed), '--json', file];
  for (const scenario of scenarios) {
    args.push('--scenario', scenario);
  }
  if (measureS <= 45) {
    args.push('--quick');
  }
  const result = spawnSync('npm', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  }
  try {
    return readSimulatorJson(JSON.parse(fs.readFileSync(file, 'utf8')) as SimulatorJson, `npm run ${args.slice(2).join(' ').replace(file, 'FILE')}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export function simulatorTable(rows: readonly AggregateRow[], sim: SimulatorSummary): Table {
  const scenarios = Array.from(new Set(rows.filter((r) => r.layout === 'reference').map((r) => r.scenario)));
  return {
    headers: ['scenario', ...COMPARED.map((p) => `${POLICY_LABELS[p]} real / sim`)],
    rows: scenarios.map((s) => [
      s,
      ...COMPARED.map((p) => {
        const real = rows.find((r) => r.scenario === s && r.layout === 'reference' && r.policy === p);
        const simRow = sim.rows.find((r) => r.scenario === s && r.policy === p);
        return `${real ? formatMs(real.p99Ms) : '–'} / ${simRow ? formatMs(simRow.p99Ms) : '–'}`;
      }),
    ]),
  };
}

/**
 * Pairs the two disagree on: one says A is clearly lower (beyond the tie
 * band), the other says B is clearly lower.
 */
export function orderingDisagreements(
  real: ReadonlyMap<PolicyId, number>,
  sim: ReadonlyMap<PolicyId, number>,
): [PolicyId, PolicyId][] {
  const policies = COMPARED.filter((p) => real.has(p) && sim.has(p));
  const clearlyLower = (a: number, b: number): boolean => !isTieOrBetter(b, a);
  const out: [PolicyId, PolicyId][] = [];
  for (let i = 0; i < policies.length; i++) {
    for (let j = i + 1; j < policies.length; j++) {
      const [a, b] = [policies[i], policies[j]];
      const realSays = clearlyLower(real.get(a)!, real.get(b)!) ? 1 : clearlyLower(real.get(b)!, real.get(a)!) ? -1 : 0;
      const simSays = clearlyLower(sim.get(a)!, sim.get(b)!) ? 1 : clearlyLower(sim.get(b)!, sim.get(a)!) ? -1 : 0;
      if (realSays !== 0 && simSays !== 0 && realSays !== simSays) {
        out.push([a, b]);
      }
    }
  }
  return out;
}

export function simulatorOrderingVerdicts(rows: readonly AggregateRow[], sim: SimulatorSummary): Verdict[] {
  const scenarios = Array.from(new Set(rows.filter((r) => r.layout === 'reference').map((r) => r.scenario)));
  return scenarios.map((s) => {
    const real = new Map(
      rows.filter((r) => r.scenario === s && r.layout === 'reference').map((r) => [r.policy as PolicyId, r.p99Ms]),
    );
    const simMap = new Map(sim.rows.filter((r) => r.scenario === s).map((r) => [r.policy, r.p99Ms]));
    if (simMap.size === 0) {
      return { target: `${s}: real ordering agrees with the simulator`, met: null, detail: 'no simulator numbers' };
    }
    const disagreements = orderingDisagreements(real, simMap);
    return {
      target: `${s}: real ordering agrees with the simulator`,
      met: disagreements.length === 0,
      detail:
        disagreements.length === 0
          ? 'no pair ordered the other way beyond the tie band'
          : disagreements.map(([a, b]) => `${POLICY_LABELS[a]} vs ${POLICY_LABELS[b]}`).join('; ') + ' ordered differently',
    };
  });
}
