/**
 * What the oracles read from the fleet, computed once per backend state and
 * shared by every oracle client of a run. A pick asks all backends, and a
 * backend's state changes about once per millisecond while picks come every
 * ~0.1 ms, so most answers are still valid from the previous pick; the
 * backend's `stateVersion` says when one is not. Each value is computed with
 * exactly the arithmetic of a fresh computation, so caching changes no
 * result.
 */
import { BackendModel } from '../model/backend';
import { Behaviour } from '../model/behaviour';

export class OracleFleetView {
  /** Per backend id: the state version `startMs` was computed at (-1: none). */
  private startVersion = new Float64Array(0);
  private startMs = new Float64Array(0);
  /** Per backend id: `expectedDoneMs` for `doneMedianMs` at state `startVersion`. */
  private doneMs = new Float64Array(0);
  private doneMedianMs = new Float64Array(0);
  /** Per backend id: the behaviour `spread` was computed for. */
  private spreadOf: (Behaviour | null)[] = [];
  /** exp(σ²/2): a lognormal's mean over its median. */
  private spread = new Float64Array(0);
  /** Per backend id: calls per ms by capacity, for `perMsOf` and `perMsMedianMs`. */
  private perMsOf: (Behaviour | null)[] = [];
  private perMsMedianMs = new Float64Array(0);
  private perMs = new Float64Array(0);
  private readonly ends = new Float64Array(4096);
  private readonly slotFree = new Float64Array(4096);

  constructor(private readonly backends: readonly BackendModel[]) {}

  /** Mean service time of a call of median `medianMs` at backend `id` (as `meanServiceMs`). */
  meanServiceMs(id: number, medianMs: number): number {
    const behaviour = this.backends[id].behaviour;
    return medianMs * behaviour.latencyFactor * this.spreadAt(id, behaviour);
  }

  /**
   * Calls per ms backend `id` completes by capacity for calls of median
   * `medianMs`: slots / mean service time, less errors and GC pauses
   * (unlimited slots: Infinity).
   */
  capacityPerMs(id: number, medianMs: number): number {
    const behaviour = this.backends[id].behaviour;
    if (id >= this.perMs.length) {
      this.grow(id + 1);
    }
    if (this.perMsOf[id] === behaviour && this.perMsMedianMs[id] === medianMs) {
      return this.perMs[id];
    }
    const slots = behaviour.slots === 0 ? Infinity : behaviour.slots;
    let perMs = (slots / this.meanServiceMs(id, medianMs)) * (1 - behaviour.errorRate);
    if (behaviour.gcPeriodMs > 0) {
      perMs *= 1 - behaviour.gcPauseMs / behaviour.gcPeriodMs;
    }
    this.perMsOf[id] = behaviour;
    this.perMsMedianMs[id] = medianMs;
    this.perMs[id] = perMs;
    return perMs;
  }

  /**
   * When a call of median `medianMs` arriving at backend `id` now would be
   * done on average: its start, its mean service time, any GC pause then.
   */
  expectedDoneMs(id: number, nowMs: number, medianMs: number): number {
    const backend = this.backends[id];
    const version = backend.stateVersion;
    if (id < this.startVersion.length && this.startVersion[id] === version && this.doneMedianMs[id] === medianMs) {
      return this.doneMs[id];
    }
    const startMs = this.startTimeMs(id, nowMs);
    const doneMs = backend.gcPauseEndMs(startMs + this.meanServiceMs(id, medianMs));
    // Cached only with the start time (a busy backend's, which `nowMs` doesn't move).
    if (this.startVersion[id] === version) {
      this.doneMedianMs[id] = medianMs;
      this.doneMs[id] = doneMs;
    }
    return doneMs;
  }

