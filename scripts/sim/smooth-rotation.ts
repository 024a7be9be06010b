/**
 * The smooth weighted round robin of nginx's and grpc's weighted_round_robin,
 * for the simulator's static-split yardsticks (oracle-static.ts,
 * learned-static.ts): every pick adds each endpoint's weight to its credit,
 * the endpoint with the most credit takes the call and gives back the sum
 * of the weights.
 *
 * With equal weights it is round_robin exactly: the READY list's order (the
 * same for every client) from a random start. Not a random order per
 * client: with the reference's fixed-period clients that order matters to
 * the mean of per-client p99s (docs/simulation.md, "the metric at 64
 * clients").
 */
import { RandomSource } from '../../src/core/random';

export class SmoothRotation {
  private credit: number[] = [];

  /** Starts over `count` endpoints, at a random one. */
  reset(count: number, random: RandomSource): void {
    const start = Math.floor(random() * count);
    // Credits a hair apart, decreasing from the start, so that equal weights
    // take the list in order.
    this.credit = Array.from({ length: count }, (_, i) => -((i - start + count) % count) * 1e-9);
  }

  /** The index of the next pick, given each index's weight (0: never picked); -1 when every weight is 0. */
  next(weightOf: (index: number) => number): number {
    const credit = this.credit;
    let total = 0;
    let best = -1;
    for (let i = 0; i < credit.length; i++) {
      const weight = weightOf(i);
      if (weight === 0) {
        continue;
      }
      total += weight;
      credit[i] += weight;
      if (best < 0 || credit[i] > credit[best]) {
        best = i;
      }
    }
    if (best >= 0) {
      credit[best] -= total;
    }
    return best;
  }
}
