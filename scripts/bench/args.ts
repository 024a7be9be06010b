/**
 * `npm run bench -- [options]`: what to run, parsed and checked up front so
 * a typo fails in a second, not after a ten-minute run.
 */
import { readFileSync } from 'node:fs';
import { parsePeakEwmaOverrides, parsePolicyId, PolicyId, POLICY_IDS } from './policies';
import { DEFAULT_CLIENTS_PER_POLICY, DEFAULT_SCALE, DEFAULT_UNIFORM_CLIENTS, Scale } from './scale';
import { inReferenceLayout, QUICK_SCENARIOS, scenarioById, SCENARIOS, shortId } from './scenarios';

export type Suite = 'load' | 'pick' | 'cpu' | 'update' | 'overhead' | 'all';

export interface BenchOptions {
  readonly suites: readonly Exclude<Suite, 'overhead' | 'all'>[];
  readonly scenarios: readonly string[];
  /** Scenarios of the uniform layout (one run per policy each); default: the same as `scenarios`. */
  readonly uniformScenarios: readonly string[];
  readonly policies: readonly PolicyId[];
  /** Policies of the one-policy-per-run layouts (uniform, low-concurrency); default: `policies`. */
  readonly uniformPolicies: readonly PolicyId[];
  readonly layouts: readonly ('reference' | 'uniform')[];
  /** Measurement window per scenario, s (the reference: 90). */
  readonly durationS: number;
  /** Warm-up per scenario, s; undefined = derived from the duration. */
  readonly warmupS?: number;
  readonly repeats: number;
  /** The regime of the reference and uniform layouts' runs. */
  readonly scale: Scale;
  /** Reference layout: clients per policy. */
  readonly clientsPerPolicy: number;
  /** Uniform layout: clients per run, whatever the policy list. */
  readonly uniformClients: number;
  /** Also run the low-concurrency regimes (1 and 2 slots at 20 ms, time × 2, uniform layout, every policy). */
  readonly lowConcurrency: boolean;
  readonly lowScenarios: readonly string[];
  readonly backendHosts: number;
  readonly seed: number;
  readonly jsonPath?: string;
  /** Write docs/benchmarks.md and its charts from this run. */
  readonly report: boolean;
  /** Write docs/benchmarks/methods.md (the multi-method runs) from this run, or with --report-from from that file. */
  readonly methodsReport?: boolean;
  /** Regenerate the report from a saved --json file instead of running. */
  readonly reportFrom?: string;
  /**
   * With --report-from: a second saved file whose load-test runs replace the
   * first's runs of the same kinds (merge.ts); with --json, the merged file is saved.
   */
  readonly mergeLoad?: string;
  /**
   * With --report-from: saved files whose load-test runs are pooled in place
   * of that file's runs of the same cells (scenario, layout, regime, policy;
   * merge.ts `mergeLoadCells`), after --merge-load if both are given.
   */
  readonly mergeCells?: readonly string[];
  /** With --report-from: a saved file whose overhead benchmarks (pick path, CPU per RPC, update time) replace that file's. */
  readonly mergeOverhead?: string;
  /** With --merge-cells: only these scenarios' runs are taken. */
  readonly mergeScenarios?: readonly string[];
  /** With --merge-cells: a repeat in which a run stalled longer than this (wall ms) is dropped with its group's other runs. */
  readonly dropStalledMs?: number;
  /**
   * Fields set on every peak_ewma client's config (also inside
   * peak_ewma_od), durations in the reference's units (scaled with the
   * run): a switch measured over real gRPC. Such a run is not the report's:
   * `--report` and `--merge-load` refuse it.
   */
  readonly peakEwmaConfig?: Readonly<Record<string, unknown>>;
  /**
   * Every client retries a call that fails UNAVAILABLE, up to this many
   * attempts in all (gRFC A6 `retryPolicy`; 2–5): what a fleet's fast
   * errors cost a caller that retries them. Like `peakEwmaConfig`, not the
   * report's: `--report` and `--merge-load` refuse it.
   */
  readonly retryAttempts?: number;
  /**
   * Re-run a load-test run whose backend hosts' or clients' event loop
   * stalled longer than this, wall ms (stalls.ts); undefined: keep every run.
   */
  readonly maxStallMs?: number;
  /** Include the xDS run (needs scripts/xds's fake control plane). */
  readonly xds: boolean;
  readonly full: boolean;
  readonly quick: boolean;
}

