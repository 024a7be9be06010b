/** Runs one planned run and summarises it (in a worker or in-process). */
import { RunResult, summariseRun } from './results';
import { RunSpec, runSimulation } from './world';

export function executeRun(spec: RunSpec): RunResult {
  return summariseRun(runSimulation(spec));
}
