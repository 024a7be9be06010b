/**
 * The clients' open-loop arrivals as one event source: the clients in a
 * ring sorted by their next intended send time (ties by client index), fed
 * to the scheduler outside its event queue.
 *
 * Why a sorted ring and not a heap: with fixed spacing every client sends
 * every period, so the client that just sent is due after every other one
 * (each of them sends again within a period of its last send). Its new time
 * therefore belongs at the back, and an insertion that walks from the back
 * stops at once: an arrival costs O(1) where a heap sifts the client down
 * through every level. Poisson gaps walk further; the order is the same
 * either way.
 */
import { EventSource } from '../model/virtual-scheduler';

/** How clients space their calls (RunSpec.arrivals): a fixed period, Poisson gaps, or callers that wait (closed-loop.ts). */
export type ArrivalMode = 'fixed' | 'poisson' | 'closed';
export const ARRIVAL_MODES: readonly ArrivalMode[] = ['fixed', 'poisson', 'closed'];

/**
 * `--arrivals` and `--workers` as the simulator's commands take them; absent
 * stays absent, so a default run's spec is unchanged.
 */
export function parseArrivalFlags(arrivalsText?: string, workersText?: string): { arrivals?: ArrivalMode; workers?: number } {
  const arrivals = ARRIVAL_MODES.find((mode) => mode === arrivalsText);
  if (arrivalsText !== undefined && arrivals === undefined) {
    throw new RangeError(`--arrivals must be one of ${ARRIVAL_MODES.join(', ')}, got "${arrivalsText}"`);
  }
  if (workersText === undefined) {
    return arrivals === undefined ? {} : { arrivals };
  }
  const workers = Number(workersText);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError(`--workers must be an integer >= 1, got "${workersText}"`);
  }
  if (arrivals !== 'closed') {
    throw new RangeError(`--workers is for --arrivals closed, got --arrivals ${arrivals ?? 'fixed'}`);
  }
  return { arrivals, workers };
}

/** An exponential gap of mean `meanMs` from the uniform draw `u` in [0, 1): Poisson arrivals and closed-loop think times. */
export function exponentialMs(meanMs: number, u: number): number {
  return meanMs > 0 ? -Math.log(1 - u) * meanMs : 0;
}

export class ArrivalCalendar implements EventSource {
  nextMs = Infinity;
  private readonly times: Float64Array;
  /** Client ids by (next time, id), from `head`, `size` of them (capacity a power of two). */
  private readonly ring: Int32Array;
  private readonly mask: number;
  private head = 0;
  private size = 0;

  /** `onArrival(client)` sends that client's call and returns its next send time (Infinity: done). */
  constructor(
    clientCount: number,
    private readonly onArrival: (client: number) => number,
  ) {
    this.times = new Float64Array(clientCount).fill(Infinity);
    const capacity = 2 ** Math.ceil(Math.log2(Math.max(2, clientCount)));
    this.ring = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Adds a client with its first send time. */
  add(client: number, firstMs: number): void {
    this.times[client] = firstMs;
    this.insertFromBack(client);
  }

  fire(): void {
    const client = this.ring[this.head];
    this.head = (this.head + 1) & this.mask;
    this.size--;
    const nextMs = this.onArrival(client);
    this.times[client] = nextMs;
    if (nextMs !== Infinity) {
      this.insertFromBack(client);
    } else {
      this.nextMs = this.size > 0 ? this.times[this.ring[this.head]] : Infinity;
    }
  }

  private insertFromBack(client: number): void {
    const ring = this.ring;
    const mask = this.mask;
    let at = this.size;
    while (at > 0 && this.before(client, ring[(this.head + at - 1) & mask])) {
      ring[(this.head + at) & mask] = ring[(this.head + at - 1) & mask];
      at--;
    }
    ring[(this.head + at) & mask] = client;
    this.size++;
    this.nextMs = this.times[ring[this.head]];
  }

  private before(a: number, b: number): boolean {
    const ta = this.times[a];
    const tb = this.times[b];
    return ta < tb || (ta === tb && a < b);
  }
}
