/**
 * The report's account of its own runs: what regenerating it costs, which sessions it merges,
 * how the harness runs (backends, scenarios, methods, clients, policies, scale).
 */
import * as fs from 'fs';
import * as path from 'path';
import { regimeOfRun } from './aggregate';
import { BenchOptions, parseArgs } from './args';
import { REPO_ROOT } from './package-under-test';
import { PolicyId, POLICY_IDS } from './policies';
import { planLoadRuns, planWallTimeS, RUN_OVERHEAD_S } from './plan';
import { LOW_CONCURRENCY_SCALES, LOW_CONCURRENCY_TIME_FACTOR, regimeShort, slotsText } from './scale';
import { cellKey, groupKey, MergedSession, runKind, splitCellKey } from './merge';
import { labelsByCount, repeatsWord } from './row-cells';
import { median } from './stats';
import { scenarioById } from './scenarios';
import { fleetRoles } from '../model';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import type { BenchResults } from './report';

/** Result files from before issue 18's harness, re-judged: say what they were measured with. */
export function legacyText(results: BenchResults): string[] {
  if (!results.load.some((run) => !regimeOfRun(run).timeScaled)) return [];
  return [
    "**These runs predate today's harness** (issue 18): one client per policy, one run per scenario and policy in a fixed " +
      'order, ORCA on only in the runs with a wrr client, the timeline and the policies\' time constants not scaled with the ' +
      'service time, phases binned by intended start, loop delays recorded with the monitor\'s 10 ms resolution in them (shown here less it), and a queued ' +
      'call could start before it arrived after an event-loop stall. The tables and verdicts are recomputed from the saved ' +
      'results by today\'s rules (the reference\'s winner rule, regimes kept apart); there are no intervals (one run each) and ' +
      `no p99.9 (samples per client were not recorded). \`npm run bench:report\` measures afresh: ${benchReportCost()}.`,
    '',
  ];
}

/** The options `npm run <script>` runs the bench with (its arguments read from package.json). */
function optionsOf(script: string): BenchOptions {
  const scripts = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const argv = scripts[script].split(/\s+/);
  return parseArgs(argv.slice(argv.indexOf('scripts/bench/cli.ts') + 1));
}

/** What a plan measures, in a phrase. */
function planSummary(options: BenchOptions): string {
  const parts: string[] = [];
  const all = (policies: readonly PolicyId[]): string => (policies.length === POLICY_IDS.length ? 'every policy' : policies.join(', '));
  if (options.layouts.includes('reference')) parts.push(`${options.scenarios.join(', ')} in the reference layout (every policy side by side)`);
  if (options.layouts.includes('uniform')) parts.push(`${options.uniformScenarios.join(', ')} in the uniform layout (${all(options.uniformPolicies)})`);
  if (options.lowConcurrency) parts.push(`${options.lowScenarios.join(', ')} at 1 and 2 slots (${all(options.uniformPolicies)})`);
  return `${parts.join('; ')}; ${options.durationS} s windows, ${options.repeats} repeats`;
}

/** A merged-by-kind session's runs still in the results: cells merged by cell since are not its any more. */
function runsStillOf(results: BenchResults, session: MergedSession): BenchResults['load'] {
  const byCell = new Set((results.merged ?? []).flatMap((s) => Object.keys(s.cells ?? {})));
  return results.load.filter((run) => session.kinds.includes(runKind(run)) && !byCell.has(cellKey(run)));
}

/** The 1-minute load average at the start of a merged-by-kind session's runs: what the machine was doing while they ran. */
function sessionLoadText(results: BenchResults, session: MergedSession): string {
  const loads = runsStillOf(results, session).flatMap((run) => (run.loadAverage ? [run.loadAverage[0]] : []));
  if (loads.length === 0) return '';
  return ` (at its runs' starts: median ${median(loads).toFixed(1)}, range ${Math.min(...loads)}–${Math.max(...loads)})`;
}

