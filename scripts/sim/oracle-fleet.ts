/**
 * What the oracles read from the fleet, computed once per backend state and
 * shared by every oracle client of a run. A pick asks every backend, and a
 * backend's state changes about once per millisecond while picks come every
 * ~0.1 ms, so most answers are still valid from the previous pick. Each
 * backend tells the view when it changes (`BackendModel.observe`), so a pick
 * reads cached answers from flat arrays without touching the backends; each
 * value is computed with exactly the arithmetic of a fresh computation, so
 * caching changes no result:
 *
 * - The capacity cost does not depend on the time: a changed backend is put
 *   on a dirty list and recomputed at the next pick, and the pick scans the
 *   per-id costs as they are. Its capacity per ms is kept per behaviour and
 *   median.
 * - The response cost depends on the time; per backend the view keeps how
 *   to find it (`StartKind`). A free backend with no GC pause, extra delay
 *   or errors costs (now + mean) − now: the fresh formula without its steps
 *   that cannot change the value (+ 0, / 1).
 * - A GC pause needs a floating-point `%` per call; the view keeps per
 *   backend a range of times that is provably outside any pause (see
 *   `gcPauseEndMs`) and makes the exact call only outside it.
 * - A full backend with nothing queued and no GC pause starts the call at
 *   its earliest end time, found without sorting the end times.
 */
import { BackendModel } from '../model/backend';
import { Behaviour } from '../model/behaviour';
import { resized } from '../model/typed-arrays';

/** How a backend's expected done time is found (see `responseCosts`). */
const enum StartKind {
  /** Not serving (unavailable, black hole) or full (would refuse the call: `BackendModel.full`): never chosen while another exists. */
  Down,
  /** A slot is free: the call starts now. */
  Now,
  /** As `Now`, with no GC pause, extra delay or errors: the cost is the mean service time as seen from now. */
  NowPlain,
  /** Every slot is busy: the start time is fixed by the calls ahead. */
  Fixed,
  /** A slot free with calls queued (the model never leaves this): computed every time. */
  Uncached,
}

export class OracleFleetView {
  /** How many backends (ids 0..observed-1) report their changes to this view. */
  private observed = 0;

  /** The median every cached answer holds for (NaN: none yet). */
  private responseMedianMs = NaN;
  /** Per backend id: 1 when the response-time parts below are out of date (the backend changed since). */
  private responseStale = new Uint8Array(0);
  private startKind = new Uint8Array(0);
  /** `StartKind.Fixed`: the expected done time; `StartKind.Now`, `NowPlain`: the mean service time. */
  private doneOrMeanMs = new Float64Array(0);
  private extraDelayMs = new Float64Array(0);
  /** 1 − errorRate. */
  private answered = new Float64Array(0);
  /** Per backend id: the cost `responseCosts` last found. */
  private responseCost = new Float64Array(0);
  /**
   * Per backend id: a range of times at which no GC pause is in force
   * (`gcPauseEndMs(t) === t`), found by the last exact call and kept while
   * the behaviour is `quietOf` (see `gcPauseEndMs`); empty when unknown.
   */
  private quietOf: (Behaviour | null)[] = [];
  private quietFromMs = new Float64Array(0);
  private quietToMs = new Float64Array(0);

  /** The median `capacityCostValue` holds for (NaN: none yet). */
  private capacityMedianMs = NaN;
  /** Per backend id: 1 when `capacityCostValue` is out of date (then the id is in `capacityDirty`). */
  private capacityStale = new Uint8Array(0);
  private capacityDirty = new Int32Array(0);
  private capacityDirtyCount = 0;
  private capacityCostValue = new Float64Array(0);
  /** Per backend id: `capacityPerMs` for behaviour `perMsOf` and median `perMsMedianMs` (it changes only with them). */
  private perMsOf: (Behaviour | null)[] = [];
  private perMsMedianMs = new Float64Array(0);
  private perMsValue = new Float64Array(0);

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
   * in `ids`, by backend id in the returned array (only those entries are
   * written; the array is the view's, valid until its next call): its
   * expected response time, (expected done − now + extra delay) /
   * (1 − errorRate); Infinity for a backend that does not serve. One pass
   * over flat arrays: a pick asks every backend.
   */
  responseCosts(ids: readonly number[], nowMs: number, medianMs: number): Float64Array {
    this.observeAll();
    if (medianMs !== this.responseMedianMs) {
      this.responseMedianMs = medianMs;
      this.responseStale.fill(1);
    }
    const stale = this.responseStale;
    const startKind = this.startKind;
    const doneOrMeanMs = this.doneOrMeanMs;
    const costs = this.responseCost;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (stale[id] !== 0) {
        this.refreshResponse(id, nowMs, medianMs);
      }
      const kind = startKind[id];
      if (kind === StartKind.NowPlain) {
        // (done − now + 0) / 1 without the steps that cannot change it (see `otherResponseCost`).
        costs[id] = nowMs + doneOrMeanMs[id] - nowMs;
      } else if (kind === StartKind.Down) {
        costs[id] = Infinity;
      } else {
        costs[id] = this.otherResponseCost(id, kind, nowMs, medianMs);
      }
    }
    return costs;
  }

