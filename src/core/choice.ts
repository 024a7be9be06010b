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
 * Ejection: given `isEjected`, a drawn candidate that is ejected does not
 * count toward the d; another is drawn instead, up to d extra draws in all
 * (so at most 2d draws, still O(d)). Any candidate that is not ejected beats
 * every ejected one; if all drawn are ejected, the cheapest of them wins, so
 * a fleet that is mostly ejected degrades to plain cost comparison instead
 * of failing. With k of n ejected and none being probed, an ejected
 * endpoint is chosen only when all 2d draws land on ejected ones:
 * C(k,2d)/C(n,2d) (0.02 % for 4 of 20, d = 2), where plain power-of-d pays
 * C(k,d)/C(n,d) (3.2 %).
 *
 * Probes: given `isProbed` too (peak_ewma, with ejection on), a drawn
 * candidate being probed (new-endpoint.ts: a call out and no estimate, so
 * its cost is the probe penalty) does not count toward the d either, so the
 * draw looks on for an endpoint with a price; but it keeps its cost. It
 * wins over the candidates with a price only where it is cheaper (a peer
 * whose calls have hung past the penalty), and where every candidate drawn
 * is ejected or being probed, the cheapest of them wins, an ejected one
 * nearly always. Without it, two endpoints being probed drawn together
 * compared as `penaltyValue + 1` each and one took a second call, and one
 * drawn with an ejected peer took it for not being ejected
 * (docs/tuning-log.md §53).
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
/** Whether candidate `index` is being probed; asked right after `EjectedOf`, for the same candidate. */
export type ProbedOf = (index: number) => boolean;

export class PowerOfChoices {
  private permutation: Int32Array = new Int32Array(0);
  // What the last drawBest found, so that drawing allocates nothing.
  private best = -1;
  private bestCost = Infinity;
  private bestEjected = false;
  // The cheapest priced and the cheapest probed candidate of a draw, reused so that drawing allocates nothing.
  private readonly priced = new Cheapest();
  private readonly probed = new Cheapest();

  constructor(private readonly random: RandomSource) {}

  /**
   * Index of the chosen candidate among `candidateCount`, or -1 if there are
   * none.
   */
  choose(candidateCount: number, choiceCount: number, costOf: CostOf, isEjected?: EjectedOf, isProbed?: ProbedOf): number {
    if (candidateCount <= 0) {
      return -1;
    }
    if (candidateCount === 1) {
      return 0;
    }
    this.drawBest(candidateCount, choiceCount, costOf, isEjected, isProbed, -1);
    return this.best;
  }

  /**
   * The incumbent rule: `incumbent` (the next in the caller's rotation,
   * costing `incumbentCost`, not ejected: an ejected one leaves the call to
   * `choose`) against the cheapest of `choiceCount − 1` other candidates
   * drawn as `choose` draws them. The challenger wins only if it is not
   * ejected and costs less than `margin` × the incumbent's cost; otherwise
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
    isEjected?: EjectedOf,
    isProbed?: ProbedOf,
  ): number {
    if (candidateCount <= 1) {
      return candidateCount - 1;
    }
    this.drawBest(candidateCount, choiceCount - 1, costOf, isEjected, isProbed, incumbent);
    if (this.best < 0 || this.bestEjected) {
      return incumbent;
    }
    return this.bestCost < margin * incumbentCost ? this.best : incumbent;
  }

  /**
   * Draws `wanted` distinct candidates other than `exclude` (-1: none) and
   * leaves the winner by the rules of the header in `best`, `bestCost`,
   * `bestEjected`: the cheapest with a price, unless one being probed is
   * cheaper; with none priced, the cheaper of the cheapest being probed and
   * the cheapest ejected.
   */
  private drawBest(candidateCount: number, wanted: number, costOf: CostOf, isEjected: EjectedOf | undefined, isProbed: ProbedOf | undefined, exclude: number): void {
    const permutation = this.permutationFor(candidateCount);
    const pool = exclude < 0 ? candidateCount : candidateCount - 1;
    let draws = Math.min(wanted, pool);
    let extraDraws = isEjected === undefined ? 0 : Math.min(wanted, pool - draws);
    const priced = this.priced.reset();
    const probed = this.probed.reset();
    // The cheapest ejected candidate drawn, in case nothing else is.
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
      const ejected = isEjected !== undefined && isEjected(candidate);
      if (ejected && (fallback < 0 || cost < fallbackCost)) {
        fallback = candidate;
        fallbackCost = cost;
      }
      const beingProbed = !ejected && isProbed !== undefined && isProbed(candidate);
      if (ejected || beingProbed) {
        if (extraDraws > 0) {
          extraDraws--;
          draws++;
        }
      }
      if (!ejected) {
        (beingProbed ? probed : priced).offer(candidate, cost, this.random);
      }
    }
    let best = priced.index;
    let bestCost = priced.cost;
    // A probe beats the priced only when cheaper, and with none priced the ejected on a tie (fallbackCost is Infinity without one).
    if (probed.index >= 0 && (best >= 0 ? probed.cost < bestCost : probed.cost <= fallbackCost)) {
      best = probed.index;
      bestCost = probed.cost;
    }
    this.bestEjected = best < 0 && fallback >= 0;
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

/** The cheapest candidate offered so far, ties to a uniformly random one of them (reservoir sampling). */
class Cheapest {
  index = -1;
  cost = Infinity;
  private ties = 0;

  reset(): this {
    this.index = -1;
    this.cost = Infinity;
    this.ties = 0;
    return this;
  }

  offer(candidate: number, cost: number, random: RandomSource): void {
    if (cost < this.cost || this.index < 0) {
      this.index = candidate;
      this.cost = cost;
      this.ties = 1;
    } else if (cost === this.cost) {
      this.ties++;
      if (random() * this.ties < 1) {
        this.index = candidate;
      }
    }
  }
}
