/**
 * The simulator's twin of a uniform load-test run: the same scenario,
 * timeline, slots, fleet size, clients, policy and peak_ewma config, run in
 * virtual time, beside the real run's numbers ÷ its time factor (the
 * reference's units). `npx tsx scripts/bench/twin.ts FILE...` reads load-test
 * result files (`--json`) and prints, per run and phase, p99 over all calls
 * and the error rate of both, and the share of calls that pods added during
 * the run served.
 *
 * Why. The load test's own comparison (simulator.ts) runs the reference
 * layout on the simulator's timeline, so a uniform run had no twin, and two
 * sessions' real s18 numbers (docs/tuning-log.md §63, §70) measured a fleet
 * the scenario does not describe (the newcomers' slowness was lost on its
 * way to them) without anything disagreeing with them. Run on the same
 * timeline the two tools agree within a run's noise (§72), so a gap is
 * worth reading: either the harness or the model strays.
 *
 * The twin is the model, not a replay: its backends draw their own service
 * times, and the simulator runs the work tree's src/, not the build the
 * load test measured.
 */
import { readFileSync } from 'fs';
import { parseCommandLine } from '../lib/command-line';
import { executeRun } from '../sim/execute';
import type { RunSpec } from '../sim/world';
import type { PolicyResult, ScenarioResult } from './loadtest';
import { formatMs, formatPercent } from './progress';
import { normalScale } from './scale';
import { scenarioById, simulatorKnows } from './scenarios';
import { mean } from './stats';

export const TWIN_PHASES = ['before', 'fault', 'after', 'window'] as const;
export type TwinPhase = (typeof TWIN_PHASES)[number];

/** The load test's policies the simulator has (wrr_orca needs servers' load reports, which it does not model). */
const SIMULATED = new Set(['round_robin', 'least_request', 'lr_od', 'peak_ewma', 'peak_ewma_od']);

export interface TwinPhaseRow {
  readonly phase: TwinPhase;
  /** The real run's p99 over all calls ÷ its time factor, ms, and its error rate (0–1). */
  readonly realP99AllMs: number;
  readonly realErrorRate: number;
  readonly simP99AllMs: number;
  readonly simErrorRate: number;
}

export interface Twin {
  readonly scenario: string;
  readonly policy: string;
  readonly spec: RunSpec;
  readonly phases: readonly TwinPhaseRow[];
  /** Mean share per second over the fault phase of the pods added during the run; null when none joined. */
  readonly joinedShare: { readonly real: number; readonly sim: number } | null;
}

/** Why `run` has no twin, or null if it has one: a uniform run of a scenario the simulator knows, without retries. */
function noTwinReason(run: ScenarioResult): string | null {
  if (run.layout !== 'uniform') {
    return "only a uniform run has a twin (the reference layout's comparison is simulator.ts)";
  }
  if (!simulatorKnows(run.scenario)) {
    return 'the simulator has no such scenario';
  }
  if (run.retryAttempts) {
    return `its clients retried (--retry-attempts ${run.retryAttempts}), which the simulator does not`;
  }
  return null;
}

export function hasTwin(run: ScenarioResult): boolean {
  return noTwinReason(run) === null;
}

/**
 * The simulator's run spec for one policy of a uniform load-test run. The
 * timeline is the one the scenario ran (the result keeps the reported
 * phases: s08's fault phase ends 5 s early there).
 */
export function twinSpec(run: ScenarioResult, policy: PolicyResult, seed: number): RunSpec {
  const reason = noTwinReason(run);
  if (reason !== null) {
    throw new Error(`${run.scenario}: ${reason}`);
  }
  if (!SIMULATED.has(policy.policy)) {
    throw new Error(`${run.scenario}: the simulator has no ${policy.policy}`);
  }
  const scenario = scenarioById(run.scenario);
  const config = policy.policy.startsWith('peak_ewma') && run.peakEwmaConfig !== undefined ? JSON.stringify(run.peakEwmaConfig) : '';
  return {
    scenario: scenario.name,
    groups: [{ policy: `${policy.policy}${config}`, clients: policy.clients }],
    seed,
    timeline: { ...run.timeline, faultEndS: run.timeline.faultEndS + (scenario.faultPhaseEndsEarlyS ?? 0) },
    slots: normalScale(run.scale).slots,
    ...(run.backendCount === scenario.backends ? {} : { backends: run.backendCount }),
  };
}

