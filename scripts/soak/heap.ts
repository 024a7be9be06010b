/**
 * Heap figures after a forced garbage collection. Works without starting
 * node with --expose-gc: the flag can be set at run time and `gc` fetched
 * from a fresh context.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

function forcedGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) {
    return exposed;
  }
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** heapUsed in bytes after full collections (two: the first may leave finalisable garbage). */
export function heapUsedAfterGc(): number {
  const gc = forcedGc();
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
