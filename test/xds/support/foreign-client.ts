/**
 * xDS clients other than this process's grpc-js + registerXds(), each in a
 * child process speaking the line protocol of scripts/xds/ccore-client.py:
 * gRPC C-core (Debian's python3-grpcio) and grpc-js with @grpc/grpc-js-xds
 * alone (scripts/xds/plain-client.ts). Each gets its own bootstrap with its
 * own node.id, so the fake control plane can tell their ACKs and NACKs apart.
 */
import { ChildProcessWithoutNullStreams, spawn, spawnSync } from 'child_process';
import * as path from 'path';
import { createInterface, Interface } from 'readline';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
/** Debian's interpreter: python3-grpcio is installed for it, not for a python3 earlier on PATH. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** c-core-a52: C-core with gRFC A52 (load_balancing_policy) switched on; 1.51 has it off by default. */
export type ForeignKind = 'c-core' | 'c-core-a52' | 'grpc-js';

export interface RunSummary {
  servedBy: Record<string, number>;
  failures: Record<string, number>;
}

/** The grpcio version Debian's python3 imports, or null if it has none. */
export function cCoreVersion(): string | null {
  const result = spawnSync(DEBIAN_PYTHON, ['-c', 'import grpc; print(grpc.__version__)'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : null;
}

/**
 * Whether C-core tests run here: always in CI (CI=true; a missing grpcio then
 * fails the test instead of skipping it), elsewhere only if it is installed.
 */
export function cCoreTestsEnabled(): boolean {
  return process.env.CI === 'true' || cCoreVersion() !== null;
}

/**
 * `describe` where C-core tests run, else `describe.skip` with a warning
 * naming `file`: jest alone shows a skip only as a count, and a local run
 * without python3-grpcio would pass having tested none of it.
 */
export function describeWithCCore(file: string): jest.Describe {
  if (cCoreTestsEnabled()) {
    return describe;
  }
  console.warn(`${file}: python3-grpcio is not installed, so its C-core tests are SKIPPED (CI=true requires them)`);
  return describe.skip;
}

export class ForeignClient {
  private readonly lines: Interface;
  private readonly pending: ((line: string) => void)[] = [];
  private readonly stderr: string[] = [];

  private constructor(
    readonly kind: ForeignKind,
    readonly nodeId: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => this.pending.shift()?.(line));
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString('utf8')));
  }

  /** Starts a client of `target` bootstrapped with `bootstrap` (its node.id is replaced by `nodeId`). */
  static async start(kind: ForeignKind, target: string, bootstrap: object, nodeId: string, deadlineSeconds = 2): Promise<ForeignClient> {
    const env = {
      ...process.env,
      GRPC_XDS_BOOTSTRAP_CONFIG: JSON.stringify({ ...bootstrap, node: { id: nodeId, locality: {} } }),
      GRPC_VERBOSITY: 'NONE',
      ...(kind === 'c-core-a52' ? { GRPC_EXPERIMENTAL_XDS_CUSTOM_LB_CONFIG: 'true' } : {}),
    };
    const child =
      kind !== 'grpc-js'
        ? spawn(DEBIAN_PYTHON, [path.join(REPO_ROOT, 'scripts', 'xds', 'ccore-client.py'), target, String(deadlineSeconds)], { env })
        : spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), [path.join(REPO_ROOT, 'scripts', 'xds', 'plain-client.ts'), target, String(deadlineSeconds)], { env, cwd: REPO_ROOT });
    const client = new ForeignClient(kind, nodeId, child);
    await client.nextLine(60_000); // {"ready": version}
    return client;
  }

  /** Makes `count` sequential calls in the child; resolves to where they went and how they failed. */
  async run(count: number, timeoutMs = 60_000): Promise<RunSummary> {
    const reply = this.nextLine(timeoutMs);
    this.child.stdin.write(`run ${count}\n`);
    return JSON.parse(await reply) as RunSummary;
  }

  private nextLine(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.kind} client sent nothing in ${timeoutMs} ms; stderr: ${this.stderr.join('')}`)), timeoutMs);
      const onExit = (code: number | null) => reject(new Error(`${this.kind} client exited (${code}); stderr: ${this.stderr.join('')}`));
      this.child.once('exit', onExit);
      this.pending.push((line) => {
        clearTimeout(timer);
        this.child.off('exit', onExit);
        resolve(line);
      });
    });
  }

  /** Ends the child (EOF on stdin) and waits for it, killing it after 10 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) {
      return;
    }
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
