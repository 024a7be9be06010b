/**
 * A backend under churn: a plain server that drains gracefully, or one behind
 * a crashable relay (test/reliability/support/crashable-backend.ts) for hard
 * kills.
 */
import { TestBackend } from '../../test/support/backends';
import { CrashableBackend } from '../../test/reliability/support/crashable-backend';

export type ChurnMode = 'graceful' | 'hard';

export interface ChurnBackend {
  /** What clients dial. */
  readonly address: string;
  /** The server behind it (its inFlight count is what the client's outstanding is checked against). */
  readonly server: TestBackend;
  /** Graceful: drain (GOAWAY, in-flight calls finish); crashable: stop. */
  retire(): Promise<void>;
  /** Hard mode only: reset every connection, close the port. */
  crash?(): void;
}

export async function startChurnBackend(mode: ChurnMode, id: string, delayMs: number): Promise<ChurnBackend> {
  if (mode === 'graceful') {
    const server = await new TestBackend(id).start();
    server.behaviour.delayMs = delayMs;
    return { address: server.address, server, retire: () => server.drain() };
  }
  const crashable = await new CrashableBackend(id).start();
  crashable.backend.behaviour.delayMs = delayMs;
  return {
    address: crashable.address,
    server: crashable.backend,
    retire: async () => crashable.stop(),
    crash: () => crashable.crash(),
  };
}
