/**
 * A binary min-heap of timed tasks on typed arrays, ordered by (time,
 * insertion sequence) so equal times keep their scheduling order and runs are
 * reproducible. Shared by both schedulers: the virtual one pops tasks as fast
 * as it can, the real-time one arms a single timer for the earliest.
 *
 * Entries live in slots (time, sequence, arg, task); the heap orders slot
 * numbers. A handle is `slot + SLOT_SPACE · generation`, so a handle whose
 * slot has since been reused no longer matches and cancelling it is a no-op.
 * Cancelled entries stay in the heap and are skipped when they surface.
 */
import { Task, TimerHandle } from './scheduler';

const SLOT_SPACE = 1 << 24;

export class EventHeap {
  private timeMs = new Float64Array(1024);
  private sequence = new Float64Array(1024);
  private args = new Float64Array(1024);
  private generation = new Float64Array(1024);
  private tasks: (Task | null)[] = new Array<Task | null>(1024).fill(null);
  private heap = new Int32Array(1024);
  private freeSlots = new Int32Array(1024);
  private freeCount = 0;
  private slotCount = 0;
  private size = 0;
  private nextSequence = 0;
  private live = 0;

  /** Pending (not cancelled) tasks. */
  get pending(): number {
    return this.live;
  }

  push(atMs: number, task: Task, arg: number): TimerHandle {
    const slot = this.allocateSlot();
    this.timeMs[slot] = atMs;
    this.sequence[slot] = this.nextSequence++;
    this.args[slot] = arg;
    this.tasks[slot] = task;
    this.live++;
    let i = this.size++;
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(slot, heap[parent])) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = slot;
    return slot + SLOT_SPACE * this.generation[slot];
  }

  cancel(handle: TimerHandle): void {
    const slot = handle % SLOT_SPACE;
    const generation = Math.floor(handle / SLOT_SPACE);
    if (slot < this.slotCount && this.generation[slot] === generation && this.tasks[slot] !== null) {
      this.tasks[slot] = null;
      this.live--;
    }
  }

  /** Time of the earliest pending task, or Infinity. */
  peekTimeMs(): number {
    this.dropCancelled();
    return this.size > 0 ? this.timeMs[this.heap[0]] : Infinity;
  }

  /**
   * Removes the earliest pending task if it is due at or before `endMs` and
   * returns its slot, else -1. One pass for the hot loop (peek + pop).
   */
  popDue(endMs: number): number {
    const heap = this.heap;
    while (this.size > 0) {
      const top = heap[0];
      if (this.tasks[top] === null) {
        this.release(this.removeTop());
        continue;
      }
      if (this.timeMs[top] > endMs) {
        return -1;
      }
      this.removeTop();
      this.live--;
      return top;
    }
    return -1;
  }

  /**
   * Removes the earliest pending task and returns its slot; read it with
   * `taskOf`/`argOf`/`timeOf` before the next push. -1 if empty.
   */
  popSlot(): number {
    this.dropCancelled();
    if (this.size === 0) {
      return -1;
    }
    const slot = this.removeTop();
    this.live--;
    return slot;
  }

  taskOf(slot: number): Task {
    return this.tasks[slot] as Task;
  }
  argOf(slot: number): number {
    return this.args[slot];
  }
  timeOf(slot: number): number {
    return this.timeMs[slot];
  }

  /** Returns a popped slot to the free list (after its task has been read). */
  release(slot: number): void {
    this.tasks[slot] = null;
    this.generation[slot]++;
    if (this.freeCount === this.freeSlots.length) {
      this.freeSlots = grow(this.freeSlots);
    }
    this.freeSlots[this.freeCount++] = slot;
  }

  private dropCancelled(): void {
    while (this.size > 0 && this.tasks[this.heap[0]] === null) {
      this.release(this.removeTop());
    }
  }

  private removeTop(): number {
    const heap = this.heap;
    const timeMs = this.timeMs;
    const sequence = this.sequence;
    const top = heap[0];
    const last = heap[--this.size];
    const lastMs = timeMs[last];
    const lastSeq = sequence[last];
    let i = 0;
    const size = this.size;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      let childSlot = heap[child];
      if (child + 1 < size) {
        const right = heap[child + 1];
        const rightMs = timeMs[right];
        const leftMs = timeMs[childSlot];
        if (rightMs < leftMs || (rightMs === leftMs && sequence[right] < sequence[childSlot])) {
          child++;
          childSlot = right;
        }
      }
      const childMs = timeMs[childSlot];
      if (childMs > lastMs || (childMs === lastMs && sequence[childSlot] > lastSeq)) {
        break;
      }
      heap[i] = childSlot;
      i = child;
    }
    if (size > 0) {
      heap[i] = last;
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    const ta = this.timeMs[a];
    const tb = this.timeMs[b];
    return ta < tb || (ta === tb && this.sequence[a] < this.sequence[b]);
  }

  private allocateSlot(): number {
    if (this.freeCount > 0) {
      return this.freeSlots[--this.freeCount];
    }
    if (this.slotCount === this.timeMs.length) {
      const capacity = this.timeMs.length * 2;
      if (capacity > SLOT_SPACE) {
        throw new RangeError(`EventHeap: more than ${SLOT_SPACE} pending tasks`);
      }
      this.timeMs = growF64(this.timeMs);
      this.sequence = growF64(this.sequence);
      this.args = growF64(this.args);
      this.generation = growF64(this.generation);
      this.heap = grow(this.heap);
      this.tasks.length = capacity;
      this.tasks.fill(null, this.slotCount);
    }
    return this.slotCount++;
  }
}

function grow(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

function growF64(array: Float64Array): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(array.length * 2);
  bigger.set(array);
  return bigger;
}