  /**
   * The capacity oracle's cost of one more call of median `medianMs` at
   * every backend, by backend id in the returned array (the view's, valid
   * until the backends change): (calls there + 1) / capacity; Infinity for
   * a backend that does not serve. It does not depend on the time, so only
   * the backends that changed since the last call are recomputed and a pick
   * reads the rest as they are.
   */
  capacityCosts(medianMs: number): Float64Array {
    this.observeAll();
    if (medianMs !== this.capacityMedianMs) {
      this.capacityMedianMs = medianMs;
      for (let id = 0; id < this.observed; id++) {
        this.refreshCapacity(id, medianMs);
      }
    } else {
      const dirty = this.capacityDirty;
      for (let i = 0; i < this.capacityDirtyCount; i++) {
        this.refreshCapacity(dirty[i], medianMs);
      }
    }
    this.capacityDirtyCount = 0;
    return this.capacityCostValue;
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
    return this.gcPauseEndMs(id, this.startTimeMs(id, nowMs) + this.meanServiceMs(id, medianMs));
  }

  /** When a call arriving at backend `id` now would reach a slot. */
  startTimeMs(id: number, nowMs: number): number {
    const backend = this.backends[id];
    return startsNow(backend) ? nowMs : this.computeStartMs(id, backend, nowMs);
  }

  /** The response cost at backend `id` of a start kind other than `NowPlain` and `Down`. */
  private otherResponseCost(id: number, kind: StartKind, nowMs: number, medianMs: number): number {
    let doneMs: number;
    if (kind === StartKind.Now) {
      doneMs = nowMs + this.doneOrMeanMs[id];
      doneMs = this.gcPauseEndMs(id, doneMs);
    } else if (kind === StartKind.Fixed) {
      doneMs = this.doneOrMeanMs[id];
    } else {
      doneMs = this.expectedDoneMs(id, nowMs, medianMs);
    }
    const extraDelayMs = this.extraDelayMs[id];
    const answered = this.answered[id];
    // (x + 0) / 1 is x for any x but −0, and doneMs − nowMs is −0 only for
    // doneMs = −0, while doneMs is at least a mean service time after 0.
    return extraDelayMs === 0 && answered === 1 ? doneMs - nowMs : (doneMs - nowMs + extraDelayMs) / answered;
  }

  /**
   * `gcPauseEndMs(atMs)` of backend `id`: `atMs` itself without GC pauses,
   * else from its cached quiet range when `atMs` lies in it. The range
   * [from, to] is derived from an exact call at some t outside a pause,
   * v = t + phase, c = v % period ≥ pause: every time whose phase-shifted
   * value rounds into [v − c + pause, v − c + period) is outside a pause
   * too, and the range is that interval shrunk by a margin (1e-9 of the
   * magnitudes) far above the rounding error of the additions (~1e-16 of
   * them), so inside it the exact call would return its argument. Outside
   * it the exact call is made.
   */
  private gcPauseEndMs(id: number, atMs: number): number {
    const backend = this.backends[id];
    const behaviour = backend.behaviour;
    if (!hasPauses(behaviour)) {
      return atMs;
    }
    if (this.quietOf[id] !== behaviour) {
      this.quietOf[id] = behaviour;
      this.quietFromMs[id] = Infinity;
      this.quietToMs[id] = -Infinity;
    } else if (atMs >= this.quietFromMs[id] && atMs <= this.quietToMs[id]) {
      return atMs;
    }
    const { gcPeriodMs, gcPauseMs } = behaviour;
    const phaseMs = backend.gcPhaseMs;
    const intoCycleMs = (atMs + phaseMs) % gcPeriodMs;
    if (intoCycleMs >= gcPauseMs) {
      const marginMs = 1e-9 * (Math.abs(atMs) + Math.abs(phaseMs) + gcPeriodMs);
      this.quietFromMs[id] = atMs - (intoCycleMs - gcPauseMs) + marginMs;
      this.quietToMs[id] = atMs + (gcPeriodMs - intoCycleMs) - marginMs;
    }
    return backend.gcPauseEndMs(atMs);
  }

