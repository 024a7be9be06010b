/**
 * `oracle-static`: a client that knows how fast every backend is but not
 * what is queued there. A yardstick for client-only rules, as `oracle`
 * (which reads every queue) is one for any rule; not a proof: a rule that
 * learns could use what a static split ignores, and none gets the speeds
 * for free.
 *
 * Each client runs a smooth weighted round robin (smooth-rotation.ts) over
 * the READY backends. A backend's
 * weight is its true speed, read from its behaviour at the pick, so a fault
 * is known the moment it starts:
 *
 *     w = (slots / mean service time · (1 − GC pause fraction) · (1 − errorRate))^k
 *
 * the capacity the harness sets the load by (model/capacity.ts), counting
 * only the calls that are answered, raised to `exponent` k (default 1). k = 1
 * splits calls in proportion to capacity, so every backend runs at the same
 * utilisation; a larger k leans harder on the fastest backends, which at 1–2
 * slots keeps calls off a backend whose own service time is the tail (a
 * noisy pod's p99 is ~130 ms idle) at the price of queueing on the others.
 * A dead or black-holed backend has weight 0. Which k is best depends on
 * the cell, so the bound is the best over a few k (docs/simulation.md).
 */
import { RandomSource } from '../../src/core/random';
import { BackendModel } from '../model/backend';
import { Behaviour } from '../model/behaviour';
import { servedRps } from '../model/capacity';
import { ClientPolicy } from './client-policy';
import { SmoothRotation } from './smooth-rotation';

/**
 * What an informed client knows of a backend: its speed, never its queue.
 * Calls it answers per ms (for calls of a 1 ms median; only ratios matter).
 */
export function staticCapacity(behaviour: Behaviour): number {
  return (servedRps(behaviour, 1) / 1000) * (1 - behaviour.errorRate);
}

/**
 * The READY backends' capacities (`staticCapacity`, by position in the
 * READY list) and the fastest one's, judged again only when a backend's
 * behaviour changed: `setBehaviour` replaces the behaviour object, so one
 * identity check per backend tells a pick whether anything moved. Read by
 * both oracles that know speeds (this one and oracle-ready.ts).
 */
export class ReadyCapacities {
  /** Capacity of the i-th READY backend. */
  readonly capacity: number[] = [];
  /** The largest of them; 0 when none answers. */
  fastest = 0;
  // The behaviour each capacity was read from.
  private readonly judged: Behaviour[] = [];

  constructor(private readonly backends: readonly BackendModel[]) {}

  /** Brings the capacities up to date for `ready`; true when they were read again. */
  refresh(ready: readonly number[]): boolean {
    const judged = this.judged;
    let current = judged.length === ready.length;
    for (let i = 0; current && i < ready.length; i++) {
      current = this.backends[ready[i]].behaviour === judged[i];
    }
    if (current) {
      return false;
    }
    judged.length = ready.length;
    this.capacity.length = ready.length;
    this.fastest = 0;
    for (let i = 0; i < ready.length; i++) {
      judged[i] = this.backends[ready[i]].behaviour;
      this.capacity[i] = staticCapacity(judged[i]);
      this.fastest = Math.max(this.fastest, this.capacity[i]);
    }
    return true;
  }
}

/** A smooth weighted round robin over the true speeds (see the header). */
export class StaticOraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  private readonly rotation = new SmoothRotation();
  private readonly capacities: ReadyCapacities;

  constructor(
    backends: readonly BackendModel[],
    private readonly random: RandomSource,
    private readonly exponent: number,
  ) {
    this.capacities = new ReadyCapacities(backends);
    if (!(exponent > 0) || !Number.isFinite(exponent)) {
      throw new RangeError(`oracle-static: exponent must be a finite number > 0, got ${exponent}`);
    }
  }

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
    this.rotation.reset(backendIds.length, this.random);
  }

  pick(): number {
    const ready = this.ready;
    const capacities = this.capacities;
    capacities.refresh(ready);
    const { capacity, fastest } = capacities;
    // Weights relative to the fastest READY backend, so that a large k
    // leaves the fastest at 1 instead of capacity^k (1e26 at 8 slots, k 30).
    const chosen = fastest > 0 ? this.rotation.next((i) => (capacity[i] / fastest) ** this.exponent) : -1;
    if (chosen >= 0) {
      return ready[chosen];
    }
    // Nothing answers: any READY backend, as round_robin would.
    return ready.length === 0 ? -1 : ready[Math.floor(this.random() * ready.length)];
  }

  started(): number {
    return 0;
  }

  ended(): void {}
}