  /** When a call arriving at backend `id` now would reach a slot. */
  startTimeMs(id: number, nowMs: number): number {
    const backend = this.backends[id];
    const slots = backend.behaviour.slots;
    const busy = backend.inService;
    const queued = backend.queueLength;
    if (slots === 0 || (busy < slots && queued === 0)) {
      return nowMs;
    }
    // With a slot free the answer involves `nowMs`; the model never leaves
    // one free with calls queued, but don't cache that case if it happens.
    const cacheable = busy >= slots;
    if (id >= this.startVersion.length) {
      this.grow(id + 1);
    }
    const version = backend.stateVersion;
    if (cacheable && this.startVersion[id] === version) {
      return this.startMs[id];
    }
    const startMs = this.computeStartMs(id, backend, slots, queued, nowMs);
    if (cacheable) {
      this.startVersion[id] = version;
      this.startMs[id] = startMs;
      this.doneMedianMs[id] = NaN;
    }
    return startMs;
  }

  private computeStartMs(id: number, backend: BackendModel, slots: number, queued: number, nowMs: number): number {
    // The k slot-free times: with b calls in service and limit k, the j-th
    // slot frees at the (b − k + j)-th completion (slots may have shrunk below b).
    const ends = this.ends;
    const count = backend.serviceEndTimes(ends);
    sortAscending(ends, count);
    const free = this.slotFree;
    for (let j = 0; j < slots; j++) {
      const at = count - slots + j;
      free[j] = at < 0 ? nowMs : backend.gcPauseEndMs(ends[at]);
    }
    // Each queued call takes the earliest free slot for its mean service time,
    // unless its deadline passes first (then it is skipped).
    for (let q = 0; q < queued; q++) {
      const slot = earliest(free, slots);
      const startMs = free[slot];
      if (backend.queuedDeadlineMs(q) > startMs) {
        free[slot] = startMs + this.meanServiceMs(id, backend.queuedMedianMs(q));
      }
    }
    return free[earliest(free, slots)];
  }

  private spreadAt(id: number, behaviour: Behaviour): number {
    if (id >= this.spread.length) {
      this.grow(id + 1);
    }
    if (this.spreadOf[id] !== behaviour) {
      this.spreadOf[id] = behaviour;
      this.spread[id] = Math.exp((behaviour.sigma * behaviour.sigma) / 2);
    }
    return this.spread[id];
  }

  private grow(size: number): void {
    const capacity = Math.max(size, this.spread.length * 2, 32);
    this.startVersion = resized(this.startVersion, capacity, -1);
    this.startMs = resized(this.startMs, capacity);
    this.doneMs = resized(this.doneMs, capacity);
    this.doneMedianMs = resized(this.doneMedianMs, capacity, NaN);
    this.spread = resized(this.spread, capacity);
    this.perMsMedianMs = resized(this.perMsMedianMs, capacity);
    this.perMs = resized(this.perMs, capacity);
    while (this.spreadOf.length < capacity) {
      this.spreadOf.push(null);
      this.perMsOf.push(null);
    }
  }
}

/** `values` copied into a new array of `capacity`, the new tail set to `fill`. */
function resized(values: Float64Array, capacity: number, fill = 0): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(capacity).fill(fill);
  bigger.set(values);
  return bigger;
}

/** Sorts `values[0, count)` ascending in place without allocating (a handful of values: insertion sort). */
export function sortAscending(values: Float64Array, count: number): void {
  if (count > 64) {
    values.subarray(0, count).sort();
    return;
  }
  for (let i = 1; i < count; i++) {
    const value = values[i];
    let j = i - 1;
    while (j >= 0 && values[j] > value) {
      values[j + 1] = values[j];
      j--;
    }
    values[j + 1] = value;
  }
}

function earliest(values: Float64Array, count: number): number {
  let best = 0;
  for (let i = 1; i < count; i++) {
    if (values[i] < values[best]) {
      best = i;
    }
  }
  return best;
}

const views = new WeakMap<readonly BackendModel[], OracleFleetView>();

/** The one view of a run's fleet (keyed by its backend list), shared by its oracle clients. */
export function oracleFleetView(backends: readonly BackendModel[]): OracleFleetView {
  let view = views.get(backends);
  if (view === undefined) {
    view = new OracleFleetView(backends);
    views.set(backends, view);
  }
  return view;
}
