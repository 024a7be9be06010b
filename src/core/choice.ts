/**
 * The choice: compare `choiceCount` distinct candidates and keep the
 * cheapest ("power of d choices"), or scan them all.
 *
 * Candidates are drawn uniformly at random without replacement by a partial
 * Fisher–Yates shuffle over a permutation the chooser keeps between picks
 * (with its inverse, see below): step i swaps a uniformly drawn element of
 * positions [i, n) into position i, which yields a uniform sample whatever
 * order the permutation was left in, so nothing needs resetting. A pick
 * costs at most d random draws and d cost reads: O(d), independent of the
 * number of endpoints, and no allocation. With d >= n every candidate is
 * compared.
 *
 * `rotateFirst`: the first candidate is not drawn but taken in turn: a
 * cursor walks the candidates (from a random start), so every endpoint is a
 * candidate at least once per n picks, and the other d − 1 are drawn from
 * the rest (the inverse permutation moves the rotating one to the front).
 * Random sampling alone leaves an endpoint out of the running for stretches
 * by chance and spreads calls less evenly than round robin does; which
 * models gain from the rotation is measured, not assumed
 * (`LoadModel.rotatesFirstCandidate`, docs/design.md "The choice").
 *
 * Ties go to a uniformly random one of the tied candidates (reservoir
 * sampling over the ties), so identical endpoints share evenly.
 *
 * `choiceCount = Infinity` is the deterministic least-connection rule (Envoy
 * LeastRequest's FULL_SCAN): every candidate compared, O(n) per pick.
 *
 * Ejection: given `isEjected`, a drawn candidate that is ejected does not
 * count toward the d; another is drawn instead, up to d extra draws in all
 * (so at most 2d draws, still O(d)). Any candidate that is not ejected beats
 * every ejected one; if all drawn are ejected, the cheapest of them wins, so
 * a fleet that is mostly ejected degrades to plain cost comparison instead
 * of failing. With k of n ejected, an ejected endpoint is chosen only when
 * all 2d candidates are ejected: C(k,2d)/C(n,2d) (0.07 % for 4 of 20,
 * d = 2; with the rotation too, averaged over it: (k/n) ·
 * C(k−1,2d−1)/C(n−1,2d−1) is the same), where plain power-of-d pays
 * C(k,d)/C(n,d) (3.2 %).
 */
import { RandomSource } from './random';

/** Reads the cost of candidate `index`. */
export type CostOf = (index: number) => number;
/**
 * Whether candidate `index` is ejected (skipped while others can be drawn).
 * Asked right after `costOf(index)`, for the same candidate, so an
 * implementation may answer from what that call computed.
 */
export type EjectedOf = (index: number) => boolean;

export class PowerOfChoices {
  private permutation: Int32Array = new Int32Array(0);
  /** Inverse of `permutation`: where each candidate currently sits. */
  private position: Int32Array = new Int32Array(0);
  /** The candidate taken in turn by the next pick; -1 until the first. */
  private cursor = -1;

  constructor(private readonly random: RandomSource) {}

  /**
   * Index of the chosen candidate among `candidateCount`, or -1 if there are
   * none.
   */
  choose(candidateCount: number, choiceCount: number, costOf: CostOf, isEjected?: EjectedOf, rotateFirst = false): number {
    if (candidateCount <= 0) {
      return -1;
    }
    if (candidateCount === 1) {
      return 0;
    }
    const permutation = this.permutationFor(candidateCount);
    let draws = Math.min(choiceCount, candidateCount);
    let extraDraws = isEjected === undefined ? 0 : Math.min(choiceCount, candidateCount - draws);
    let best = -1;
    let bestCost = Infinity;
    let ties = 0;
    // The cheapest ejected candidate drawn, in case nothing else is.
    let fallback = -1;
    let fallbackCost = Infinity;
    const position = this.position;
    for (let i = 0; i < draws; i++) {
      let j: number;
      if (i === 0 && rotateFirst) {
        if (this.cursor < 0) {
          // A random start, so that balancers built at the same moment do
          // not take the same endpoint in turn at the same time.
          this.cursor = Math.floor(this.random() * candidateCount);
        }
        j = position[this.cursor];
        this.cursor = this.cursor + 1 === candidateCount ? 0 : this.cursor + 1;
      } else {
        j = i + Math.floor(this.random() * (candidateCount - i));
      }
      const candidate = permutation[j];
      const displaced = permutation[i];
      permutation[j] = displaced;
      position[displaced] = j;
      permutation[i] = candidate;
      position[candidate] = i;
      const cost = costOf(candidate);
      if (isEjected !== undefined && isEjected(candidate)) {
        if (fallback < 0 || cost < fallbackCost) {
          fallback = candidate;
          fallbackCost = cost;
        }
        if (extraDraws > 0) {
          extraDraws--;
          draws++;
        }
        continue;
      }
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
    return best >= 0 ? best : fallback;
  }

  private permutationFor(candidateCount: number): Int32Array {
    if (this.permutation.length !== candidateCount) {
      this.permutation = new Int32Array(candidateCount);
      this.position = new Int32Array(candidateCount);
      for (let i = 0; i < candidateCount; i++) {
        this.permutation[i] = i;
        this.position[i] = i;
      }
      this.cursor = -1;
    }
    return this.permutation;
  }
}
