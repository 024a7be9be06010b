/**
 * The scan the yardsticks share: of some backends, the one of least cost,
 * ties broken uniformly by reservoir sampling in scan order. The first is the
 * best so far whatever its cost (even Infinity), and a random number is drawn
 * at each later backend that ties the best so far, no other: keeping that
 * count and order is what keeps a run's results reproducible.
 */
import { RandomSource } from '../../src/core/random';

/** Of `ids[0..count)`, the id of least `costs[id]`; -1 when count is 0. */
export function cheapestOf(ids: ArrayLike<number>, count: number, costs: ArrayLike<number>, random: RandomSource): number {
  if (count <= 0) {
    return -1;
  }
  let best = ids[0];
  let bestCost = costs[best];
  let ties = 1;
  for (let i = 1; i < count; i++) {
    const id = ids[i];
    const cost = costs[id];
    if (cost < bestCost) {
      best = id;
      bestCost = cost;
      ties = 1;
    } else if (cost === bestCost && random() * ++ties < 1) {
      best = id;
    }
  }
  return best;
}
