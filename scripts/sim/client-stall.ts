/**
 * The client's own pauses: a Node.js client stops for a garbage collection
 * or a busy event loop, and every answer that arrives meanwhile is seen only
 * when it resumes. Each such answer's latency includes the pause, on
 * whichever endpoint served it, so latency-aware policies read a pause as
 * slowness of the endpoints that happened to have calls in flight.
 *
 * Off by default (the reference's clients do not pause). With `--client-stall
 * MS/EVERY`, each client pauses MS ms once every EVERY ms, at its own phase
 * (drawn from the run's seed), and an answer that reaches a paused client is
 * handled when the pause ends. What is not modelled: calls a paused client
 * would have sent are still sent on time, and deadlines still fire on time.
 */
import { seededRandom } from '../../src/core/random';
import { seedFor } from './seeds';

export interface ClientStall {
  /** How long each pause lasts. */
  readonly ms: number;
  /** One pause per this many ms, per client. */
  readonly everyMs: number;
}

/** "MS/EVERY" (e.g. "50/1000") → a ClientStall; a clear error naming the flag otherwise. */
export function parseClientStall(text: string): ClientStall {
  const match = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  const ms = match ? Number(match[1]) : NaN;
  const everyMs = match ? Number(match[2]) : NaN;
  if (!(ms > 0) || !(everyMs > ms)) {
    throw new RangeError(`--client-stall must be MS/EVERY with 0 < MS < EVERY (ms), e.g. 50/1000, got "${text}"`);
  }
  return { ms, everyMs };
}

/** When each client of a run is paused. */
export class StallSchedule {
  private readonly phaseMs: Float64Array;

  constructor(
    private readonly stall: ClientStall,
    clientCount: number,
    seed: number,
  ) {
    this.phaseMs = new Float64Array(clientCount);
    for (let c = 0; c < clientCount; c++) {
      this.phaseMs[c] = seededRandom(seedFor(seed, 'client-stall', c))() * stall.everyMs;
    }
  }

  /** How long client `client` stays paused from `nowMs` (0: it is running). */
  remainingMs(client: number, nowMs: number): number {
    const intoPeriodMs = (nowMs + this.phaseMs[client]) % this.stall.everyMs;
    return intoPeriodMs < this.stall.ms ? this.stall.ms - intoPeriodMs : 0;
  }
}
