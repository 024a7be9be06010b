/**
 * Child process hosting several load-test backends (probe-backend.ts) under
 * one RealTimeScheduler, driven by the parent over IPC: start, change
 * behaviour (fault phases), add and retire backends (churn), restart one in
 * place (s19), report stats.
 */
import { seededRandom } from '../../src/core/random';
import { BackendSpec, FromBackendHost, ToBackendHost } from './ipc';
import { LogicalClockScheduler } from './logical-scheduler';
import { loopDelayOf, newLoopDelayMonitor } from './loop-delay';
import { ProbeBackend } from './probe-backend';

const scheduler = new LogicalClockScheduler();
const backends = new Map<string, ProbeBackend>();
let orca = false;
let maxConnectionAgeMs: number | undefined;
let methodNames: readonly string[] = [];

function send(message: FromBackendHost): void {
  process.send?.(message);
}

async function startBackends(specs: readonly BackendSpec[]): Promise<Record<string, number>> {
  const ports: Record<string, number> = {};
  for (const spec of specs) {
    const backend = new ProbeBackend({
      id: spec.id,
      scheduler,
      random: seededRandom(spec.seed),
      behaviour: spec.behaviour,
      gcPhaseMs: spec.gcPhaseMs,
      orca,
      maxConnectionAgeMs,
      methodNames,
    });
    ports[spec.id] = await backend.start();
    backends.set(spec.id, backend);
  }
  return ports;
}

const loopDelay = newLoopDelayMonitor();
loopDelay.enable();

const loadTimer = setInterval(() => {
  for (const backend of backends.values()) {
    backend.sampleLoad();
  }
}, 100);

async function handle(message: ToBackendHost): Promise<void> {
  switch (message.type) {
    case 'start':
      orca = message.orca;
      maxConnectionAgeMs = message.maxConnectionAgeMs;
      methodNames = message.methodNames ?? [];
      send({ type: 'listening', ports: await startBackends(message.backends) });
      return;
    case 'add':
      send({ type: 'listening', ports: await startBackends(message.backends) });
      return;
    case 'set':
      for (const id of message.ids) {
        backends.get(id)?.setBehaviour(message.patch);
      }
      return;
    case 'retire':
      await Promise.all(
        message.ids.map(async (id) => {
          const backend = backends.get(id);
          backends.delete(id);
          await backend?.stop(message.graceMs);
        }),
      );
      return;
    case 'restart': {
      const backend = backends.get(message.id);
      if (backend === undefined) throw new Error(`restart: no backend ${message.id} on this host`);
      await backend.restartInPlace(message.downMs, message.graceMs).catch((error: unknown) => {
        throw new Error(`restart in place of ${message.id}: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    case 'stats':
      send({
        type: 'stats',
        stats: Array.from(backends.values(), (b) => b.stats()),
        loopDelayMs: loopDelayOf(loopDelay),
      });
      loopDelay.reset();
      return;
    case 'stop':
      clearInterval(loadTimer);
      scheduler.stop();
      await Promise.all(Array.from(backends.values(), (b) => b.stop(0)));
      send({ type: 'done' });
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: ToBackendHost) => {
  handle(message).catch((error: unknown) => {
    process.send?.({ type: 'error', message: error instanceof Error ? error.stack ?? error.message : String(error) });
  });
});
// The parent going away ends the host.
process.on('disconnect', () => process.exit(0));