/** Which runs a later session measured in place of this file's (merge.ts), with its date and load. */
export function mergedText(results: BenchResults): string {
  const words: Record<MergedSession['kinds'][number], string> = {
    reference: 'reference-layout',
    uniform: 'uniform-layout',
    'low-concurrency': 'low-concurrency',
  };
  const merged = results.merged ?? [];
  // A session whose every run a cell merge has since replaced has nothing left in the report to describe.
  const byKind = merged.filter((s) => s.cells === undefined && runsStillOf(results, s).length > 0).map((s) => {
    const still = runsStillOf(results, s).length;
    const runs = still === s.runs ? `${s.runs}, ${s.repeats} repeats` : `${still} of its ${s.runs}, ${s.repeats} repeats; the others pooled by cell below`;
    return (
      ` The ${s.kinds.map((k) => words[k]).join(' and ')} runs (${runs}) are a later session's, ${measuredText(s)}` +
      `${sessionLoadText(results, s)}, merged in with \`--merge-load\` in place of this file's own.`
    );
  });
  const names = { pick: 'pick path', cpu: 'CPU per RPC', update: 'update time' };
  const overhead = (results.overheadMerged ?? []).map(
    (s) =>
      ` The overhead benchmarks (${s.suites.map((suite) => names[suite]).join(', ')}) are a later session's, ${measuredText(s)}, ` +
      `merged in with \`--merge-overhead\` in place of this file's own.`,
  );
  return byKind.join('') + cellMergeText(results, merged.filter((s) => s.cells !== undefined)) + overhead.join('');
}

/** "2026-12-04 14:21 UTC": when a merged session started. */
function startedText(session: { readonly startedAt: string }): string {
  return `${session.startedAt.slice(0, 16).replace('T', ' ')} UTC`;
}

/** The package a merged session measured. */
function sourceText(session: { readonly packageSource?: string }): string {
  return session.packageSource ?? 'an unrecorded source';
}

/** "measured 2026-12-04 14:21 UTC with the package built from HEAD …, load average at start 1 / 1 / 1". */
function measuredText(session: { readonly startedAt: string; readonly packageSource?: string; readonly loadAverage: readonly number[] }): string {
  return `measured ${startedText(session)} with the package built from ${sourceText(session)}, load average at start ${session.loadAverage.join(' / ')}`;
}

/** "s02 uniform (1 slot × 20 ms, 6 backends)": a pooled group (merge.ts `groupKey`) as its runs describe it. */
function groupText(results: BenchResults, group: string): string {
  const run = results.load.find((r) => groupKey(r) === group);
  if (run === undefined) return group;
  const regime = regimeOfRun(run);
  return `${run.scenario} ${run.layout} (${regimeShort(regime)}, ${regime.backends} backends)`;
}

/** "2 repeats of round_robin, peak_ewma; 3 of least_request": a session's cells of one group by repeat count. */
function cellRepeatsText(cells: readonly (readonly [policy: string, repeats: number])[]): string {
  const order = (p: string): number => POLICY_IDS.indexOf(p as PolicyId);
  const sorted = [...cells].sort((a, b) => order(a[0]) - order(b[0])).map(([label, repeats]) => ({ label, repeats }));
  return labelsByCount(sorted)
    .map(([n, policies], i) => `${i === 0 ? repeatsWord(n) : n} of ${policies.join(', ')}`)
    .join('; ');
}

/**
 * The cells pooled from several sessions (merge.ts `mergeLoadCells`), group by group: each session's
 * date, build, the repeats it gave, its stall rule and the repeats dropped for a stall.
 */
