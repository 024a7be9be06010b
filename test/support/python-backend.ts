/**
 * Probe backends served by Python (grpcio, gRPC C-core), each a child
 * process running scripts/lib/python-probe-server.py under Debian's
 * /usr/bin/python3: the one-worker pods of a mixed-language fleet.
 *
 * Every start and stop is bounded: start() kills the child if it has not
 * printed its port within the timeout; stop() closes stdin (the server exits
 * on EOF), sends SIGTERM after `timeoutMs` and SIGKILL after as long again.
 * A child still alive when this process exits is SIGKILLed, and a child
 * whose parent dies sees EOF on stdin and exits by itself.
 */
import { ChildProcessWithoutNullStreams, spawn } from 'child_process';
import * as path from 'path';
import { createInterface } from 'readline';
import { DEBIAN_PYTHON } from '../xds/support/foreign-client';

export { cCoreVersion, DEBIAN_PYTHON, describeWithCCore } from '../xds/support/foreign-client';

const SERVER_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'lib', 'python-probe-server.py');

export interface PythonBackendOptions {
  /** Worker threads (ThreadPoolExecutor max_workers): calls served at once. Default 1. */
  workers?: number;
  /** grpcio's maximum_concurrent_rpcs: calls beyond it are answered RESOURCE_EXHAUSTED at once. */
  maxConcurrentRpcs?: number;
  /** Each call's service time in ms (the median, with `sigma`). Default 10. */
  serviceMs?: number;
  /** Log-normal shape of the service time; 0 (default) = fixed. */
  sigma?: number;
  seed?: number;
}

export interface PythonBackendStats {
  /** Calls the handler ran (not those refused by maxConcurrentRpcs). */
  handled: number;
  /** The most handlers running at once. */
  maxActive: number;
}

/** Children not yet known to have exited: killed when this process exits. */
const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

function track(child: ChildProcessWithoutNullStreams): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const orphan of live) orphan.kill('SIGKILL');
    });
  }
}

export class PythonBackend {
  private readonly pending: ((line: string) => void)[] = [];
  private readonly stderr: string[] = [];
  private readonly exited: Promise<void>;
  port = 0;
  grpcVersion = '';

  private constructor(
    readonly id: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    createInterface({ input: child.stdout }).on('line', (line) => this.pending.shift()?.(line));
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString('utf8')));
    child.stdin.on('error', () => undefined); // EPIPE if it died: exit and stderr tell why
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Starts a server answering `id`; resolves once it serves (it has printed its port). */
  static async start(id: string, options: PythonBackendOptions = {}, timeoutMs = 30_000): Promise<PythonBackend> {
    const args = [SERVER_SCRIPT, id, '--workers', String(options.workers ?? 1), '--service-ms', String(options.serviceMs ?? 10)];
    if (options.maxConcurrentRpcs !== undefined) args.push('--max-concurrent-rpcs', String(options.maxConcurrentRpcs));
    if (options.sigma !== undefined) args.push('--sigma', String(options.sigma));
    if (options.seed !== undefined) args.push('--seed', String(options.seed));
    const child = spawn(DEBIAN_PYTHON, args, { env: { ...process.env, GRPC_VERBOSITY: 'NONE' } });
    track(child);
    const backend = new PythonBackend(id, child);
    try {
      const ready = JSON.parse(await backend.nextLine(timeoutMs)) as { port: number; grpc: string };
      backend.port = ready.port;
      backend.grpcVersion = ready.grpc;
      return backend;
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  /** What the server's handler saw so far. */
  async stats(timeoutMs = 10_000): Promise<PythonBackendStats> {
    const reply = this.nextLine(timeoutMs);
    this.child.stdin.write('stats\n');
    return JSON.parse(await reply) as PythonBackendStats;
  }

  /** Stops the server (EOF, then SIGTERM, then SIGKILL, `timeoutMs` apart) and waits for it to exit. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      return;
    }
    this.child.stdin.end();
    const term = setTimeout(() => this.child.kill('SIGTERM'), timeoutMs);
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 2 * timeoutMs);
    await this.exited;
    clearTimeout(term);
    clearTimeout(kill);
  }

  private nextLine(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`python backend ${this.id} exited (${code}); stderr: ${this.stderr.join('')}`));
      };
      const timer = setTimeout(() => {
        this.child.off('exit', onExit);
        this.pending.splice(this.pending.indexOf(onLine), 1);
        reject(new Error(`python backend ${this.id} sent nothing in ${timeoutMs} ms; stderr: ${this.stderr.join('')}`));
      }, timeoutMs);
      const onLine = (line: string) => {
        clearTimeout(timer);
        this.child.off('exit', onExit);
        resolve(line);
      };
      this.child.once('exit', onExit);
      this.pending.push(onLine);
    });
  }
}

/** Starts `count` backends `${prefix}0`…; if one fails to start, stops those that did and throws. */
export async function startPythonBackends(count: number, prefix: string, options: PythonBackendOptions = {}): Promise<PythonBackend[]> {
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => PythonBackend.start(`${prefix}${i}`, { seed: i + 1, ...options })),
  );
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await stopPythonBackends(started);
    throw failed.reason;
  }
  return started;
}

export async function stopPythonBackends(backends: readonly PythonBackend[]): Promise<void> {
  await Promise.all(backends.map((backend) => backend.stop()));
}
