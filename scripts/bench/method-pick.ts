/**
 * What per-method scoring adds to the pick path: ns per call (pick +
 * onCallStarted + onCallEnded) of peak_ewma with `methodScoring` off and on,
 * side by side, over READY fake subchannels built by grpc-js from service
 * config (fake-channel.ts), every call marked with its method as the
 * `callMarker` interceptor marks it (five methods in turn). Batches of the
 * variants alternate in a shuffled order, so drift hits them alike. Each
 * batch's mean is in this thread's CPU time (`process.cpuUsage`), so time the
 * process spends preempted on a busy machine does not count. What a variant
 * adds is judged per round — its batch minus the "off" batch of the same
 * round — so the drift between rounds (JIT tiers, GC, cache) cancels: the
 * figure is the mean of those paired differences with its 95 % bootstrap
 * interval. Medians of the raw batch means, compared across variants, moved
 * by ±100 ns between runs on a quiet machine, as much as the bar itself. The package is the tsc-style build
 * (package-under-test.ts), as users run it: under tsx every call pays
 * ~2–3 µs of esbuild's `__name` wrappers, which drowns a 100 ns difference.
 *
 *   npx tsx scripts/bench/method-pick.ts [--rounds 100] [--endpoints 10,1000] [--methods 5] [--processes 1]
 *
 * `--processes N` runs the whole measurement in N processes, one after
 * another, and judges over processes: the median and mean of their paired
 * figures, a 95 % interval of that mean, and every process's figure. Why:
 * one process's interval (over its rounds) is narrow, ±5–20 ns, but V8
 * compiles each process its own way, and with the code unchanged the
 * per-process figures spread over 2× (five methods, stepped clock,
 * 2026-12-03: +57 to +139 ns in eight processes), so one process's figure
 * says little about the next. Absolute ns also follow the host: on this
 * shared 2-core machine the "off" call measured 456 ns and 898 ns per call
 * half an hour apart; a figure with its base beside it is what compares.
 *
 * `--methods 1` sends every call on one method: then the method's weight is
 * 1 exactly and per-method scoring makes bit-identical picks (methods.ts),
 * so the difference is the per-method bookkeeping alone (the marker read,
 * the table lookup, the weight, the normalised sample, the method's own
 * baseline). With five methods the calls of this fake channel end within
 * microseconds, so their normalised samples are noise divided by weights
 * learnt from noise: the estimates, and with them the picks (gate refusals,
 * draws), differ from "off", and the figure includes that.
 *
 * `--stepped-clock MS` replaces `performance.now()` with a clock that moves
 * MS per read, kept per variant (each picker sees its own unbroken
 * timeline). The engine reads the clock at the pick, the start and the end,
 * so every call of every method takes exactly MS: every method's baseline
 * equals the fleet's, every weight is 1, and with five methods
 * `"latency"` makes the same picks as `"off"` (what methods.ts promises for
 * w = 1). What is left between them is the per-method work alone: five
 * methods' lookups, weights, normalised samples and baselines. With the
 * real clock the five-method figure also holds the different picks made on
 * microsecond noise (see above); both are reported in docs/design.md.
 *
 * `--variant NAME=JSON` (repeatable) compares other peak_ewma configs the
 * same way, the first one given as the base: e.g. what the rotation adds,
 *   --variant 'draws={"rotationGate":0,"rotationMargin":0}' --variant 'defaults={}'
 */
import { Metadata } from '@grpc/grpc-js';
import { parseCommandLine } from '../lib/command-line';
import { fork } from 'child_process';
import { buildPackage, builtFrom, loadPackage, loadStreamingModule } from './package-under-test';
import { buildPicker, pickOnce } from './fake-channel';
import { cpuNsPerCall, lastTimedResult } from './cpu-time';
import { bootstrapMeanInterval, mean, median, seedOf, shuffled } from './stats';
import { seededRandom } from '../../src/core/random';

/** The variants compared by default, the first being the base the others are judged against. */
const METHOD_VARIANTS: Record<string, object> = {
  off: { peak_ewma_experimental: { methodScoring: 'off' } },
  work: { peak_ewma_experimental: { methodScoring: 'work' } },
  latency: { peak_ewma_experimental: { methodScoring: 'latency' } },
};

