/**
 * What the oracles read from the fleet, computed once per backend state and
 * shared by every oracle client of a run. A pick asks every backend, and a
 * backend's state changes about once per millisecond while picks come every
 * ~0.1 ms, so most answers are still valid from the previous pick. Each
 * backend tells the view when it changes (`BackendModel.observe`), so a pick
 * reads cached answers from flat arrays without touching the backends; each
 * value is computed with exactly the arithmetic of a fresh computation, so
 * caching changes no result.
 */
import { BackendModel } from '../model/backend';
import { Behaviour } from '../model/behaviour';

/** How a backend's expected done time is found (see `responseCosts`). */
const enum StartKind {
  /** Not serving (unavailable, black hole): never chosen while another exists. */
  Down,
  /** A slot is free: the call starts now. */
  Now,
  /** Every slot is busy: the start time is fixed by the calls ahead. */
  Fixed,
  /** A slot free with calls queued (the model never leaves this): computed every time. */
  Uncached,
}

export class OracleFleetView {
  /** Per backend id: bumped by the backend on every change of its state. */
  private version = new Float64Array(0);
  /** How many backends (ids 0..observed-1) report their changes to this view. */
  private observed = 0;

  /** Per backend id: the version and median the response-time parts below hold for (-1: none). */
  private responseVersion = new Float64Array(0);
  private responseMedianMs = new Float64Array(0);
  private startKind = new Uint8Array(0);
  /** `StartKind.Fixed`: the expected done time; `StartKind.Now`: the mean service time. */
  private doneOrMeanMs = new Float64Array(0);
  private extraDelayMs = new Float64Array(0);
  /** 1 − errorRate. */
  private answered = new Float64Array(0);
  private pauses = new Uint8Array(0);

  /** Per backend id: the version and median `capacityCostValue` holds for (-1: none). */
  private capacityVersion = new Float64Array(0);
  private capacityMedianMs = new Float64Array(0);
  private capacityCostValue = new Float64Array(0);

  /** Per backend id: the behaviour `spread` was computed for. */
  private spreadOf: (Behaviour | null)[] = [];
  /** exp(σ²/2): a lognormal's mean over its median. */
  private spread = new Float64Array(0);
  private readonly ends = new Float64Array(4096);
  private readonly slotFree = new Float64Array(4096);

  constructor(private readonly backends: readonly BackendModel[]) {
    this.observeUpTo(backends.length);
  }

