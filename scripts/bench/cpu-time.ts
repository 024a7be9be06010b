/**
 * CPU time per call of a tight loop, for the micro-benchmarks that compare
 * variants side by side (method-pick.ts, engine-ab.ts). Measured in this
 * thread's CPU time (`process.cpuUsage`), so time the process spends
 * preempted on a busy machine does not count.
 */

// What the timed calls return, kept so the compiler cannot drop them.
let lastResult: unknown = null;

/** ns of CPU per call of `call(0 … calls − 1)`. */
export function cpuNsPerCall(calls: number, call: (i: number) => unknown): number {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    lastResult = call(i);
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1e3) / calls;
}

/** What the last timed call returned (null before any): a benchmark checks it ran what it meant to. */
export function lastTimedResult(): unknown {
  return lastResult;
}