/** `NAME=JSON` → [NAME, peak_ewma config]; a bad one fails before any timing, naming it. */
function parseVariant(text: string): [string, object] {
  const at = text.indexOf('=');
  if (at <= 0) throw new Error(`--variant: expected NAME=JSON, got ${text}`);
  const fields = JSON.parse(text.slice(at + 1)) as unknown;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new Error(`--variant ${text.slice(0, at)}: expected a JSON object`);
  return [text.slice(0, at), { peak_ewma_experimental: fields }];
}
const METHODS = ['/svc.S/Ping', '/svc.S/Get', '/svc.S/List', '/svc.S/Search', '/svc.S/Report'];
const BATCH = 20_000;
/** Rounds run first and not kept, so every variant is compiled and warm. */
const WARMUP_ROUNDS = 5;

/** ns of this thread's CPU per call of `call`, over one batch of BATCH calls. */
const batchNs = (call: (i: number) => unknown): number => cpuNsPerCall(BATCH, call);

function signedNs(ns: number): string {
  return `${ns >= 0 ? '+' : '−'}${Math.abs(ns).toFixed(0)} ns`;
}

/** One process's figures at one endpoint count: the base's median batch, and per other variant the mean of paired differences. */
interface ProcessResult {
  readonly endpoints: number;
  readonly baseNs: number;
  readonly addedNs: Record<string, number>;
  /** That process's 95 % interval over its rounds, per variant. */
  readonly roundsInterval: Record<string, readonly [number, number]>;
}

const OPTIONS = {
  rounds: { type: 'string', default: '100' },
  methods: { type: 'string', default: '5' },
  endpoints: { type: 'string', default: '10,1000' },
  variant: { type: 'string', multiple: true },
  'stepped-clock': { type: 'string' },
  processes: { type: 'string', default: '1' },
  child: { type: 'boolean', default: false },
} as const;

async function main(): Promise<void> {
  const { values } = parseCommandLine('npx tsx scripts/bench/method-pick.ts', { options: OPTIONS });
  const processes = Number(values.processes);
  if (!Number.isInteger(processes) || processes < 1) throw new Error(`--processes: expected an integer >= 1, got ${values.processes}`);
  const variants: Record<string, object> = values.variant?.length ? Object.fromEntries(values.variant.map(parseVariant)) : METHOD_VARIANTS;
  const base = Object.keys(variants)[0];
  if (values.child) {
    process.send!(await measure(values, variants));
    return;
  }
  const stepMs = values['stepped-clock'];
  if (processes === 1) {
    const results = await measure(values, variants);
    console.log(`package: ${builtFrom()}${stepMs === undefined ? '' : `; stepped clock: ${stepMs} ms per read`}`);
    for (const result of results) {
      const line = Object.entries(result.addedNs)
        .map(([name, ns]) => `${name} ${signedNs(ns)} [${result.roundsInterval[name].map(signedNs).join(', ')}]`)
        .join(', ');
      console.log(`@${result.endpoints} endpoints, ${values.methods} method(s), ${values.rounds} rounds × ${BATCH} calls: ${base} ${result.baseNs.toFixed(0)} ns per call (median batch); added per call, mean of paired rounds [95 % interval over rounds]: ${line}`);
    }
  } else {
    buildPackage();
    const perProcess: ProcessResult[][] = [];
    for (let p = 0; p < processes; p++) {
      perProcess.push(await runChild(process.argv.slice(2)));
    }
    console.log(`package: ${builtFrom()}${stepMs === undefined ? '' : `; stepped clock: ${stepMs} ms per read`}; ${processes} processes, one after another, each ${values.rounds} rounds × ${BATCH} calls`);
    perProcess[0].forEach((first, at) => {
      const results = perProcess.map((results) => results[at]);
      const line = Object.keys(first.addedNs)
        .map((name) => {
          const added = results.map((result) => result.addedNs[name]);
          const [low, high] = bootstrapMeanInterval(added, seededRandom(seedOf(`${first.endpoints}/${name}/processes`)));
          const sorted = [...added].sort((a, b) => a - b);
          return `${name} ${signedNs(median(added))} median, ${signedNs(mean(added))} mean [${signedNs(low)}, ${signedNs(high)}]; per process ${sorted.map(signedNs).join(' ')}`;
        })
        .join('; ');
      console.log(`@${first.endpoints} endpoints, ${values.methods} method(s): ${base} ${median(results.map((result) => result.baseNs)).toFixed(0)} ns per call (median process); added per call over processes, 95 % interval of the mean: ${line}`);
    });
  }
  const { markedCopy } = loadStreamingModule();
  console.log(`the marker itself (callMarker's step per call, a Metadata copy with its info): ${markerNs(markedCopy, Number(values.rounds)).toFixed(0)} ns per call (median batch)`);
}