/** The mean of `perSecond` over [from, to), NaN entries (seconds without a call) skipped. */
function meanOver(perSecond: readonly number[], from: number, to: number): number {
  return mean(perSecond.slice(from, to).filter(Number.isFinite));
}

/** Runs the twin of every simulated policy of `run` (seed: the load test's). */
export function twinsOf(run: ScenarioResult, seed: number): Twin[] {
  const timeFactor = run.scale.timeFactor;
  return run.policies
    .filter((policy) => SIMULATED.has(policy.policy))
    .map((policy) => {
      const spec = twinSpec(run, policy, seed);
      const sim = executeRun(spec).groups[0];
      const phases = TWIN_PHASES.flatMap((phase): TwinPhaseRow[] => {
        const real = phase === 'window' ? policy.window : policy.phases[phase];
        if (real === undefined) {
          return [];
        }
        const simPhase = sim.phases[phase];
        return [
          { phase, realP99AllMs: real.allLatency.p99Ms / timeFactor, realErrorRate: real.errorRate, simP99AllMs: simPhase.p99All, simErrorRate: simPhase.errorRate },
        ];
      });
      const { faultStartS, faultEndS } = run.timeline;
      const joinedSim = sim.shareBySecond.map((row) => row.slice(run.backendCount).reduce((sum, x) => sum + x, 0));
      const joinedShare =
        policy.joinedShare === undefined
          ? null
          : { real: meanOver(policy.joinedShare, faultStartS, faultEndS), sim: meanOver(joinedSim, faultStartS, faultEndS) };
      return { scenario: run.scenario, policy: spec.groups[0].policy, spec, phases, joinedShare };
    });
}

export function formatTwin(twin: Twin): string {
  const lines = [`${twin.scenario} ${twin.policy}, ${twin.spec.groups[0].clients} clients, ${twin.spec.slots} slots: real ÷ time factor | simulator, p99 over all calls (errors)`];
  for (const row of twin.phases) {
    lines.push(
      `  ${row.phase.padEnd(6)} ${formatMs(row.realP99AllMs)} (${formatPercent(row.realErrorRate)}) | ${formatMs(row.simP99AllMs)} (${formatPercent(row.simErrorRate)})`,
    );
  }
  if (twin.joinedShare !== null) {
    lines.push(`  pods that joined, share of the fault phase's calls: ${formatPercent(twin.joinedShare.real)} | ${formatPercent(twin.joinedShare.sim)}`);
  }
  return lines.join('\n');
}

/** Prints the twin of every run of `runs` that has one (the load test after its runs, and this script for saved ones). */
export function printTwins(runs: readonly ScenarioResult[], seed: number, log: (line: string) => void): void {
  for (const run of runs.filter(hasTwin)) {
    for (const twin of twinsOf(run, seed)) {
      log(formatTwin(twin));
    }
  }
}

if (require.main === module) {
  const usage = 'usage: npm run bench:twin -- RESULT.json...   (a load test\'s --json file: each uniform run beside the simulator on its timeline)';
  const files = parseCommandLine('npm run bench:twin --', { allowPositionals: true, options: {} }, usage).positionals;
  if (files.length === 0) {
    console.error(usage);
    process.exit(2);
  }
  for (const file of files) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { options: { seed: number }; load: ScenarioResult[] };
    printTwins(saved.load, saved.options.seed, (line) => console.log(line));
  }
}
