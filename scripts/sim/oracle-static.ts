/**
 * `oracle-static`: a client that knows how fast every backend is but not
 * what is queued there. A yardstick for client-only rules, as `oracle`
 * (which reads every queue) is one for any rule; not a proof: a rule that
 * learns could use what a static split ignores, and none gets the speeds
 * for free.
 *
 * Each client runs a smooth weighted round robin (the schedule of nginx's
 * and grpc's weighted_round_robin: every pick adds each weight to its
 * backend's credit, the backend with the most credit takes the call and
 * gives back the sum of the weights) over the READY backends. A backend's
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

/**
 * What an informed client knows of a backend: its speed, never its queue.
 * Calls it answers per ms (for calls of a 1 ms median; only ratios matter).
 */
export function staticCapacity(behaviour: Behaviour): number {
  return (servedRps(behaviour, 1) / 1000) * (1 - behaviour.errorRate);
}

/** A smooth weighted round robin over the true speeds (see the header). */
export class StaticOraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  private credit: number[] = [];

  constructor(
    private readonly backends: readonly BackendModel[],
    private readonly random: RandomSource,
    private readonly exponent: number,
  ) {
    if (!(exponent > 0) || !Number.isFinite(exponent)) {
      throw new RangeError(`oracle-static: exponent must be a finite number > 0, got ${exponent}`);
    }
  }

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
    // With equal weights this is round_robin exactly: the READY list's order
    // (the same for every client) from a random start. Not a random order per
    // client: with the reference's fixed-period clients that order matters
    // to the mean of per-client p99s (docs/simulation.md, "client-only bound").
    const start = Math.floor(this.random() * backendIds.length);
    this.credit = backendIds.map((_, i) => -((i - start + backendIds.length) % backendIds.length) * 1e-9);
  }

  pick(): number {
    const ready = this.ready;
    let total = 0;
    let best = -1;
    for (let i = 0; i < ready.length; i++) {
      const weight = staticCapacity(this.backends[ready[i]].behaviour) ** this.exponent;
      if (weight === 0) {
        continue;
      }
      total += weight;
      this.credit[i] += weight;
      if (best < 0 || this.credit[i] > this.credit[best]) {
        best = i;
      }
    }
    if (best < 0) {
      // Nothing answers: any READY backend, as round_robin would.
      return ready.length === 0 ? -1 : ready[Math.floor(this.random() * ready.length)];
    }
    this.credit[best] -= total;
    return ready[best];
  }

  started(): number {
    return 0;
  }

  ended(): void {}
}