/** Repeats per scenario by default: enough for a bootstrap interval over repeats to mean something. */
export const DEFAULT_REPEATS = 5;

/**
 * --quick, for development: short windows on a small fleet at a small time
 * factor, 2 repeats; numbers from it are their own regime (the report says
 * which) and not the published ones.
 */
export const QUICK = { durationS: 15, warmupS: 5, repeats: 2, timeFactor: 4, backends: 5, scenarios: ['s02', 's03'] } as const;

export const USAGE = `usage: npm run bench -- [options]
  --suite load|pick|cpu|update|overhead|all   what to run (default: load; overhead = pick + cpu + update)
  --scenario s01,s03,...               scenarios (default: ${QUICK_SCENARIOS.join(',')}; --full: all)
  --policy round_robin,peak_ewma,...   policies (default: all of ${POLICY_IDS.join(', ')})
  --uniform-policy round_robin,...     policies of the uniform and low-concurrency runs, one run each (default: the --policy list)
  --layout reference|uniform|both|none clients per policy side by side, or one policy per run (default: reference;
                                       none: only the --low-concurrency runs)
  --uniform-scenario s03,...           scenarios for the uniform layout (default: the --scenario list; --full: ${QUICK_SCENARIOS.join(',')})
  --duration SECONDS                   measurement window per scenario, timeline s (default: 45; --full: 90 as the reference)
  --warmup SECONDS                     warm-up per scenario, timeline s (default: derived, reference 20)
  --repeats N                          runs per scenario and layout, interleaved in random order (default: ${DEFAULT_REPEATS})
  --slots N                            slots of a normal backend (default: ${DEFAULT_SCALE.slots}, the reference's; roles keep their ratio)
  --time-factor F                      every time × F: service, deadline, GC, timeline, policy constants (default: ${DEFAULT_SCALE.timeFactor})
  --backends N                         fleet size (default: the scenario's, 20)
  --clients-per-policy N               reference layout (default: ${DEFAULT_CLIENTS_PER_POLICY})
  --uniform-clients N                  uniform layout, any policy list (default: ${DEFAULT_UNIFORM_CLIENTS})
  --low-concurrency                    add 1- and 2-slot backends at 20 ms (time × 2), uniform, every policy (issue 15)
  --low-scenario s01,...               scenarios of the low-concurrency runs (default: s01,s02,s03)
  --hosts N                            backend host processes (default: 4)
  --seed N                             seed for service times, method mixes and the run order (default: 1)
  --json FILE                          write every result as JSON
  --max-stall MS                       run again (up to 3 times) a load-test run whose backends' or clients' event loop
                                       stalled longer than MS wall ms; the discarded runs are kept in the JSON
  --report                             write docs/benchmarks.md and docs/benchmarks/*.svg
  --methods-report                     write docs/benchmarks/methods.md (per-method groups); with --report-from, only that page
  --report-from FILE                   regenerate the report from a --json file, run nothing
  --merge-load FILE                    with --report-from: FILE's load-test runs replace that file's runs of the same
                                       kinds (reference layout, uniform layout, low-concurrency), the rest kept;
                                       with --json, the merged results are saved there
  --merge-cells FILE,FILE... | @LIST   with --report-from: the files' load-test runs are pooled in place of that file's
                                       runs of the same cells (scenario, layout, regime, policy), each file's repeats
                                       numbered apart so its side-by-side pairs stay paired; after --merge-load.
                                       @LIST: the files LIST names, one a line (# starts a comment)
  --merge-overhead FILE                with --report-from: FILE's overhead benchmarks (pick path, CPU per RPC, update time)
                                       replace that file's, each one FILE ran
  --merge-scenario ID,...              with --merge-cells: take only these scenarios' runs
  --drop-stalled MS                    with --merge-cells: drop each repeat in which a run's event loop stalled longer
                                       than MS wall ms, with the other runs of its repeat (for sets run without --max-stall)
  --peak-ewma-config JSON              fields set on every peak_ewma client's config, e.g. '{"rotationMargin":0.25}'
                                       (durations in reference units, scaled with the run; not for --report)
  --retry-attempts N                   every client retries calls that fail UNAVAILABLE, N attempts in all (2-5;
                                       gRFC A6 retryPolicy; not for --report)
  --xds                                add a peak_ewma client through xDS (fake control plane)
  --full                               the whole suite: all scenarios, both layouts, overhead, xDS, 90 s windows
  --quick                              development: ${QUICK.scenarios.join(',')}, ${QUICK.durationS} s windows, ${QUICK.backends} backends, time × ${QUICK.timeFactor}, ${QUICK.repeats} repeats`;

