/**
 * The clients' open-loop arrivals as one event source: a small min-heap of
 * clients by their next intended send time (ties by client index), fed to
 * the scheduler outside its main heap. Each arrival costs one sift instead of
 * a main-heap push and pop.
 */
import { EventSource } from '../model/virtual-scheduler';

export class ArrivalCalendar implements EventSource {
  nextMs = Infinity;
  private readonly times: Float64Array;
  private readonly heap: Int32Array;
  private size = 0;

  /** `onArrival(client)` sends that client's call and returns its next send time (Infinity: done). */
  constructor(
    clientCount: number,
    private readonly onArrival: (client: number) => number,
  ) {
    this.times = new Float64Array(clientCount).fill(Infinity);
    this.heap = new Int32Array(clientCount);
  }

  /** Adds a client with its first send time. */
  add(client: number, firstMs: number): void {
    this.times[client] = firstMs;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(client, this.heap[parent])) {
        break;
      }
      this.heap[i] = this.heap[parent];
      i = parent;
    }
    this.heap[i] = client;
    this.nextMs = this.times[this.heap[0]];
  }

  fire(): void {
    const client = this.heap[0];
    this.times[client] = this.onArrival(client);
    // Sift the same client down from the root.
    const heap = this.heap;
    const size = this.size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && this.before(heap[child + 1], heap[child])) {
        child++;
      }
      if (!this.before(heap[child], client)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = client;
    this.nextMs = this.times[heap[0]];
  }

  private before(a: number, b: number): boolean {
    const ta = this.times[a];
    const tb = this.times[b];
    return ta < tb || (ta === tb && a < b);
  }
}