function runChild(args: string[]): Promise<ProcessResult[]> {
  return new Promise((resolve, reject) => {
    const proc = fork(__filename, [...args, '--child']);
    proc.once('message', (message) => resolve(message as ProcessResult[]));
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`child exited with ${code}`))));
  });
}

/** This process's paired rounds at each endpoint count (the measurement itself). */
async function measure(values: { [K in keyof typeof OPTIONS]?: unknown }, variants: Record<string, object>): Promise<ProcessResult[]> {
  const stepText = values['stepped-clock'] as string | undefined;
  const stepMs = stepText === undefined ? undefined : Number(stepText);
  if (stepMs !== undefined && !(stepMs > 0 && Number.isFinite(stepMs))) throw new Error(`--stepped-clock: expected a number of ms > 0, got ${stepText}`);
  const clock = stepMs === undefined ? undefined : installSteppedClock(stepMs);
  const rounds = Number(values.rounds);
  const base = Object.keys(variants)[0];
  loadPackage().register();
  const { markedCopy } = loadStreamingModule();
  const methodCount = Number(values.methods);
  if (!Number.isInteger(methodCount) || methodCount < 1 || methodCount > METHODS.length) throw new Error(`--methods: expected 1 to ${METHODS.length}, got ${String(values.methods)}`);
  const methods = METHODS.slice(0, methodCount);
  const argsByMethod = methods.map((method) => ({ metadata: markedCopy(new Metadata(), method, false), extraPickInfo: {} }));
  const trailers = new Metadata();
  const results: ProcessResult[] = [];
  for (const endpoints of (values.endpoints as string).split(',').map(Number)) {
    const built = Object.fromEntries(await Promise.all(Object.entries(variants).map(async ([name, config]) => [name, await buildPicker(config, endpoints)] as const)));
    const means: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
    for (let round = 0; round < rounds + WARMUP_ROUNDS; round++) {
      for (const name of shuffled(Object.keys(variants))) {
        const { picker } = built[name];
        clock?.resume(name);
        const ns = batchNs((i) => pickOnce(picker, argsByMethod[i % methods.length], trailers));
        clock?.pause(name);
        if (round >= WARMUP_ROUNDS) {
          means[name].push(ns);
        }
      }
    }
    if (lastTimedResult() === null) {
      throw new Error('no subchannel picked');
    }
    const addedNs: Record<string, number> = {};
    const roundsInterval: Record<string, readonly [number, number]> = {};
    for (const name of Object.keys(variants).filter((variant) => variant !== base)) {
      const added = means[name].map((value, round) => value - means[base][round]);
      addedNs[name] = mean(added);
      roundsInterval[name] = bootstrapMeanInterval(added, seededRandom(seedOf(`${endpoints}/${name}`)));
    }
    results.push({ endpoints, baseNs: median(means[base]), addedNs, roundsInterval });
    Object.values(built).forEach((b) => b.destroy());
  }
  return results;
}

/**
 * Replaces `performance.now()` (which the package's clock calls at each
 * read) with one that moves `stepMs` per read. Each variant keeps its own
 * time: `resume(name)` before its batch, `pause(name)` after.
 */
function installSteppedClock(stepMs: number): { resume(name: string): void; pause(name: string): void } {
  let nowMs = 0;
  const saved = new Map<string, number>();
  Object.defineProperty(globalThis.performance, 'now', { value: () => (nowMs += stepMs), configurable: true, writable: true });
  return {
    resume: (name) => {
      nowMs = saved.get(name) ?? 0;
    },
    pause: (name) => {
      saved.set(name, nowMs);
    },
  };
}

/**
 * What `callMarker` adds to each call before the picker: one `markedCopy` of
 * a one-entry Metadata, as a caller's metadata usually is. The pick-path
 * figures above start from marked metadata, so this is on top of them.
 */
function markerNs(markedCopy: (metadata: Metadata, method: string, streaming: boolean) => Metadata, rounds: number): number {
  const metadata = new Metadata();
  metadata.set('authorization', 'Bearer x');
  const batchMeans: number[] = [];
  for (let round = 0; round < rounds + WARMUP_ROUNDS; round++) {
    const ns = batchNs((i) => markedCopy(metadata, METHODS[i % METHODS.length], false));
    if (round >= WARMUP_ROUNDS) batchMeans.push(ns);
  }
  if (lastTimedResult() === null) throw new Error('nothing marked');
  return median(batchMeans);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
