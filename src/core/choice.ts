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
 *
 * Skipped candidates: given `isSkipped` (peak_ewma skips an ejected
 * endpoint, ejection.ts, and one being probed, new-endpoint.ts), a drawn
 * candidate that is skipped does not count toward the d; another is drawn
 * instead, up to d extra draws in all (so at most 2d draws, still O(d)).
 * Any candidate that is not skipped beats every skipped one; if all drawn
 * are skipped, the cheapest of them wins, so a fleet that is mostly
 * ejected degrades to plain cost comparison instead of failing. With k of
 * n ejected, an ejected endpoint is chosen only when all 2d draws land on
 * skipped ones: C(k,2d)/C(n,2d) (0.02 % for 4 of 20, d = 2), where plain
 * power-of-d pays C(k,d)/C(n,d) (3.2 %).
 */
import { RandomSource } from './random';

/** Reads the cost of candidate `index`. */
export type CostOf = (index: number) => number;
/**
 * Whether candidate `index` is skipped while others can be drawn (ejected,
 * or being probed). Asked right after `costOf(index)`, for the same
 * candidate, so an implementation may answer from what that call computed.
 */
export type SkippedOf = (index: number) => boolean;
/** The name `SkippedOf` had while only ejected candidates were skipped. */
export type EjectedOf = SkippedOf;

export class PowerOfChoices {
  private permutation: Int32Array = new Int32Array(0);
  // What the last drawBest found, so that drawing allocates nothing.
  private best = -1;
  private bestCost = Infinity;
  private bestSkipped = false;

  constructor(private readonly random: RandomSource) {}

  /**
   * Index of the chosen candidate among `candidateCount`, or -1 if there are
   * none.
   */
  choose(candidateCount: number, choiceCount: number, costOf: CostOf, isSkipped?: SkippedOf): number {
    if (candidateCount <= 0) {
      return -1;
    }
    if (candidateCount === 1) {
      return 0;
    }
    this.drawBest(candidateCount, choiceCount, costOf, isSkipped, -1);
    return this.best;
  }

  /**
   * The incumbent rule: `incumbent` (the next in the caller's rotation,
   * costing `incumbentCost`, not skipped: a skipped one leaves the call to
   * `choose`) against the cheapest of `choiceCount − 1` other candidates
   * drawn as `choose` draws them. The challenger wins only if it is not
   * skipped and costs less than `margin` × the incumbent's cost; otherwise
   * the incumbent keeps its turn. With nothing to tell candidates apart the
   * picks follow the rotation, so each endpoint gets every n-th call, as
   * under round_robin, where two random draws spread them like independent
   * arrivals (the queueing that costs at 1–2 slots per backend); a clearly
   * cheaper challenger still takes the call.
   */
  chooseAgainst(
    incumbent: number,
    incumbentCost: number,
    candidateCount: number,
    choiceCount: number,
    margin: number,
    costOf: CostOf,
    isSkipped?: SkippedOf,
  ): number {
    if (candidateCount <= 1) {
      return candidateCount - 1;
    }
    this.drawBest(candidateCount, choiceCount - 1, costOf, isSkipped, incumbent);
    if (this.best < 0 || this.bestSkipped) {
      return incumbent;
    }
    return this.bestCost < margin * incumbentCost ? this.best : incumbent;
  }

  /**
   * Draws `wanted` distinct candidates other than `exclude` (-1: none) and
   * leaves the cheapest one not skipped (or the cheapest skipped one if all
   * are) in `best`, `bestCost`, `bestSkipped`.
   */
  private drawBest(candidateCount: number, wanted: number, costOf: CostOf, isSkipped: SkippedOf | undefined, exclude: number): void {
    const permutation = this.permutationFor(candidateCount);
    const pool = exclude < 0 ? candidateCount : candidateCount - 1;
    let draws = Math.min(wanted, pool);
    let extraDraws = isSkipped === undefined ? 0 : Math.min(wanted, pool - draws);
    let best = -1;
    let bestCost = Infinity;
    let ties = 0;
    // The cheapest skipped candidate drawn, in case nothing else is.
    let fallback = -1;
    let fallbackCost = Infinity;
    for (let i = 0; i < draws; i++) {
      const j = i + Math.floor(this.random() * (candidateCount - i));
      const candidate = permutation[j];
      permutation[j] = permutation[i];
      permutation[i] = candidate;
      if (candidate === exclude) {
        // Not a challenger: one more position instead (it occurs once, so at most n positions in all).
        draws++;
        continue;
      }
      const cost = costOf(candidate);
      if (isSkipped !== undefined && isSkipped(candidate)) {
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
    this.bestSkipped = best < 0 && fallback >= 0;
    this.best = best >= 0 ? best : fallback;
    this.bestCost = best >= 0 ? bestCost : fallbackCost;
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