function list(value: string): string[] {
  return entries(value.split(','));
}

/** The parts, trimmed, the empty ones left out. */
function entries(parts: readonly string[]): string[] {
  return parts.map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * A comma-separated list of files, or `@LIST`: the files LIST names, one a
 * line, `#` starting a comment. A pooled cell grows a file per session; a
 * list keeps the sessions, and why each belongs, out of package.json.
 */
function fileList(value: string): string[] {
  if (!value.startsWith('@')) {
    return list(value);
  }
  const listPath = value.slice(1);
  let text: string;
  try {
    text = readFileSync(listPath, 'utf8');
  } catch (error) {
    throw new RangeError(`--merge-cells @${listPath}: cannot read the list (${(error as Error).message})`);
  }
  const files = entries(text.split('\n').map((line) => line.replace(/#.*/, '')));
  if (files.length === 0) {
    throw new RangeError(`--merge-cells @${listPath}: the list names no file`);
  }
  return files;
}

/**
 * The runs that measure something other than the report's clients: the flag
 * that asks for one, the field its options and runs carry, and why the
 * report refuses it — said of the flag (`parseArgs`) and of a saved file
 * that ran with it (merge.ts). A third kind of run adds an entry here.
 */
export const NOT_THE_REPORTS: ReadonlyArray<{
  readonly flag: string;
  readonly field: 'peakEwmaConfig' | 'retryAttempts';
  readonly why: string;
  readonly fileRan: string;
}> = [
  {
    flag: '--peak-ewma-config',
    field: 'peakEwmaConfig',
    why: 'measures a switch, not the defaults: the report would call it peak_ewma',
    fileRan: 'ran peak_ewma with --peak-ewma-config: the report would call a switch peak_ewma',
  },
  {
    flag: '--retry-attempts',
    field: 'retryAttempts',
    why: "measures callers that retry, not the reference's",
    fileRan: "ran callers that retry (--retry-attempts): the report's callers do not",
  },
];

function positiveNumber(flag: string, value: string, integer = false): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new RangeError(`${flag} must be a ${integer ? 'whole ' : ''}number > 0, got "${value}"`);
  }
  return n;
}


export function parseArgs(argv: readonly string[]): BenchOptions {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  const SWITCHES = new Set(['--full', '--quick', '--report', '--methods-report', '--xds', '--low-concurrency', '--help']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // At the first '=' only: a value may hold one (--json=/tmp/a=b.json).
    const equals = arg.indexOf('=');
    const [name, inline] = equals < 0 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
    if (SWITCHES.has(name)) {
      switches.add(name);
      continue;
    }
    if (!name.startsWith('--')) {
      throw new RangeError(`unexpected argument "${arg}"\n${USAGE}`);
    }
    const value = inline ?? argv[++i];
    if (value === undefined) {
      throw new RangeError(`${name} needs a value\n${USAGE}`);
    }
    flags.set(name, value);
  }
  if (switches.has('--help')) {
    throw new RangeError(USAGE);
  }
  const known = new Set([
    '--suite', '--scenario', '--uniform-scenario', '--policy', '--uniform-policy', '--layout', '--duration', '--warmup', '--repeats',
    '--slots', '--time-factor', '--backends', '--clients-per-policy', '--uniform-clients', '--low-scenario',
    '--hosts', '--seed', '--json', '--report-from', '--merge-load', '--merge-cells', '--merge-scenario', '--drop-stalled', '--merge-overhead',
    '--peak-ewma-config', '--max-stall', '--retry-attempts',
  ]);
  for (const name of flags.keys()) {
    if (!known.has(name)) {
      throw new RangeError(`unknown option ${name}\n${USAGE}`);
    }
  }
  const reporting = switches.has('--report') || switches.has('--methods-report') || flags.has('--report-from');
  for (const { flag, why } of NOT_THE_REPORTS) {
    if (reporting && flags.has(flag)) {
      throw new RangeError(`${flag} ${why}; save it with --json`);
    }
  }
  if (flags.has('--merge-load') && !flags.has('--report-from')) {
    throw new RangeError('--merge-load merges into a saved file: it needs --report-from');
  }
  for (const flag of ['--merge-cells', '--merge-overhead']) {
    if (flags.has(flag) && !flags.has('--report-from')) {
      throw new RangeError(`${flag} merges into a saved file: it needs --report-from`);
    }
  }
  for (const flag of ['--merge-scenario', '--drop-stalled']) {
    if (flags.has(flag) && !flags.has('--merge-cells')) {
      throw new RangeError(`${flag} says which runs --merge-cells takes: it needs --merge-cells`);
    }
  }
  const full = switches.has('--full');
  const quick = switches.has('--quick');
  if (full && quick) {
    throw new RangeError('--full and --quick exclude each other');
  }
  const number = (flag: string, fallback: number, integer = true): number =>
    flags.has(flag) ? positiveNumber(flag, flags.get(flag)!, integer) : fallback;
  const suiteText = flags.get('--suite') ?? (full ? 'all' : 'load');
  const suites = list(suiteText).flatMap((suite): BenchOptions['suites'][number][] => {
    switch (suite) {
      case 'load':
      case 'pick':
      case 'cpu':
      case 'update':
        return [suite];
      case 'overhead':
        return ['pick', 'cpu', 'update'];
      case 'all':
        return ['load', 'pick', 'cpu', 'update'];
      default:
        throw new RangeError(`--suite: unknown suite "${suite}"; expected load, pick, cpu, update, overhead or all`);
    }
  });
  const scenarios = flags.has('--scenario')
    ? list(flags.get('--scenario')!).map((id) => shortId(scenarioById(id)))
    : full
      ? SCENARIOS.map(shortId)
      : quick
        ? [...QUICK.scenarios]
        : QUICK_SCENARIOS;
  const policies = flags.has('--policy') ? list(flags.get('--policy')!).map(parsePolicyId) : [...POLICY_IDS];
  const uniformPolicies = flags.has('--uniform-policy') ? list(flags.get('--uniform-policy')!).map(parsePolicyId) : policies;
  const layoutText = flags.get('--layout') ?? (full ? 'both' : 'reference');
  if (!['reference', 'uniform', 'both', 'none'].includes(layoutText)) {
    throw new RangeError(`--layout must be reference, uniform, both or none, got "${layoutText}"`);
  }
  if (layoutText === 'none' && !switches.has('--low-concurrency')) {
    throw new RangeError('--layout none runs nothing without --low-concurrency');
  }
  const layouts: BenchOptions['layouts'] =
    layoutText === 'both' ? ['reference', 'uniform'] : layoutText === 'none' ? [] : [layoutText as 'reference' | 'uniform'];
  const uniformOnly = layouts.includes('reference') ? scenarios.filter((id) => !inReferenceLayout(id)) : [];
  if (uniformOnly.length > 0) {
    throw new RangeError(`--scenario ${uniformOnly.join(',')}: runs in the uniform layout only; add --layout uniform`);
  }
  // --full: the uniform layout (6 runs per scenario) only where policies differ most, to keep it under two hours.
  const uniformScenarios = flags.has('--uniform-scenario')
    ? list(flags.get('--uniform-scenario')!).map((id) => shortId(scenarioById(id)))
    : full && !flags.has('--scenario')
      ? QUICK_SCENARIOS
      : scenarios;
  return {
    suites: Array.from(new Set(suites)),
    scenarios,
    uniformScenarios,
    policies,
    uniformPolicies,
    layouts,
    durationS: number('--duration', full ? 90 : quick ? QUICK.durationS : 45, false),
    warmupS: flags.has('--warmup') ? positiveNumber('--warmup', flags.get('--warmup')!) : full ? 20 : quick ? QUICK.warmupS : undefined,
    repeats: number('--repeats', quick ? QUICK.repeats : DEFAULT_REPEATS),
    scale: {
      ...DEFAULT_SCALE,
      slots: number('--slots', DEFAULT_SCALE.slots),
      timeFactor: number('--time-factor', quick ? QUICK.timeFactor : DEFAULT_SCALE.timeFactor, false),
      ...(flags.has('--backends') || quick ? { backends: number('--backends', QUICK.backends) } : {}),
    },
    clientsPerPolicy: number('--clients-per-policy', DEFAULT_CLIENTS_PER_POLICY),
    uniformClients: number('--uniform-clients', DEFAULT_UNIFORM_CLIENTS),
    lowConcurrency: switches.has('--low-concurrency'),
    lowScenarios: flags.has('--low-scenario')
      ? list(flags.get('--low-scenario')!).map((id) => shortId(scenarioById(id)))
      : quick
        ? ['s02']
        : ['s01', 's02', 's03'],
    backendHosts: flags.has('--hosts') ? positiveNumber('--hosts', flags.get('--hosts')!, true) : 4,
    seed: flags.has('--seed') ? positiveNumber('--seed', flags.get('--seed')!, true) : 1,
    jsonPath: flags.get('--json'),
    report: switches.has('--report'),
    methodsReport: switches.has('--methods-report'),
    reportFrom: flags.get('--report-from'),
    mergeLoad: flags.get('--merge-load'),
    ...(flags.has('--merge-overhead') ? { mergeOverhead: flags.get('--merge-overhead') } : {}),
    ...(flags.has('--merge-cells') ? { mergeCells: fileList(flags.get('--merge-cells')!) } : {}),
    ...(flags.has('--merge-scenario') ? { mergeScenarios: list(flags.get('--merge-scenario')!).map((id) => shortId(scenarioById(id))) } : {}),
    ...(flags.has('--drop-stalled') ? { dropStalledMs: positiveNumber('--drop-stalled', flags.get('--drop-stalled')!) } : {}),
    ...(flags.has('--peak-ewma-config') ? { peakEwmaConfig: parsePeakEwmaOverrides(flags.get('--peak-ewma-config')!) } : {}),
    ...(flags.has('--retry-attempts') ? { retryAttempts: retryAttemptsOf(flags.get('--retry-attempts')!) } : {}),
    ...(flags.has('--max-stall') ? { maxStallMs: positiveNumber('--max-stall', flags.get('--max-stall')!) } : {}),
    xds: switches.has('--xds') || full,
    full,
    quick,
  };
}

/** `--retry-attempts`: a whole number of attempts, 2 to 5 (gRFC A6 caps maxAttempts at 5). */
function retryAttemptsOf(text: string): number {
  const attempts = Number(text);
  if (!Number.isInteger(attempts) || attempts < 2 || attempts > 5) {
    throw new RangeError(`--retry-attempts must be a whole number from 2 to 5 (gRFC A6 caps maxAttempts at 5), got "${text}"`);
  }
  return attempts;
}
