/** What the numbers were measured on, for the report. */
import * as os from 'os';
import * as fs from 'fs';
import * as path from 'path';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cpus: number;
  readonly memoryGiB: number;
  readonly platform: string;
  readonly node: string;
  readonly grpcJs: string;
  readonly loadAverage: readonly number[];
}

function packageVersion(name: string): string {
  try {
    const file = require.resolve(`${name}/package.json`);
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function machineDescription(): MachineDescription {
  return {
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    grpcJs: packageVersion('@grpc/grpc-js'),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** The repository's commit, for the report ("unknown" outside git). */
export function gitCommit(repoRoot: string): string {
  try {
    const head = fs.readFileSync(path.join(repoRoot, '.git', 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head.slice(0, 12);
    const ref = fs.readFileSync(path.join(repoRoot, '.git', head.slice(5)), 'utf8').trim();
    return ref.slice(0, 12);
  } catch {
    return 'unknown';
  }
}
