/**
 * `oracle-own`: a client that knows how fast every backend is and what it
 * has itself in flight there, but nothing of the other clients' calls. A
 * yardstick between `oracle-static` (speeds only) and `oracle` (every
 * queue): what a client-side rule could reach if it learnt the speeds
 * perfectly. Not a proof either way: its cost is one guess at the queue,
 * so the bound is the best over a few `othersScale`.
 *
 * For a call of nominal median m it takes, among all READY backends, the
 * one with the least expected completion time
 *
 *     cost_b = m · u_b + othersScale · W_b / slots_b
 *
 * u_b the backend's mean time per answered call of a 1 ms median, per slot
 * (slots / capacity, model/capacity.ts: latency factor, σ, GC pauses, and
 * errors, since a failed call is answered but wasted); W_b the summed
 * m · u_b of this client's own calls in flight there; `othersScale` how
 * many times its own queue it assumes is there in all (1: only its own
 * calls; the client count: every client like itself). Ties go to a random
 * one of the tied backends. A dead or black-holed backend is never taken
 * while another answers.
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { RandomSource } from '../../src/core/random';
import { BackendModel } from '../model/backend';
import { Behaviour, DEFAULT_BEHAVIOUR } from '../model/behaviour';
import { meanServiceMs, UNLIMITED_SLOTS_AS } from '../model/capacity';
import { cheapestOf } from './cheapest';
import { ClientPolicy } from './client-policy';
import { staticCapacity } from './oracle-static';

export class OwnQueueOraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  /** Per backend id: the expected work (ms of one slot) of this client's calls in flight there. */
  private readonly ownWorkMs: Float64Array;
  /** Per backend id: its cost at the pick under way (scratch). */
  private readonly costs: Float64Array;
  /** Per token: the backend and the expected work of one call in flight. */
  private readonly callWorkMs = new Map<number, number>();
  private nextToken = 1;
  private pickedMedianMs = 0;

  constructor(
    private readonly backends: readonly BackendModel[],
    private readonly random: RandomSource,
    private readonly currentMedianMs: () => number,
    private readonly othersScale: number,
    /** Candidates compared per pick, drawn at random; Infinity: every READY backend. */
    private readonly choices: number = Infinity,
    /** false: every backend is taken to be as fast as a normal one (only the own queue is known). */
    private readonly knowsSpeed: boolean = true,
  ) {
    if (!(othersScale >= 0) || !Number.isFinite(othersScale)) {
      throw new RangeError(`oracle-own: othersScale must be a finite number >= 0, got ${othersScale}`);
    }
    this.ownWorkMs = new Float64Array(backends.length);
    this.costs = new Float64Array(backends.length);
  }

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
  }

  pick(): number {
    const medianMs = this.currentMedianMs();
    this.pickedMedianMs = medianMs;
    const n = this.ready.length;
    const draws = Math.min(n, this.choices);
    const order = draws < n ? this.drawn(draws) : this.ready;
    // Once per pick, not per candidate: behaviours change during a run.
    const blindSlots = this.knowsSpeed ? 0 : this.mostSlots();
    for (let i = 0; i < draws; i++) {
      const id = order[i];
      const { unitMs, slots } = this.viewOf(id, blindSlots);
      this.costs[id] = unitMs < Infinity ? medianMs * unitMs + (this.othersScale * this.ownWorkMs[id]) / slots : Infinity;
    }
    const best = cheapestOf(order, draws, this.costs, this.random);
    if (best >= 0 && this.costs[best] < Infinity) {
      return best;
    }
    // Nothing answers: any READY backend, as round_robin would.
    return n === 0 ? -1 : this.ready[Math.floor(this.random() * n)];
  }

  /**
   * What this client takes backend `id` to be: u (ms per slot of an answered
   * call of a 1 ms median; Infinity if it answers nothing) and its slots.
   * Without `knowsSpeed`, every backend that answers is a normal one with
   * `blindSlots`, the fleet's most slots (`mostSlots`).
   */
  private viewOf(id: number, blindSlots: number): { unitMs: number; slots: number } {
    const behaviour = this.backends[id].behaviour;
    if (!this.knowsSpeed) {
      return { unitMs: behaviour.mode === 'normal' ? meanServiceMs(DEFAULT_BEHAVIOUR, 1) : Infinity, slots: blindSlots };
    }
    const capacity = staticCapacity(behaviour);
    const slots = slotsOf(behaviour);
    return { unitMs: capacity > 0 ? slots / capacity : Infinity, slots };
  }

  /** The most slots of any backend in the fleet: what a client blind to speeds takes every backend to have. */
  private mostSlots(): number {
    let most = 0;
    for (const backend of this.backends) {
      most = Math.max(most, slotsOf(backend.behaviour));
    }
    return most;
  }

  private drawn(count: number): number[] {
    const pool = this.ready.slice();
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(this.random() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool;
  }

  started(backendId: number): number {
    // Only the speed is read here, so the blind variant's slots do not matter.
    const { unitMs } = this.viewOf(backendId, 0);
    // A backend that answers nothing holds the call until its deadline: count it as the deadline's worth.
    const workMs = unitMs < Infinity ? this.pickedMedianMs * unitMs : this.pickedMedianMs * 5;
    const token = this.nextToken++;
    this.callWorkMs.set(token, workMs);
    this.ownWorkMs[backendId] += workMs;
    return token;
  }

  ended(backendId: number, _outcome: CallOutcome, _ok: boolean, token: number): void {
    const workMs = this.callWorkMs.get(token);
    if (workMs === undefined) {
      return;
    }
    this.callWorkMs.delete(token);
    this.ownWorkMs[backendId] = Math.max(0, this.ownWorkMs[backendId] - workMs);
  }
}

function slotsOf(behaviour: Behaviour): number {
  return behaviour.slots === 0 ? UNLIMITED_SLOTS_AS : behaviour.slots;
}