  private refreshResponse(id: number, nowMs: number, medianMs: number): void {
    const backend = this.backends[id];
    const behaviour = backend.behaviour;
    this.responseStale[id] = 0;
    const extraDelayMs = behaviour.extraDelayMs;
    const answered = 1 - behaviour.errorRate;
    const pauses = hasPauses(behaviour);
    this.extraDelayMs[id] = extraDelayMs;
    this.answered[id] = answered;
    if (behaviour.mode !== 'normal' || backend.full) {
      this.startKind[id] = StartKind.Down;
    } else if (startsNow(backend)) {
      this.startKind[id] = !pauses && extraDelayMs === 0 && answered === 1 ? StartKind.NowPlain : StartKind.Now;
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

  private refreshCapacity(id: number, medianMs: number): void {
    const backend = this.backends[id];
    const behaviour = backend.behaviour;
    this.capacityStale[id] = 0;
    if (behaviour.mode !== 'normal') {
      this.capacityCostValue[id] = Infinity;
      return;
    }
    if (this.perMsOf[id] !== behaviour || this.perMsMedianMs[id] !== medianMs) {
      this.perMsOf[id] = behaviour;
      this.perMsMedianMs[id] = medianMs;
      this.perMsValue[id] = this.capacityPerMs(id, medianMs);
    }
    this.capacityCostValue[id] = (backend.inService + backend.queueLength + 1) / this.perMsValue[id];
  }

  private computeStartMs(id: number, backend: BackendModel, nowMs: number): number {
    const slots = backend.behaviour.slots;
    const queued = backend.queueLength;
    // The k slot-free times: with b calls in service and limit k, the j-th
    // slot frees at the (b − k + j)-th completion (slots may have shrunk below b).
    const ends = this.ends;
    const count = backend.serviceEndTimes(ends);
    const pauses = hasPauses(backend.behaviour);
    if (queued === 0 && count === slots && !pauses) {
      // Every slot frees at its own call's end and nothing waits: the
      // earliest end, the same value the sort below would put first.
      return ends[earliest(ends, count)];
    }
    sortAscending(ends, count);
    const free = this.slotFree;
    for (let j = 0; j < slots; j++) {
      const at = count - slots + j;
      free[j] = at < 0 ? nowMs : this.gcPauseEndMs(id, ends[at]);
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
    if (count > this.responseStale.length) {
      this.grow(Math.max(count, this.responseStale.length * 2, 32));
    }
    for (let id = this.observed; id < count; id++) {
      const changed = (): void => {
        this.responseStale[id] = 1;
        if (this.capacityStale[id] === 0) {
          this.capacityStale[id] = 1;
          this.capacityDirty[this.capacityDirtyCount++] = id;
        }
      };
      changed();
      this.backends[id].observe(changed);
    }
    this.observed = Math.max(this.observed, count);
  }

  private grow(capacity: number): void {
    this.responseStale = resized(this.responseStale, capacity);
    this.startKind = resized(this.startKind, capacity);
    this.doneOrMeanMs = resized(this.doneOrMeanMs, capacity);
    this.extraDelayMs = resized(this.extraDelayMs, capacity);
    this.answered = resized(this.answered, capacity);
    this.responseCost = resized(this.responseCost, capacity);
    this.quietFromMs = resized(this.quietFromMs, capacity, Infinity);
    this.quietToMs = resized(this.quietToMs, capacity, -Infinity);
    this.capacityStale = resized(this.capacityStale, capacity);
    this.capacityDirty = resized(this.capacityDirty, capacity);
    this.perMsMedianMs = resized(this.perMsMedianMs, capacity, NaN);
    this.perMsValue = resized(this.perMsValue, capacity);
    this.capacityCostValue = resized(this.capacityCostValue, capacity);
    this.spread = resized(this.spread, capacity);
    while (this.spreadOf.length < capacity) {
      this.spreadOf.push(null);
      this.quietOf.push(null);
      this.perMsOf.push(null);
    }
  }
}

/** Whether `behaviour` has GC pauses (else `gcPauseEndMs` returns its argument). */
function hasPauses(behaviour: Behaviour): boolean {
  return behaviour.gcPeriodMs > 0 && behaviour.gcPauseMs > 0;
}

/** Whether a call arriving at `backend` now would start at once: a slot is free and nothing waits. */
function startsNow(backend: BackendModel): boolean {
  const slots = backend.behaviour.slots;
  return slots === 0 || (backend.inService < slots && backend.queueLength === 0);
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
