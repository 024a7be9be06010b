/**
 * The ejection's per-balancer state, and when it is taken again: the small
 * fleet's median of the means (small-fleet.ts), the base of the line, and
 * then the budget's line, ranked against that base (ejection-budget.ts).
 * Both are taken every n picks, whenever the READY count n changes, and
 * after new settings; in between the line stays put in units of its base.
 * One cadence for both, so a pick between rankings pays one counter.
 */
import { EjectionBudget } from './ejection-budget';
import { EndpointLoad } from './endpoint-load';
import { smallFleetMedianMs } from './small-fleet';

export class EjectionRanking {
  /** How many may be out at once, and the line that keeps the rest in. */
  readonly budget = new EjectionBudget();
  /** The small fleet's median of the means at the last ranking, in ms; 0: the line's base is F. */
  medianMs = 0;
  private readonly means: number[] = [];
  private picksUntilRanking = 0;
  private rankedAmong = -1;

  /** Whether the pick about to be made among `endpointCount` READY endpoints ranks them again; counts the pick. */
  due(endpointCount: number): boolean {
    if (endpointCount === this.rankedAmong && --this.picksUntilRanking > 0) {
      return false;
    }
    this.rankedAmong = endpointCount;
    this.picksUntilRanking = endpointCount;
    return true;
  }

  /** Makes the next pick rank, whatever the count says (new settings). */
  rankAtNextPick(): void {
    this.rankedAmong = -1;
  }

  /** Takes the small fleet's median of `candidates`' means (0 unless at most five). */
  takeMedian(candidates: readonly EndpointLoad[]): void {
    this.medianMs = smallFleetMedianMs(candidates, this.means);
  }
}
