/**
 * Runs an example the way its header says (`npx tsx examples/<name>.ts`), as
 * a child process with a time limit, and returns what it printed.
 */
import { spawn } from 'child_process';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface ExampleRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
}

export function runExample(file: string, env: Record<string, string> = {}, timeoutMs = 45_000): Promise<ExampleRun> {
  const startedAt = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), file], {
      cwd: ROOT,
      env: { ...process.env, GRPC_TRACE: '', GRPC_VERBOSITY: 'ERROR', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // An example that does not exit by itself is a failure, not a hang.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, elapsedMs: Date.now() - startedAt });
    });
  });
}

/** Fails with the example's own output when it did not exit 0. */
export function expectCleanExit(run: ExampleRun): void {
  if (run.code !== 0) {
    throw new Error(`exit code ${run.code} signal ${run.signal}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
  }
}

/**
 * Runs `check`; if it throws, adds the example's stdout (its stats tables:
 * estimates, costs, last samples) to the error, so that a failure on a
 * loaded machine shows why, not only the counts.
 */
export function withOutputOnFailure(run: ExampleRun, check: () => void): void {
  try {
    check();
  } catch (error) {
    (error as Error).message += `\n--- example stdout (${run.elapsedMs} ms)\n${run.stdout}`;
    throw error;
  }
}
