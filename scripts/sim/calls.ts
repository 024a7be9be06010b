/**
 * The calls in flight, in typed arrays indexed by `callId & mask`, and the
 * deadline queues. All calls of a method share one deadline and start in
 * time order, so their deadlines arrive in the order they started: one FIFO
 * per distinct deadline and one timer per FIFO replace a heap entry per
 * call. When the timer fires it expires the calls that are due, drops the
 * ones already answered, and re-arms for the first call still open.
 */
import { Scheduler } from '../model/scheduler';

export const CALL_FREE = 0;
export const CALL_OPEN = 1;
/** Answered (or expired) but still referenced by its deadline FIFO. */
export const CALL_ENDED = 2;

export class CallTable {
  mask: number;
  id!: Float64Array;
  state!: Uint8Array;
  client!: Int32Array;
  backend!: Int32Array;
  method!: Int32Array;
  /** The closed-loop caller that sent the call (closed-loop.ts); the client index otherwise. */
  source!: Int32Array;
  intendedMs!: Float64Array;
  token!: Float64Array;
  /** The path of the pick that sent the call (src/core/pick-paths.ts), -1 for none; kept only for `--tally`. */
  path!: Int8Array;
  /** Who started each call (the policy instance that must see its end). */
  owner!: unknown[];
  private nextId = 0;

  constructor(capacity: number) {
    const size = 1 << Math.ceil(Math.log2(Math.max(1024, capacity)));
    this.mask = size - 1;
    this.allocate(size);
  }

  /** Opens a call (sent by `source`, default the client itself) and returns its id. */
  open(client: number, method: number, intendedMs: number, source = client): number {
    let slot = this.nextId & this.mask;
    if (this.state[slot] !== CALL_FREE) {
      this.grow();
      slot = this.nextId & this.mask;
    }
    const callId = this.nextId++;
    this.id[slot] = callId;
    this.state[slot] = CALL_OPEN;
    this.client[slot] = client;
    this.backend[slot] = -1;
    this.method[slot] = method;
    this.source[slot] = source;
    this.intendedMs[slot] = intendedMs;
    return callId;
  }

  /** The slot of an open call, or -1 if `callId` has ended or been recycled. */
  openSlot(callId: number): number {
    const slot = callId & this.mask;
    return this.id[slot] === callId && this.state[slot] === CALL_OPEN ? slot : -1;
  }

  get opened(): number {
    return this.nextId;
  }

  private allocate(size: number): void {
    this.id = new Float64Array(size).fill(-1);
    this.state = new Uint8Array(size);
    this.client = new Int32Array(size);
    this.backend = new Int32Array(size);
    this.method = new Int32Array(size);
    this.source = new Int32Array(size);
    this.intendedMs = new Float64Array(size);
    this.token = new Float64Array(size);
    this.path = new Int8Array(size);
    this.owner = new Array<unknown>(size).fill(null);
  }

  private grow(): void {
    const old = { ...this, mask: this.mask };
    const size = (this.mask + 1) * 2;
    this.mask = size - 1;
    this.allocate(size);
    for (let from = 0; from <= old.mask; from++) {
      if (old.state[from] === CALL_FREE) {
        continue;
      }
      const to = old.id[from] & this.mask;
      this.id[to] = old.id[from];
      this.state[to] = old.state[from];
      this.client[to] = old.client[from];
      this.backend[to] = old.backend[from];
      this.method[to] = old.method[from];
      this.source[to] = old.source[from];
      this.intendedMs[to] = old.intendedMs[from];
      this.token[to] = old.token[from];
      this.path[to] = old.path[from];
      this.owner[to] = old.owner[from];
    }
  }
}

/** Calls that share one deadline, in start order. */
export class DeadlineQueue {
  private ring = new Float64Array(1024);
  private head = 0;
  private size = 0;
  private armed = false;

  constructor(
    readonly deadlineMs: number,
    private readonly calls: CallTable,
    private readonly scheduler: Scheduler,
    /** Ends an open call whose deadline has come. */
    private readonly expire: (slot: number) => void,
  ) {}

  push(callId: number): void {
    if (this.size === this.ring.length) {
      const bigger = new Float64Array(this.ring.length * 2);
      for (let i = 0; i < this.size; i++) {
        bigger[i] = this.ring[(this.head + i) & (this.ring.length - 1)];
      }
      this.ring = bigger;
      this.head = 0;
    }
    this.ring[(this.head + this.size) & (this.ring.length - 1)] = callId;
    this.size++;
    if (!this.armed) {
      this.arm();
    }
  }

  private arm(): void {
    const calls = this.calls;
    const nowMs = this.scheduler.nowMs();
    while (this.size > 0) {
      const callId = this.ring[this.head];
      const slot = callId & calls.mask;
      const dueMs = calls.intendedMs[slot] + this.deadlineMs;
      if (calls.state[slot] === CALL_OPEN) {
        if (dueMs > nowMs) {
          this.armed = true;
          this.scheduler.schedule(dueMs, this.fire);
          return;
        }
        this.expire(slot);
      }
      calls.state[slot] = CALL_FREE;
      this.head = (this.head + 1) & (this.ring.length - 1);
      this.size--;
    }
    this.armed = false;
  }

  private readonly fire = (): void => {
    this.armed = false;
    this.arm();
  };
}
