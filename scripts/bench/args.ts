/**
 * `npm run bench -- [options]`: what to run, parsed and checked up front so
 * a typo fails in a second, not after a ten-minute run.
 */
import { parsePolicyId, PolicyId, POLICY_IDS } from './policies';
import { DEFAULT_SCALE, Scale } from './scale';
import { QUICK_SCENARIOS, scenarioById, SCENARIOS, shortId } from './scenarios';

export type Suite = 'load' | 'pick' | 'cpu' | 'update' | 'overhead' | 'all';

export interface BenchOptions {
  readonly suites: readonly Exclude<Suite, 'overhead' | 'all'>[];
  readonly scenarios: readonly string[];
  /** Scenarios of the uniform layout (one run per policy each); default: the same as `scenarios`. */
  readonly uniformScenarios: readonly string[];
  readonly policies: readonly PolicyId[];
  readonly layouts: readonly ('reference' | 'uniform')[];
  /** Measurement window per scenario, s (the reference: 90). */
  readonly durationS: number;
  /** Warm-up per scenario, s; undefined = derived from the duration. */
  readonly warmupS?: number;
  readonly repeats: number;
  readonly scale: Scale;
  readonly backendHosts: number;
  readonly seed: number;
  readonly jsonPath?: string;
  /** Write docs/benchmarks.md and its charts from this run. */
  readonly report: boolean;
  /** Regenerate the report from a saved --json file instead of running. */
  readonly reportFrom?: string;
  /** Include the xDS run (needs scripts/xds's fake control plane). */
  readonly xds: boolean;
  readonly full: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --suite load|pick|cpu|update|overhead|all   what to run (default: load; overhead = pick + cpu + update)
  --scenario s01,s03,...               scenarios (default: ${QUICK_SCENARIOS.join(',')}; --full: all)
  --policy round_robin,peak_ewma,...   policies (default: all of ${POLICY_IDS.join(', ')})
  --layout reference|uniform|both      clients per policy side by side, or one policy per run (default: reference)
  --uniform-scenario s03,...           scenarios for the uniform layout (default: the --scenario list; --full: ${QUICK_SCENARIOS.join(',')})
  --duration SECONDS                   measurement window per scenario (default: 45; --full: 90 as the reference)
  --warmup SECONDS                     warm-up per scenario (default: derived, reference 20)
  --repeats N                          runs per scenario and layout (default: 1; --full: 2)
  --scale DIVxFACTOR                   slots ÷ DIV, service times × FACTOR (default: ${DEFAULT_SCALE.slotDivisor}x${DEFAULT_SCALE.timeFactor})
  --hosts N                            backend host processes (default: 4)
  --seed N                             seed for service times and method mixes (default: 1)
  --json FILE                          write every result as JSON
  --report                             write docs/benchmarks.md and docs/benchmarks/*.svg
  --report-from FILE                   regenerate the report from a --json file, run nothing
  --xds                                add a peak_ewma client through xDS (fake control plane)
  --full                               the whole suite: all scenarios, both layouts, overhead, xDS, 90 s windows, 2 repeats`;

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function positiveNumber(flag: string, value: string, integer = false): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new RangeError(`${flag} must be a ${integer ? 'whole ' : ''}number > 0, got "${value}"`);
  }
  return n;
}

function parseScale(value: string): Scale {
  const match = /^(\d+)x(\d+(?:\.\d+)?)$/.exec(value);
  if (!match) {
    throw new RangeError(`--scale must look like 4x3 (slots ÷ 4, service times × 3), got "${value}"`);
  }
  return { ...DEFAULT_SCALE, slotDivisor: Number(match[1]), timeFactor: Number(match[2]) };
}

export function parseArgs(argv: readonly string[]): BenchOptions {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  const SWITCHES = new Set(['--full', '--report', '--xds', '--help']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.split('=', 2);
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
    '--suite', '--scenario', '--uniform-scenario', '--policy', '--layout', '--duration', '--warmup', '--repeats',
    '--scale', '--hosts', '--seed', '--json', '--report-from',
  ]);
  for (const name of flags.keys()) {
    if (!known.has(name)) {
      throw new RangeError(`unknown option ${name}\n${USAGE}`);
    }
  }
  const full = switches.has('--full');
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
      : QUICK_SCENARIOS;
  const policies = flags.has('--policy') ? list(flags.get('--policy')!).map(parsePolicyId) : [...POLICY_IDS];
  const layoutText = flags.get('--layout') ?? (full ? 'both' : 'reference');
  if (!['reference', 'uniform', 'both'].includes(layoutText)) {
    throw new RangeError(`--layout must be reference, uniform or both, got "${layoutText}"`);
  }
  const layouts: BenchOptions['layouts'] =
    layoutText === 'both' ? ['reference', 'uniform'] : [layoutText as 'reference' | 'uniform'];
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
    layouts,
    durationS: flags.has('--duration') ? positiveNumber('--duration', flags.get('--duration')!) : full ? 90 : 45,
    warmupS: flags.has('--warmup') ? positiveNumber('--warmup', flags.get('--warmup')!) : full ? 20 : undefined,
    repeats: flags.has('--repeats') ? positiveNumber('--repeats', flags.get('--repeats')!, true) : full ? 2 : 1,
    scale: flags.has('--scale') ? parseScale(flags.get('--scale')!) : DEFAULT_SCALE,
    backendHosts: flags.has('--hosts') ? positiveNumber('--hosts', flags.get('--hosts')!, true) : 4,
    seed: flags.has('--seed') ? positiveNumber('--seed', flags.get('--seed')!, true) : 1,
    jsonPath: flags.get('--json'),
    report: switches.has('--report'),
    reportFrom: flags.get('--report-from'),
    xds: switches.has('--xds') || full,
    full,
  };
}
