/** A pool worker: runs the specs it is sent, one at a time. */
import { parentPort } from 'node:worker_threads';
import { executeRun } from './execute';
import { RunSpec } from './world';

parentPort!.on('message', (message: { id: number; spec: RunSpec }) => {
  try {
    parentPort!.postMessage({ id: message.id, result: executeRun(message.spec) });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: (error as Error).stack ?? String(error) });
  }
});
