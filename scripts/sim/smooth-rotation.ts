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
 *
 * Ties go to the first endpoint in the list's order from the start, by
 * comparison, not by offsets added to the credits: offsets a hair apart
 * (1e-9, until 2026-12-04) vanished in rounding once weights were large
 * (oracle-static's capacity^k reached 1e8–1e26 at 2–8 slots), and every
 * client then took the list from its first entry, in step with the others.
 */
import { RandomSource } from '../../src/core/random';

export class SmoothRotation {
  private credit: number[] = [];
  private start = 0;

  /** Starts over `count` endpoints, at a random one. */
  reset(count: number, random: RandomSource): void {
    this.start = Math.floor(random() * count);
    this.credit = new Array<number>(count).fill(0);
  }

  /** The index of the next pick, given each index's weight (0: never picked); -1 when every weight is 0. */
  next(weightOf: (index: number) => number): number {
    const credit = this.credit;
    let total = 0;
    let best = -1;
    const count = credit.length;
    for (let k = 0; k < count; k++) {
      const i = (this.start + k) % count;
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
