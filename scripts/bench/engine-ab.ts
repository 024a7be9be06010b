/**
 * The engine's own cost per call, before and after a change, side by side:
 * ns of CPU per call (pick + callStarted + callEnded on a
 * `LoadBalancingEngine` with peak_ewma's model, the system clock, 10
 * endpoints), with the engine of a git revision (`--base`, default HEAD~1)
 * and the engine under test (HEAD, or the work tree with
 * PEAK_EWMA_BENCH_SOURCE=worktree), both as `tsc` emits them
 * (package-under-test.ts).
 *
 *   npx tsx scripts/bench/engine-ab.ts [--base REV] [--processes 10] [--methods 0|1|5] [--config JSON]
 *
 * Why not method-pick.ts or pick-path.ts: those time one build's variants
 * through grpc-js pickers; a code change needs two builds. Both engines
 * are loaded in one process and their batches alternate, so drift (JIT
 * tiers, GC, frequency) hits them alike, and what is reported per process
 * is the median over rounds of (test − base). Between processes the
 * absolute cost moved by ±25 % on this shared machine (2 cores), more than
 * a typical change, so several processes run and the report gives the
 * median of their medians with the range. Run an A/A (`--base HEAD`) to see
 * the spread of a no-change comparison.
 *
 * `--methods N` marks calls with N method names in turn (per-method
 * scoring's bookkeeping; 0: no method, as without the `callMarker`
 * interceptor). The endpoints answer within microseconds: what this
 * measures is the engine's work, not its decisions in a real fleet.
 */
import { fork } from 'child_process';
import * as path from 'path';
import { parseCommandLine } from '../lib/command-line';
import { buildPackage, buildRevision, builtFrom, BUILD_DIR } from './package-under-test';
import { cpuNsPerCall, lastTimedResult } from './cpu-time';
import { median } from './stats';

const METHODS = ['/svc.S/Ping', '/svc.S/Get', '/svc.S/List', '/svc.S/Search', '/svc.S/Report'];
const ENDPOINTS = 10;
const BATCH = 100_000;
const ROUNDS = 60;
/** Rounds run first and not kept, so that both engines are compiled and warm. */
const WARMUP_ROUNDS = 10;

type Core = typeof import('../../src/core/index');
type Config = typeof import('../../src/policy/peak-ewma-config');

interface Engine {
  one(i: number): number;
}

/** peak_ewma's engine from the build in `dir`, set up as a balancer sets it up. */
function engineFrom(dir: string, methodCount: number, configJson: object): Engine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const core = require(path.join(dir, 'src', 'core', 'index.js')) as Core;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require(path.join(dir, 'src', 'policy', 'peak-ewma-config.js')) as Config;
  const model = new core.PeakEwmaModel(config.PeakEwmaLoadBalancingConfig.createFromJson(configJson).settings);
  const engine = new core.LoadBalancingEngine({ model, choiceCount: 2, clock: core.systemClock, random: core.seededRandom(1) });
  const loads = Array.from({ length: ENDPOINTS }, () => new core.EndpointLoad());
  const names = METHODS.slice(0, methodCount);
  // What the picker hands the engine: the interceptor's one key per method
  // where the build has keys (methods.ts MethodKey), the name before that.
  const keys = 'methodOfKey' in engine && 'MethodKey' in core ? names.map((name) => new core.MethodKey(name)) : undefined;
  return {
    one(i: number): number {
      const method = names.length === 0 ? undefined : keys !== undefined ? engine.methodOfKey(keys[i % keys.length]) : engine.methodOf(names[i % names.length]);
      const weight = engine.callWeight(method);
      const chosen = engine.pick(loads, weight);
      const load = loads[chosen];
      const startedAtMs = engine.callStarted(load, weight, method);
      engine.callEnded(load, core.CallOutcome.SUCCESS, startedAtMs, weight, method);
      return chosen;
    },
  };
}

const batchNs = (engine: Engine): number => cpuNsPerCall(BATCH, (i) => engine.one(i));

/** In a child: paired rounds of the two engines; sends [base ns, test − base ns] medians. */
function child(baseDir: string, testDir: string, methodCount: number, configJson: object): void {
  const engines = [engineFrom(baseDir, methodCount, configJson), engineFrom(testDir, methodCount, configJson)];
  const baseNs: number[] = [];
  const addedNs: number[] = [];
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    const ns = [0, 0];
    for (const which of round % 2 === 0 ? [0, 1] : [1, 0]) {
      ns[which] = batchNs(engines[which]);
    }
    if (round >= WARMUP_ROUNDS) {
      baseNs.push(ns[0]);
      addedNs.push(ns[1] - ns[0]);
    }
  }
  if (lastTimedResult() === null) throw new Error('no call was timed');
  process.send!([median(baseNs), median(addedNs)]);
}

function runChild(args: string[]): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const proc = fork(__filename, ['--child', ...args]);
    proc.once('message', (message) => resolve(message as [number, number]));
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`child exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine('npx tsx scripts/bench/engine-ab.ts', {
    options: {
      base: { type: 'string', default: 'HEAD~1' },
      processes: { type: 'string', default: '10' },
      methods: { type: 'string', default: '0' },
      config: { type: 'string', default: '{}' },
      child: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const methodCount = Number(values.methods);
  if (!Number.isInteger(methodCount) || methodCount < 0 || methodCount > METHODS.length) {
    throw new Error(`--methods: expected 0 to ${METHODS.length}, got ${values.methods}`);
  }
  const configJson = JSON.parse(values.config) as object;
  if (values.child) {
    child(positionals[0], positionals[1], methodCount, configJson);
    return;
  }
  const processes = Number(values.processes);
  if (!Number.isInteger(processes) || processes < 1) throw new Error(`--processes: expected an integer >= 1, got ${values.processes}`);
  const baseDir = buildRevision(values.base);
  buildPackage();
  const perProcess: Array<[number, number]> = [];
  for (let p = 0; p < processes; p++) {
    perProcess.push(await runChild([baseDir, BUILD_DIR, '--methods', String(methodCount), '--config', values.config]));
  }
  const added = perProcess.map(([, ns]) => ns).sort((a, b) => a - b);
  const base = median(perProcess.map(([ns]) => ns));
  const signed = (ns: number): string => `${ns >= 0 ? '+' : '−'}${Math.abs(ns).toFixed(0)} ns`;
  console.log(`base: ${values.base} (${path.basename(baseDir)}); test: ${builtFrom()}`);
  console.log(`config ${values.config}, ${methodCount} method${methodCount === 1 ? '' : 's'}, ${ENDPOINTS} endpoints, ${processes} processes × ${ROUNDS} paired rounds × ${BATCH} calls`);
  console.log(`base ${base.toFixed(0)} ns per call (median); test − base per process: ${added.map(signed).join(', ')}`);
  console.log(`test − base: ${signed(median(added))} per call (median of processes; ${((median(added) / base) * 100).toFixed(1)} % of base)`);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
