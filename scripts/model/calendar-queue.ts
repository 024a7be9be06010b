/**
 * Timed tasks in a calendar queue (R. Brown, CACM 1988): time is cut into
 * buckets `bucketMs` wide and a ring of `horizonMs / bucketMs` buckets holds
 * the tasks due within the horizon, each bucket a list sorted by (time,
 * insertion sequence); tasks due later wait in an unsorted overflow list
 * until the horizon reaches them. Shared by both schedulers: the virtual one
 * pops tasks as fast as it can, the real-time one arms a timer for the
 * earliest.
 *
 * Why not a binary heap (what this replaced): the simulator keeps a few
 * hundred calls in service, and a heap pays ~log2(n) hard-to-predict
 * comparisons per pop — about a fifth of a round_robin run's CPU in a
 * profile. Here a push walks a bucket of about two tasks and a pop takes a
 * list head, so both are O(1) while the bucket width is near the mean gap
 * between tasks; the order is exactly the heap's, (time, sequence), so
 * results do not change.
 *
 * Bucket numbers are stored per task, so the order never depends on
 * re-deriving a bucket from a time. The scan cursor is the lowest bucket that
 * may hold a task; a push before it (the clock runs behind the cursor when
 * the scheduler's other event source fires in between) moves it back. The
 * ring may then hold a task a whole ring ahead of the cursor in the same
 * list; its bucket number tells it apart, and the sorted order keeps it
 * behind the tasks that are due.
 *
 * A handle is `slot + SLOT_SPACE · generation`, so a handle whose slot has
 * since been reused no longer matches and cancelling it is a no-op.
 * Cancelled tasks stay queued and are dropped when they surface.
 */
import { Task, TimerHandle } from './scheduler';
import { resized } from './typed-arrays';

const SLOT_SPACE = 1 << 24;
const NONE = -1;

export interface CalendarQueueOptions {
  /**
   * Bucket width, ms (default 1/8). Fastest at about two tasks per bucket
   * (measured): wider buckets make pushes walk longer lists, narrower ones
   * make pops step over more empty buckets. A power of two keeps bucket
   * boundaries exact; any width gives the same order.
   */
  bucketMs?: number;
  /** How far ahead of the cursor the ring reaches, ms (rounded up to a power-of-two bucket count). */
  horizonMs?: number;
}

export class CalendarQueue {
  private timeMs = new Float64Array(1024);
  private sequence = new Float64Array(1024);
  private bucket = new Float64Array(1024);
  private args = new Float64Array(1024);
  private generation = new Float64Array(1024);
  private tasks: (Task | null)[] = new Array<Task | null>(1024).fill(null);
  /** The next task in the same list (bucket or overflow), or NONE. */
  private next = new Int32Array(1024);
  private freeSlots = new Int32Array(1024);
  private freeCount = 0;
  private slotCount = 0;
  private nextSequence = 0;
  private live = 0;

  private readonly bucketsPerMs: number;
  private readonly heads: Int32Array;
  private readonly mask: number;
  /** Tasks in the ring (including cancelled ones not yet dropped). */
  private ringCount = 0;
  private cursor = 0;
  private overflowHead = NONE;
  /** The lowest bucket in the overflow list (Infinity: empty). */
  private overflowMinBucket = Infinity;

  constructor(options: CalendarQueueOptions = {}) {
    const bucketMs = options.bucketMs ?? 1 / 8;
    const horizonMs = options.horizonMs ?? 1024;
    if (!(bucketMs > 0) || !Number.isFinite(bucketMs)) {
      throw new RangeError(`CalendarQueue: bucketMs must be a finite number > 0, got ${bucketMs}`);
    }
    if (!(horizonMs >= bucketMs) || !Number.isFinite(horizonMs)) {
      throw new RangeError(`CalendarQueue: horizonMs must be finite and at least bucketMs, got ${horizonMs}`);
    }
    this.bucketsPerMs = 1 / bucketMs;
    const size = 2 ** Math.min(24, Math.ceil(Math.log2(horizonMs / bucketMs)));
    this.heads = new Int32Array(size).fill(NONE);
    this.mask = size - 1;
  }

  /** Pending (not cancelled) tasks. */
  get pending(): number {
    return this.live;
  }

  push(atMs: number, task: Task, arg: number): TimerHandle {
    if (!Number.isFinite(atMs)) {
      throw new RangeError(`CalendarQueue: a task's time must be finite, got ${atMs}`);
    }
    const slot = this.allocateSlot();
    const bucket = Math.floor(atMs * this.bucketsPerMs);
    this.timeMs[slot] = atMs;
    this.sequence[slot] = this.nextSequence++;
    this.bucket[slot] = bucket;
    this.args[slot] = arg;
    this.tasks[slot] = task;
    this.live++;
    if (bucket < this.cursor) {
      this.cursor = bucket;
    }
    if (bucket - this.cursor <= this.mask) {
      this.insertInRing(slot);
    } else {
      this.next[slot] = this.overflowHead;
      this.overflowHead = slot;
      if (bucket < this.overflowMinBucket) {
        this.overflowMinBucket = bucket;
      }
    }
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
    const slot = this.firstSlot(Infinity);
    return slot < 0 ? Infinity : this.timeMs[slot];
  }

