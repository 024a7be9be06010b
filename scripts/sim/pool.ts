/**
 * Runs planned runs on worker threads (one per core by default), biggest
 * first, even with one job. The workers load the simulator as one esbuild
 * bundle (esbuild ships with tsx): tsx's per-module CommonJS goes through an
 * export getter on every cross-module call, which costs the hot loop about
 * 40 %. Without esbuild, runs go one at a time in this process through tsx.
 * Results are the same either way: runs are seeded, not timed.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { executeRun } from './execute';
import { RunResult } from './results';
import { RunSpec } from './world';

export interface PoolOptions {
  jobs?: number;
  onDone?: (done: number, total: number, result: RunResult) => void;
}

const BUNDLE_DIR = join(__dirname, '..', '..', 'node_modules', '.cache', 'grpc-js-peak-ewma-sim');

/** Where this process's workers' bundle is written while they run (tests check it is removed after). */
export function bundlePath(): string {
  return join(BUNDLE_DIR, `worker-${process.pid}.cjs`);
}

/** The workers' code (the bundle), or null without esbuild. */
function workerSource(): { code: string; eval: true } | null {
  const entry = join(__dirname, 'worker.ts');
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const esbuild = require('esbuild') as typeof import('esbuild');
    // Inside the project, so the bundle resolves @grpc/grpc-js from node_modules.
    mkdirSync(BUNDLE_DIR, { recursive: true });
    const outfile = bundlePath();
    esbuild.buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      packages: 'external',
      outfile,
      logLevel: 'error',
      absWorkingDir: join(__dirname, '..', '..'),
    });
    return { code: `require(${JSON.stringify(outfile)});`, eval: true };
  } catch {
    return null;
  }
}

/**
 * CPU per simulated call relative to round_robin, measured (warm worker,
 * reference scale, 2026-11-30): the oracles read every backend per pick.
 * Only the order of runs depends on it, never a result.
 */
const RELATIVE_COST_PER_CALL: Record<string, number> = {
  oracle: 2.3,
  least_connection: 1.8,
  peak_ewma_od: 1.6,
  'oracle-capacity': 1.5,
  peak_ewma: 1.5,
};

function relativeCost(policy: string): number {
  const base = /^(?:[\w.-]+=)?([\w-]+)/.exec(policy)?.[1] ?? policy;
  return RELATIVE_COST_PER_CALL[base] ?? 1;
}

/** Estimated CPU (calls × cost per call), to start the longest runs first so none is left running alone at the end. */
function weight(spec: RunSpec): number {
  const clients = spec.groups.reduce((sum, group) => sum + group.clients, 0);
  const costPerCall = spec.groups.reduce((sum, group) => sum + group.clients * relativeCost(group.policy), 0) / clients;
  const calls = (spec.backends ?? 20) * (spec.load ?? 0.7) * (spec.timeline.warmupMs / 1000 + spec.timeline.measureS);
  return calls * costPerCall + clients;
}

export async function runAll(specs: readonly RunSpec[], options: PoolOptions = {}): Promise<RunResult[]> {
  const jobs = Math.max(1, Math.min(options.jobs ?? availableParallelism(), specs.length));
  const results: RunResult[] = new Array(specs.length);
  const order = specs.map((_, i) => i).sort((a, b) => weight(specs[b]) - weight(specs[a]));
  let done = 0;
  const source = workerSource();
  if (source === null) {
    // No esbuild: run in this process (through tsx), one run at a time.
    for (const i of order) {
      results[i] = executeRun(specs[i]);
      options.onDone?.(++done, specs.length, results[i]);
    }
    return results;
  }
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: jobs }, () => {
        const worker = new Worker(source.code, { eval: source.eval });
        return new Promise<void>((resolve, reject) => {
          const feed = (): void => {
            if (next >= order.length) {
              void worker.terminate().then(() => resolve());
              return;
            }
            const id = order[next++];
            worker.postMessage({ id, spec: specs[id] });
          };
          worker.on('message', (message: { id: number; result?: RunResult; error?: string }) => {
            if (message.error !== undefined) {
              void worker.terminate();
              reject(new Error(`run ${specs[message.id].scenario} failed in a worker:\n${message.error}`));
              return;
            }
            results[message.id] = message.result!;
            options.onDone?.(++done, specs.length, message.result!);
            feed();
          });
          worker.on('error', reject);
          feed();
        });
      }),
    );
  } finally {
    // The workers loaded the bundle when they started; each call writes it anew.
    rmSync(bundlePath(), { force: true });
  }
  return results;
}
