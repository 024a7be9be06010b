/**
 * The two oracles: clients that read every backend's true state, which no
 * real client can. Bounds to measure the policies against, not policies.
 *
 * - `oracle`: the expected response time of one more call at each backend,
 *   from the true end times of the calls in service, the queue ahead (each
 *   queued call at its mean service time, minus those whose deadline will
 *   have passed), the backend's speed, GC pause and extra delay; the lowest
 *   wins. A backend that fails calls is charged 1/(1 − errorRate); a dead or
 *   black-holed one is never chosen while another exists.
 * - `oracle-capacity`: shortest expected delay by capacity, (calls at the
 *   backend + 1) / capacity — the bound for rules that weight backends by
 *   capacity (weighted round robin, WRR with perfect weights, …).
 */
import { RandomSource } from '../../src/core/random';
import { BackendModel } from '../model/backend';
import { meanServiceMs } from '../model/capacity';
import { ClientPolicy } from './client-policy';

export type OracleKind = 'oracle' | 'oracle-capacity';

export class OraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  private readonly ends = new Float64Array(4096);
  private readonly slotFree = new Float64Array(4096);

  constructor(
    private readonly kind: OracleKind,
    private readonly backends: readonly BackendModel[],
    private readonly nowMs: () => number,
    private readonly random: RandomSource,
    /** The median of the method the next pick is for. */
    private readonly medianMs: () => number,
  ) {}

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
  }

  pick(): number {
    const ready = this.ready;
    if (ready.length === 0) {
      return -1;
    }
    const nowMs = this.nowMs();
    const medianMs = this.medianMs();
    let best = -1;
    let bestCost = Infinity;
    let ties = 0;
    for (let i = 0; i < ready.length; i++) {
      const id = ready[i];
      const backend = this.backends[id];
      const cost =
        this.kind === 'oracle' ? this.expectedResponseMs(backend, nowMs, medianMs) : this.expectedDelayByCapacity(backend, medianMs);
      if (cost < bestCost || best < 0) {
        best = id;
        bestCost = cost;
        ties = 1;
      } else if (cost === bestCost && this.random() * ++ties < 1) {
        best = id;
      }
    }
    return best;
  }

  started(): number {
    return 0;
  }

  ended(): void {}

  private expectedDelayByCapacity(backend: BackendModel, medianMs: number): number {
    const behaviour = backend.behaviour;
    if (behaviour.mode !== 'normal') {
      return Infinity;
    }
    const slots = behaviour.slots === 0 ? Infinity : behaviour.slots;
    let perMs = (slots / meanServiceMs(behaviour, medianMs)) * (1 - behaviour.errorRate);
    if (behaviour.gcPeriodMs > 0) {
      perMs *= 1 - behaviour.gcPauseMs / behaviour.gcPeriodMs;
    }
    return (backend.inService + backend.queueLength + 1) / perMs;
  }

  private expectedResponseMs(backend: BackendModel, nowMs: number, medianMs: number): number {
    const behaviour = backend.behaviour;
    if (behaviour.mode !== 'normal') {
      return Infinity;
    }
    const serviceMs = meanServiceMs(behaviour, medianMs);
    const startMs = this.startTimeMs(backend, nowMs);
    const doneMs = backend.gcPauseEndMs(startMs + serviceMs);
    return (doneMs - nowMs + behaviour.extraDelayMs) / (1 - behaviour.errorRate);
  }

  /** When a call arriving now would reach a slot. */
  private startTimeMs(backend: BackendModel, nowMs: number): number {
    const slots = backend.behaviour.slots;
    const busy = backend.inService;
    const queued = backend.queueLength;
    if (slots === 0 || (busy < slots && queued === 0)) {
      return nowMs;
    }
    // The k slot-free times: with b calls in service and limit k, the j-th
    // slot frees at the (b − k + j)-th completion (slots may have shrunk below b).
    const count = backend.serviceEndTimes(this.ends);
    const ends = this.ends.subarray(0, count).sort();
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
        free[slot] = startMs + meanServiceMs(backend.behaviour, backend.queuedMedianMs(q));
      }
    }
    return free[earliest(free, slots)];
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
