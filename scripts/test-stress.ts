/**
 * The test suite N times in a row, to catch what fails only sometimes:
 * `npm run test:stress -- --runs 5 --hog`.
 *
 * Each run is `jest` as `npm test` runs it (the typecheck, which cannot
 * flake, runs once first), with its JSON report in a temp dir and its
 * console output in a log file there. Prints one line per run (time,
 * passed/total) and, for each failing test, its file and name and the first
 * lines of its first failure.
 *
 * Options: USAGE below (`--help` prints it).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCommandLine } from './lib/command-line';

const USAGE = `usage: npm run test:stress -- [options] [-- jest args]

  --runs N        runs (default 5)
  --hog           one busy-looping process beside the suite the whole
                  time: a machine with one core taken by another job. It
                  ends with the script, Ctrl-C included, and by itself
                  after --hog-max-s (default 3600) or once orphaned.
  --hog-max-s S   the hog's own time limit, in seconds
  --fresh         every run with an empty jest cache directory: the file
                  order and cold ts-jest compile of a fresh clone (with a
                  warm cache jest runs last run's failures and slowest
                  files first).
  --no-typecheck  skip the tsc run
  --keep          keep the temp dir (reports, logs) even if all runs pass
  --help          this text
  -- ARGS         passed on to jest (e.g. test paths, -t 'name')`;

const { values, positionals } = parseCommandLine(
  'npm run test:stress --',
  {
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '5' },
      hog: { type: 'boolean', default: false },
      'hog-max-s': { type: 'string', default: '3600' },
      fresh: { type: 'boolean', default: false },
      'no-typecheck': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  },
  USAGE,
);

const FAILURE_LINES = 6;
const ROOT = path.resolve(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

function positiveInteger(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}

const runs = positiveInteger('runs', values.runs);
const hogMaxMs = positiveInteger('hog-max-s', values['hog-max-s']) * 1000;

/** Jest's --json report, the parts read here. */
interface JestReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: {
    name: string;
    /** Set when the file itself failed (a hook, a compile error, a crash). */
    failureMessage?: string | null;
    testExecError?: { message?: string } | null;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

interface Failure {
  readonly test: string;
  readonly lines: string[];
}

interface RunResult {
  readonly run: number;
  readonly seconds: number;
  readonly exitCode: number | null;
  readonly passed: number;
  readonly total: number;
  readonly failures: Failure[];
}

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

/** The first meaningful lines of a failure message (the assertion, expected/received), without the stack. */
function firstLines(message: string): string[] {
  return stripAnsi(message)
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !/^\s+at /.test(line))
    .slice(0, FAILURE_LINES);
}

function failuresOf(report: JestReport): Failure[] {
  const failures: Failure[] = [];
  for (const file of report.testResults) {
    const relative = path.relative(ROOT, file.name);
    const failedTests = file.assertionResults.filter((result) => result.status === 'failed');
    for (const result of failedTests) {
      failures.push({ test: `${relative} › ${result.fullName}`, lines: firstLines(result.failureMessages[0] ?? '') });
    }
    const fileError = file.testExecError?.message ?? (failedTests.length === 0 ? file.failureMessage : null);
    if (fileError) {
      failures.push({ test: `${relative} (the file itself)`, lines: firstLines(fileError) });
    }
  }
  return failures;
}

/** The running children, so that Ctrl-C and every exit path can end them. */
const children = new Set<ChildProcess>();

function endChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      // Detached children lead their own process group: end jest's workers and servers with it.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  }
  children.clear();
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the suite${values.hog ? ' and the hog' : ''}`);
    endChildren();
    process.exit(130);
  });
}
process.on('exit', endChildren);

function spawnTracked(command: string, args: string[], options: Parameters<typeof spawn>[2]): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/**
 * A busy loop in its own process, bounded three ways: killed by this
 * script, ended by its own clock, and ended once its parent is gone (if this
 * script is SIGKILLed, nothing else would stop it).
 */
function startHog(): ChildProcess {
  // process.ppid is read once at start-up, so "orphaned" is asked of the kernel: signal 0 to the parent.
  const program = `
    const endAt = Date.now() + ${hogMaxMs};
    const parentAlive = () => { try { process.kill(${process.pid}, 0); return true; } catch { return false; } };
    for (let spins = 1; Date.now() < endAt; spins++) {
      if (spins % 1e6 === 0 && !parentAlive()) break;
    }`;
  return spawnTracked(process.execPath, ['-e', program], { stdio: 'ignore' });
}

function runJest(run: number, dir: string): Promise<RunResult> {
  const reportFile = path.join(dir, `run-${run}.json`);
  const log = fs.openSync(path.join(dir, `run-${run}.log`), 'w');
  const args = [JEST, '--json', `--outputFile=${reportFile}`, ...positionals];
  if (values.fresh) {
    args.push(`--cacheDirectory=${fs.mkdtempSync(path.join(dir, `cache-${run}-`))}`);
  }
  const startedAt = performance.now();
  const child = spawnTracked(process.execPath, args, { cwd: ROOT, stdio: ['ignore', log, log] });
  return new Promise((resolve) => {
    child.on('exit', (exitCode) => {
      fs.closeSync(log);
      const seconds = (performance.now() - startedAt) / 1000;
      let report: JestReport | null = null;
      try {
        report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as JestReport;
      } catch {
        // No report: jest itself failed; the log says why.
      }
      const failures = report
        ? failuresOf(report)
        : [{ test: '(jest wrote no report)', lines: [`exit code ${exitCode}; see ${path.join(dir, `run-${run}.log`)}`] }];
      resolve({
        run,
        seconds,
        exitCode,
        passed: report?.numPassedTests ?? 0,
        total: report?.numTotalTests ?? 0,
        failures,
      });
    });
  });
}

function printRun(result: RunResult): void {
  const verdict = result.exitCode === 0 && result.failures.length === 0 ? 'PASS' : 'FAIL';
  console.log(
    `run ${result.run}/${runs}: ${verdict} ${result.passed}/${result.total} tests in ${result.seconds.toFixed(1)} s` +
      ` (load average ${os.loadavg()[0].toFixed(1)})`,
  );
  for (const failure of result.failures) {
    console.log(`  ✕ ${failure.test}`);
    for (const line of failure.lines) {
      console.log(`      ${line}`);
    }
  }
}

async function main(): Promise<number> {
  if (!values['no-typecheck']) {
    const tsc = spawnSync(process.execPath, [TSC, '--noEmit', '-p', '.'], { cwd: ROOT, stdio: 'inherit' });
    if (tsc.status !== 0) {
      console.error('typecheck failed: not running the suite');
      return 1;
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-stress-'));
  const hog = values.hog ? startHog() : null;
  console.log(
    `${runs} run(s) of jest ${positionals.join(' ')}${hog ? ', a CPU hog beside it' : ''}` +
      `${values.fresh ? ', fresh cache each run' : ''}; ${os.cpus().length} cores; reports and logs in ${dir}`,
  );
  const results: RunResult[] = [];
  for (let run = 1; run <= runs; run++) {
    const result = await runJest(run, dir);
    printRun(result);
    results.push(result);
  }
  endChildren();
  const failed = results.filter((result) => result.exitCode !== 0 || result.failures.length > 0);
  const seconds = results.map((result) => result.seconds);
  console.log(
    `\n${runs - failed.length}/${runs} runs passed; run time ${Math.min(...seconds).toFixed(1)}–${Math.max(...seconds).toFixed(1)} s`,
  );
  const byTest = new Map<string, number[]>();
  for (const result of failed) {
    for (const failure of result.failures) {
      byTest.set(failure.test, [...(byTest.get(failure.test) ?? []), result.run]);
    }
  }
  for (const [test, inRuns] of byTest) {
    console.log(`  ${test}: failed in run(s) ${inRuns.join(', ')}`);
  }
  if (failed.length === 0 && !values.keep) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