function cellMergeText(results: BenchResults, sessions: readonly MergedSession[]): string {
  const groups = new Map<string, { session: MergedSession; cells: [string, number][] }[]>();
  for (const session of sessions) {
    const mine = new Map<string, [string, number][]>();
    for (const [cell, repeats] of Object.entries(session.cells!)) {
      const { group, policies } = splitCellKey(cell);
      mine.set(group, [...(mine.get(group) ?? []), [policies, repeats]]);
    }
    for (const [group, cells] of mine) groups.set(group, [...(groups.get(group) ?? []), { session, cells }]);
  }
  return Array.from(groups, ([group, given]) => {
    const each = given.map(({ session: s, cells }) => {
      const rule = s.maxStallMs === undefined ? 'no stall rule' : `stall rule ${s.maxStallMs} ms`;
      const stalls = (s.dropped ?? []).filter((d) => d.group === group).map((d) => `#${d.repeat + 1} ${d.stallMs.toFixed(0)} ms`);
      const dropped = stalls.length > 0 ? `; dropped for a stall: ${stalls.join(', ')}` : '';
      return `${startedText(s)}, ${sourceText(s)}: ${cellRepeatsText(cells)} (${rule}${dropped})`;
    });
    const bounds = Array.from(new Set(given.map((g) => g.session.dropStalledMs).filter((ms) => ms !== undefined)));
    const drop =
      bounds.length > 0
        ? ` A repeat in which any run's event loop stalled longer than ${bounds.join(' / ')} ms was dropped with every run of it (\`--drop-stalled\`), in each session alike.`
        : '';
    return (
      ` The runs of ${groupText(results, group)} are pooled from ${given.length} session${given.length === 1 ? '' : 's'} with \`--merge-cells\`, ` +
      `numbered apart so that each session's runs pair only with their own: ${each.join('; ')}.${drop}`
    );
  }).join('');
}

/** What `npm run <script>` costs in load-test wall time. */
function benchReportCost(script = 'bench:report'): string {
  const options = optionsOf(script);
  const plan = planLoadRuns(options);
  return `${plan.length} load-test runs, about ${(planWallTimeS(plan, options) / 3600).toFixed(1)} h on this machine`;
}

/** What regenerating the report costs on this machine, from the options it was run with (absent in older files). */
export function costText(results: BenchResults): string {
  const options = results.options;
  if (options.clientsPerPolicy === undefined || results.load.length === 0) return '';
  // A merged file holds runs its own options did not plan: count the runs it holds.
  const runs = results.merged && results.merged.length > 0 ? results.load : planLoadRuns(options);
  const hours = planWallTimeS(runs, options) / 3600;
  const merged = results.merged ?? [];
  const sessions = merged.length > 0 ? `, in ${merged.length + 1} sessions` : '';
  // Each session ran its own repeat count: say each, not the first session's for all.
  const byKind = merged.filter((m) => m.cells === undefined);
  const byCell = byKind.length < merged.length ? '; the cells pooled by cell as stated below' : '';
  const repeatText =
    merged.length > 0
      ? `${repeatsWord(options.repeats)} of each of this file's own runs` +
        (byKind.length > 0 ? `, ${byKind.map((m) => repeatsWord(m.repeats)).join(' and ')} of each merged one` : '') +
        `, interleaved in random order within a session${byCell}`
      : `${repeatsWord(options.repeats)} of each, interleaved in random order`;
  return (
    `This report's load test is ${runs.length} runs${sessions} (${repeatText}): about ${hours.toFixed(1)} h of wall time on this machine (each run's timeline × its time factor, plus ~${RUN_OVERHEAD_S} s to start and stop its processes), before the overhead benchmarks. ` +
    `\`npm run bench:report\` is sized to fit a working session on this 2-core machine: ${planSummary(optionsOf('bench:report'))}. ` +
    `The whole suite (\`npm run bench:report:full\`: seven scenarios, every policy in both layouts and at 1–2 slots, 45 s windows) is ${benchReportCost('bench:report:full')}: a quiet machine's job.`
  );
}

/**
 * Client CPU per call in the open-loop runs (not saturated), µs: the median
 * over policies and runs; NaN without any. At a few dozen calls/s the
 * process's fixed costs per second (timers, HTTP/2 pings, ORCA streams) are
 * spread over few calls, so this is well above the saturated figure.
 */
function openLoopCpuMicros(results: BenchResults): number {
  return median(results.load.flatMap((run) => run.policies.map((p) => p.cpuMicrosPerCall)).filter(Number.isFinite));
}

/** When the load test began to draw a GC pause's phase over the stretched period (commit 57840e8). */
const GC_PHASE_DRAWN_ANYWHERE_SINCE = Date.parse('2026-12-07T11:55:12Z');

/**
 * Which of the report's runs have a GC-pausing pod in their fleet, and how
 * many of them drew its phase the old way. s06's pauses come from a fault on
 * an identical fleet and are not counted here.
 */