  /**
   * Removes the earliest pending task if it is due at or before `endMs` and
   * returns its slot, else -1. Read it with `taskOf`/`argOf`/`timeOf`, then
   * `release` it.
   */
  popDue(endMs: number): number {
    const slot = this.firstSlot(endMs);
    if (slot < 0 || this.timeMs[slot] > endMs) {
      return -1;
    }
    this.heads[this.bucket[slot] & this.mask] = this.next[slot];
    this.ringCount--;
    this.live--;
    return slot;
  }

  /** Removes the earliest pending task and returns its slot, or -1 if there is none. */
  popSlot(): number {
    return this.popDue(Infinity);
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
      this.freeSlots = resized(this.freeSlots, this.freeSlots.length * 2);
    }
    this.freeSlots[this.freeCount++] = slot;
  }

  /**
   * The earliest pending task, left in place at the head of the cursor's
   * bucket, or -1 if none starts before the bucket after `endMs`'s. Drops
   * cancelled tasks on the way.
   */
  private firstSlot(endMs: number): number {
    const heads = this.heads;
    const bucketOf = this.bucket;
    const endBucket = endMs * this.bucketsPerMs;
    for (;;) {
      if (this.ringCount === 0) {
        if (this.overflowHead === NONE || this.overflowMinBucket > endBucket) {
          return -1;
        }
        // Nothing within the horizon: jump to the overflow's first bucket.
        this.cursor = this.overflowMinBucket;
        this.migrateOverflow();
      }
      const cursor = this.cursor;
      const head = heads[cursor & this.mask];
      if (head !== NONE && bucketOf[head] === cursor) {
        if (this.tasks[head] !== null) {
          return head;
        }
        heads[cursor & this.mask] = this.next[head];
        this.ringCount--;
        this.release(head);
        continue;
      }
      if (cursor > endBucket) {
        return -1;
      }
      this.cursor = cursor + 1;
      if (this.overflowMinBucket - this.cursor <= this.mask) {
        this.migrateOverflow();
      }
    }
  }

  /** Inserts `slot` into its bucket's list, after every task due before it or at the same time. */
  private insertInRing(slot: number): void {
    const index = this.bucket[slot] & this.mask;
    const timeMs = this.timeMs;
    const atMs = timeMs[slot];
    const next = this.next;
    let previous = NONE;
    let current = this.heads[index];
    // A new task has the highest sequence, but one moved from the overflow
    // may not: compare sequences on equal times.
    while (current !== NONE && (timeMs[current] < atMs || (timeMs[current] === atMs && this.sequence[current] < this.sequence[slot]))) {
      previous = current;
      current = next[current];
    }
    next[slot] = current;
    if (previous === NONE) {
      this.heads[index] = slot;
    } else {
      next[previous] = slot;
    }
    this.ringCount++;
  }

  /** Moves overflow tasks now within the horizon into the ring. */
  private migrateOverflow(): void {
    let kept = NONE;
    let minBucket = Infinity;
    let slot = this.overflowHead;
    while (slot !== NONE) {
      const following = this.next[slot];
      const bucket = this.bucket[slot];
      if (this.tasks[slot] === null) {
        this.release(slot);
      } else if (bucket - this.cursor <= this.mask) {
        this.insertInRing(slot);
      } else {
        this.next[slot] = kept;
        kept = slot;
        if (bucket < minBucket) {
          minBucket = bucket;
        }
      }
      slot = following;
    }
    this.overflowHead = kept;
    this.overflowMinBucket = minBucket;
  }

  private allocateSlot(): number {
    if (this.freeCount > 0) {
      return this.freeSlots[--this.freeCount];
    }
    if (this.slotCount === this.timeMs.length) {
      const capacity = this.timeMs.length * 2;
      if (capacity > SLOT_SPACE) {
        throw new RangeError(`CalendarQueue: more than ${SLOT_SPACE} pending tasks`);
      }
      this.timeMs = resized(this.timeMs, capacity);
      this.sequence = resized(this.sequence, capacity);
      this.bucket = resized(this.bucket, capacity);
      this.args = resized(this.args, capacity);
      this.generation = resized(this.generation, capacity);
      this.next = resized(this.next, capacity);
      this.tasks.length = capacity;
      this.tasks.fill(null, this.slotCount);
    }
    return this.slotCount++;
  }
}