  /**
   * The oracle's cost of one more call of median `medianMs` at each backend
   * in `ids`, into `costs` (same index): its expected response time,
   * (expected done − now + extra delay) / (1 − errorRate); Infinity for a
   * backend that does not serve. One pass over flat arrays: a pick asks
   * every backend.
   */
  responseCosts(ids: readonly number[], nowMs: number, medianMs: number, costs: Float64Array): void {
    this.observeAll();
    const version = this.version;
    const responseVersion = this.responseVersion;
    const responseMedianMs = this.responseMedianMs;
    const startKind = this.startKind;
    const doneOrMeanMs = this.doneOrMeanMs;
    const extraDelayMs = this.extraDelayMs;
    const answered = this.answered;
    const pauses = this.pauses;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (responseVersion[id] !== version[id] || responseMedianMs[id] !== medianMs) {
        this.refreshResponse(id, nowMs, medianMs);
      }
      const kind = startKind[id];
      let doneMs: number;
      if (kind === StartKind.Now) {
        doneMs = nowMs + doneOrMeanMs[id];
        if (pauses[id] === 1) {
          doneMs = this.backends[id].gcPauseEndMs(doneMs);
        }
      } else if (kind === StartKind.Fixed) {
        doneMs = doneOrMeanMs[id];
      } else if (kind === StartKind.Down) {
        costs[i] = Infinity;
        continue;
      } else {
        doneMs = this.expectedDoneMs(id, nowMs, medianMs);
      }
      costs[i] = (doneMs - nowMs + extraDelayMs[id]) / answered[id];
    }
  }

  /**
   * The capacity oracle's cost of one more call of median `medianMs` at each
   * backend in `ids`, into `costs`: (calls there + 1) / capacity; Infinity
   * for a backend that does not serve.
   */
  capacityCosts(ids: readonly number[], medianMs: number, costs: Float64Array): void {
    this.observeAll();
    const version = this.version;
    const capacityVersion = this.capacityVersion;
    const capacityMedianMs = this.capacityMedianMs;
    const capacityCostValue = this.capacityCostValue;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (capacityVersion[id] !== version[id] || capacityMedianMs[id] !== medianMs) {
        const backend = this.backends[id];
        capacityVersion[id] = version[id];
        capacityMedianMs[id] = medianMs;
        capacityCostValue[id] =
          backend.behaviour.mode !== 'normal' ? Infinity : (backend.inService + backend.queueLength + 1) / this.capacityPerMs(id, medianMs);
      }
      costs[i] = capacityCostValue[id];
    }
  }

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
    const slots = behaviour.slots === 0 ? Infinity : behaviour.slots;
    let perMs = (slots / this.meanServiceMs(id, medianMs)) * (1 - behaviour.errorRate);
    if (behaviour.gcPeriodMs > 0) {
      perMs *= 1 - behaviour.gcPauseMs / behaviour.gcPeriodMs;
    }
    return perMs;
  }

  /**
   * When a call of median `medianMs` arriving at backend `id` now would be
   * done on average: its start, its mean service time, any GC pause then.
   */
  expectedDoneMs(id: number, nowMs: number, medianMs: number): number {
    return this.backends[id].gcPauseEndMs(this.startTimeMs(id, nowMs) + this.meanServiceMs(id, medianMs));
  }

  /** When a call arriving at backend `id` now would reach a slot. */
  startTimeMs(id: number, nowMs: number): number {
    const backend = this.backends[id];
    return startsNow(backend) ? nowMs : this.computeStartMs(id, backend, nowMs);
  }

  private refreshResponse(id: number, nowMs: number, medianMs: number): void {
    const backend = this.backends[id];
    const behaviour = backend.behaviour;
    this.responseVersion[id] = this.version[id];
    this.responseMedianMs[id] = medianMs;
    this.extraDelayMs[id] = behaviour.extraDelayMs;
    this.answered[id] = 1 - behaviour.errorRate;
    this.pauses[id] = behaviour.gcPeriodMs > 0 && behaviour.gcPauseMs > 0 ? 1 : 0;
    if (behaviour.mode !== 'normal') {
      this.startKind[id] = StartKind.Down;
    } else if (startsNow(backend)) {
      this.startKind[id] = StartKind.Now;
      this.doneOrMeanMs[id] = this.meanServiceMs(id, medianMs);
    } else if (backend.inService >= behaviour.slots) {
      // Every slot busy: the slot-free times come from the calls in service,
      // not from `nowMs`, so the answer holds until the backend changes.
      this.startKind[id] = StartKind.Fixed;
      this.doneOrMeanMs[id] = this.expectedDoneMs(id, nowMs, medianMs);
    } else {
      this.startKind[id] = StartKind.Uncached;
    }
  }

  private computeStartMs(id: number, backend: BackendModel, nowMs: number): number {
    const slots = backend.behaviour.slots;
    const queued = backend.queueLength;
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
    if (this.spreadOf[id] !== behaviour) {
      this.spreadOf[id] = behaviour;
      this.spread[id] = Math.exp((behaviour.sigma * behaviour.sigma) / 2);
    }
    return this.spread[id];
  }

  /** Has every backend report its changes (a scenario may add backends mid-run). */
  private observeAll(): void {
    if (this.observed < this.backends.length) {
      this.observeUpTo(this.backends.length);
    }
  }

  /** Has backends `observed..count-1` report their changes. */
  private observeUpTo(count: number): void {
    if (count > this.version.length) {
      this.grow(Math.max(count, this.version.length * 2, 32));
    }
    for (let id = this.observed; id < count; id++) {
      this.backends[id].observe(() => {
        this.version[id]++;
      });
    }
    this.observed = Math.max(this.observed, count);
  }

  private grow(capacity: number): void {
    this.version = resized(this.version, capacity);
    this.responseVersion = resized(this.responseVersion, capacity, -1);
    this.responseMedianMs = resized(this.responseMedianMs, capacity, NaN);
    this.startKind = resizedBytes(this.startKind, capacity);
    this.doneOrMeanMs = resized(this.doneOrMeanMs, capacity);
    this.extraDelayMs = resized(this.extraDelayMs, capacity);
    this.answered = resized(this.answered, capacity);
    this.pauses = resizedBytes(this.pauses, capacity);
    this.capacityVersion = resized(this.capacityVersion, capacity, -1);
    this.capacityMedianMs = resized(this.capacityMedianMs, capacity, NaN);
    this.capacityCostValue = resized(this.capacityCostValue, capacity);
    this.spread = resized(this.spread, capacity);
    while (this.spreadOf.length < capacity) {
      this.spreadOf.push(null);
    }
  }
}

/** Whether a call arriving at `backend` now would start at once: a slot is free and nothing waits. */
function startsNow(backend: BackendModel): boolean {
  const slots = backend.behaviour.slots;
  return slots === 0 || (backend.inService < slots && backend.queueLength === 0);
}

/** `values` copied into a new array of `capacity`, the new tail set to `fill`. */
function resized(values: Float64Array, capacity: number, fill = 0): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(capacity).fill(fill);
  bigger.set(values);
  return bigger;
}

function resizedBytes(values: Uint8Array, capacity: number): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(capacity);
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