function gcPhaseRunsText(results: BenchResults): string {
  const withGcPod = results.load.filter((run) => {
    const fleet = scenarioById(run.scenario).fleet;
    // A result file from the first day's harness has no backendCount (legacyText).
    return run.backendCount !== undefined && fleetRoles(fleet, run.backendCount).includes('gc');
  });
  if (withGcPod.length === 0) {
    return '';
  }
  const drawnTheOldWay = withGcPod.filter((run) => Date.parse(run.startedAt) < GC_PHASE_DRAWN_ANYWHERE_SINCE);
  const groups = [...new Set(withGcPod.map((run) => `${run.scenario} ${run.layout}`))].join(', ');
  return drawnTheOldWay.length === 0
    ? `; every run in this report with a GC-pausing pod (${withGcPod.length}, ${groups}) was measured with the phase drawn anywhere`
    : `; ${drawnTheOldWay.length} of this report's ${withGcPod.length} runs with a GC-pausing pod (${groups}) drew it the old way`;
}

/** What a call costs the client: the closed-loop figure (round_robin, 10 backends) and the open-loop runs' median. */
function cpuText(results: BenchResults): string {
  const saturated = results.cpu?.find((r) => r.policy === 'round_robin' && r.backends === 10)?.cpuMicrosPerCall;
  const open = openLoopCpuMicros(results);
  const parts = [
    ...(saturated !== undefined ? [`${Math.round(saturated)} µs of client CPU at saturation (closed loop, round_robin, 10 backends)`] : []),
    ...(Number.isFinite(open) ? [`${Math.round(open)} µs per call in these open-loop runs (median over policies and runs; fixed per-second costs spread over few calls)`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'client CPU measured per run';
}

export function methodNotes(results: BenchResults): string {
  const { decayMs, maxEjectionMs, slowStartMs } = PEAK_EWMA_DEFAULTS;
  const lowTimeFactor = LOW_CONCURRENCY_TIME_FACTOR;
  const options = results.options;
  return [
    '## How it runs',
    '',
    '- **Backends**: real grpc-js servers on 127.0.0.1 in 4 backend-host processes. Each answers from the ' +
      'shared queueing model (scripts/model: slots + FIFO, lognormal service times capped at 50× median, errors ' +
      'before queueing, black hole, GC completion gate, deadline skipping), so a GC pause holds one backend\'s ' +
      'completions only. The model runs under real timers with a logical clock (scripts/bench/logical-scheduler.ts): ' +
      'a late timer delays the answer but does not cost the backend capacity, and a queued call never starts before it ' +
      'arrived. Timers have ~1 ms granularity (the reference used a scheduled executor). Every run serves ORCA ' +
      'out-of-band reports, whichever policies it runs. Behaviour changes at run time over IPC.',
    '- **Scenarios**: the simulator\'s definitions (scripts/sim/scenarios.ts) run against the real fleet through a ' +
      'remote `ScenarioControl` (scripts/bench/remote-control.ts): faults, heals, pods joining and leaving (a resolver ' +
      'fed by the parent; a retired pod gets GOAWAY 1 s after it leaves the list, with 5 s grace, both × the time factor), ' +
      'client restarts, max connection age, restarts in place (s19, uniform layout only: the server stops listening, so a ' +
      'reconnect is refused, its calls in flight finish within 5 s, and after the down time a new server listens on the ' +
      'same port, its model cold; the channels\' reconnect back-off, 1 s first and at most 120 s, is × the time factor too). ' +
      'Time to detect and recover use the simulator\'s function.',
    '- **Methods**: a one-method workload is sent on `/loadtest.Probe/Call`, on channels without interceptors. A workload ' +
      'of several (s13, m2) sends each method on a path of its own, `/loadtest.Probe/<name>`, on channels with the ' +
      '`callMarker` interceptor as the README puts it on a user\'s channel, so the picker sees each call\'s method ' +
      '(per-method scoring); each client keeps a histogram pair per method group, failures at the method\'s own deadline ' +
      '(scripts/bench/method-paths.ts, method-tables.ts).',
    `- **Clients**: the reference layout runs ${options.clientsPerPolicy ?? 1} client process${(options.clientsPerPolicy ?? 1) > 1 ? 'es' : ''} per policy ` +
      '(the reference: 2), all at once against the same fleet; the uniform layout runs ' +
      `${options.uniformClients ?? 'a fixed number of'} clients of one policy per run, whatever the policy list. Open loop at a fixed period, latency from the intended start, OK-call p99 and ` +
      'all-call p99 (failures at the deadline) from HDR histograms merged exactly over the clients (the reference averaged its 2 clients\' p99s). ' +
      'Latency is binned into phases by completion, as the reference\'s 1 s interval histograms and the simulator; the per-second ' +
      'shares (who got the calls) by intended start. Repeats run in blocks, each block in a random order (scripts/bench/plan.ts).',
    '- **Policies**: round_robin (grpc-js), least_request_experimental (choiceCount 2), lr+od = least_request in ' +
      'outlier_detection with the reference\'s settings, peak_ewma_experimental (defaults), peak_ewma+od, and ' +
      'weighted_round_robin with ORCA as the server-assisted bar (out-of-band reports, 1 s period × the time factor: per-call ' +
      'reports cost 60–260 ms of CPU per call in grpc-js 1.14.7, whose `loadOrcaProto()` never caches). Every run checks ' +
      'that our policies accounted the calls (grpc-js silently falls back to pick_first on a bad config). ' +
      'peak_ewma via xDS gets Envoy\'s PeakEwma cluster from the fake control plane (scripts/xds), with Envoy\'s and our ' +
      'defaults unscaled: it shows the xDS path works, not a regime.',
    `- **Scale**: the reference offered 10,707 calls/s from 8 JVM clients on 18 cores. Here a unary call costs ` +
      cpuText(results) +
      ' plus the backend host\'s share, and the 2 cores are shared with other work. Where the load test stands in for the ' +
      "reference it keeps the reference's 8 slots and multiplies every time by the time factor F: service times, the deadline " +
      '(500 ms × F, 50 nominal medians), GC pauses, periods and the range of a pause\'s random phase (since 2026-12-07: runs ' +
      'before drew the phase in the first 10 s of a period stretched to 10 s × F, from the backend host\'s start, so at ' +
      '× 16 the GC-pausing pod of s01 paused at most once, at about the same point near the end of the measured window, in every repeat; the harness\'s ' +
      `pauses fall anywhere${gcPhaseRunsText(results)}), the timeline (warm-up, measurement, fault window, the per-second ` +
      `buckets) and the policies' time constants (peak_ewma's decayTime ${decayMs / 1000} s × F, maxEjectionTime ${maxEjectionMs / 1000} s × F, slowStartWindow ${slowStartMs / 1000} s × F and defaultRtt; ` +
      "outlier_detection's interval and ejection times; WRR's periods), so the offered rate is 1/F of the reference's and " +
      `every dimensionless quantity is kept (scripts/bench/scale.ts). The low-concurrency regimes run at time × ${lowTimeFactor} ` +
      `(${10 * lowTimeFactor} ms median, the same scaling: ms ÷ ${lowTimeFactor} are the reference's units), each as its own regime, on ${LOW_CONCURRENCY_SCALES.map((s) => `${s.backends} backends × ${slotsText(s.slots)}`).join(' and ')}: ` +
      "the same slots in total, so the same 70 % of capacity is the same rate from the same clients and the regimes differ only in how the slots are split; " +
      "a fleet of 6 at 2 slots offered 800 calls/s, over this machine's budget, and the reference's 10 ms itself (400 calls/s) was more than this machine served " +
      "even alone (event-loop delay p99 median 39 ms, round_robin with 16–33 % errors on identical backends), hence time × 2 (200 calls/s). " +
      "Measured alone: `npm run bench:low`, merged into the saved results with `npm run bench:low:merge`; then `npm run bench:identical:merge` pools every set of the identical fleet (s02) at 1 and 2 slots into its cells, and `npm run bench:uneven:merge` every set of the uneven fleet (s01) (merged by kind, the first would replace them).",
    '',
  ].join('\n');
}
