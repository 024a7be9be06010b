/**
 * The choice: sample `choiceCount` distinct candidates uniformly at random and
 * keep the cheapest ("power of d choices"), or scan them all.
 *
 * Sampling is a partial Fisher–Yates shuffle over a permutation the chooser
 * keeps between picks: step i swaps a uniformly drawn element of positions
 * [i, n) into position i. Whatever order the permutation was left in, the
 * first d positions are then a uniformly random ordered sample without
 * replacement, so nothing needs resetting. A pick costs d random draws and d
 * cost reads: O(d), independent of the number of endpoints, and no
 * allocation. With d >= n every candidate is compared.
 *
 * Ties go to a uniformly random one of the tied candidates (reservoir
 * sampling over the ties), so identical endpoints share evenly.
 *
 * `choiceCount = Infinity` is the deterministic least-connection rule (Envoy
 * LeastRequest's FULL_SCAN): every candidate compared, O(n) per pick.
 */
import { RandomSource } from './random';

/** Reads the cost of candidate `index`. */
export type CostOf = (index: number) => number;

export class PowerOfChoices {
  private permutation: Int32Array = new Int32Array(0);

  constructor(private readonly random: RandomSource) {}

  /**
   * Index of the chosen candidate among `candidateCount`, or -1 if there are
   * none.
   */
  choose(candidateCount: number, choiceCount: number, costOf: CostOf): number {
    if (candidateCount <= 0) {
      return -1;
    }
    if (candidateCount === 1) {
      return 0;
    }
    const permutation = this.permutationFor(candidateCount);
    const draws = Math.min(choiceCount, candidateCount);
    let best = -1;
    let bestCost = Infinity;
    let ties = 0;
    for (let i = 0; i < draws; i++) {
      const j = i + Math.floor(this.random() * (candidateCount - i));
      const candidate = permutation[j];
      permutation[j] = permutation[i];
      permutation[i] = candidate;
      const cost = costOf(candidate);
      if (cost < bestCost || best < 0) {
        best = candidate;
        bestCost = cost;
        ties = 1;
      } else if (cost === bestCost) {
        ties++;
        if (this.random() * ties < 1) {
          best = candidate;
        }
      }
    }
    return best;
  }

  private permutationFor(candidateCount: number): Int32Array {
    if (this.permutation.length !== candidateCount) {
      this.permutation = new Int32Array(candidateCount);
      for (let i = 0; i < candidateCount; i++) {
        this.permutation[i] = i;
      }
    }
    return this.permutation;
  }
}
