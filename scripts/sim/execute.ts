/** Runs one planned run and summarises it (in a worker or in-process). */
import { RunResult, summariseRun } from './results';
import { RunSpec, runSimulation } from './world';

export function executeRun(spec: RunSpec): RunResult {
  const cpuBefore = process.cpuUsage();
  const output = runSimulation(spec);
  const cpu = process.cpuUsage(cpuBefore);
  return summariseRun(output, (cpu.user + cpu.system) / 1000);
}
