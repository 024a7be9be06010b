/**
 * In a small fleet the ejection line is a multiple of the typical
 * endpoint's mean answer, not of the fleet average: with at most
 * SMALL_FLEET_MAX READY endpoints, of the median of their means M
 * (mean.ts; of an even count the lower of the middle two), so that
 *
 *     ejected ⇔ M > R × median(M₁ … Mₙ)        (n ≤ 5; else M > R × F)
 *
 * Why. F weighs every call alike, so it sits near the endpoints that carry
 * the calls, and the engine steers calls to whichever answers fastest now.
 * In a fleet of three at two slots with one backend at a fifth of its speed
 * (the brownout, 70 % load) the other two run at about 95 % of their
 * capacity: each one's queue takes its mean over 1.5 × F in turn, and with
 * a budget of one (ejection-budget.ts) it is put out whenever the slow one,
 * back on a lucky probe, is not over the line. Its calls then go to a
 * single healthy backend and the slow one, and the queues reach the
 * deadline: 7 of 20 real-gRPC runs failed 1.2–3.6 % of their calls, the
 * simulator tipped at 4 of 5 seeds (docs/tuning-log.md §40). That is what the
 * tipping looks like; what causes it is the load: 70 % of the three pods'
 * nominal capacity is 95 % of what they have with one at a fifth of its
 * speed, so the fleet needs the slow pod's fifth, and a line at R × F puts
 * it out too often. A line that only protects the healthy pods (never out
 * at or below the median, else R × F) still tips (§41). Against the median
 * of the means the median endpoint, and every one faster, is never over the
 * line (R > 1), so at most ⌊n/2⌋ can be out (as of the median's last
 * ranking, ejection-ranking.ts: every n picks), and they are the ones
 * slower than the typical endpoint, not those queued behind it: the
 * brownout holds at every seed (83–105 ms against 443–495; over real gRPC
 * 0 of 10 runs tipped), the identical fleet reads the same. The uneven
 * fleet of three pays for it: its slow pod keeps more calls, so fewer go
 * to the pod that fails 5 % of them (its fast UNAVAILABLEs are all of the
 * fleet's failures, §42): 1.43 % fail against 1.67 % in the simulator,
 * but the OK calls' p99 is 103 ms against 77 (real gRPC: 1.56 against
 * 1.57 % failed, 217 against 175 ms; §41).
 *
 * Why only small fleets. In the regime grid's fleets of 20 the median of
 * 8-answer means at one slot × 64 clients judged worse than F (seed 1:
 * brownout 55.2 → 59.5 ms, half-speed pods 105.5 → 111.1, the identical
 * fleet 36.0 → 36.7 against a bound of 36.8), where F already sits on the
 * healthy majority. Five is the largest fleet measured with it (5 backends
 * × 90 % load: 44.8 → 44.9 ms over 10 seeds); a fleet
 * of six is judged against F, as before. The lower of the middle two: of
 * two endpoints the faster is the reference, so the slower is out above
 * R × its mean, as against F; the plain median (their average) would keep
 * a backend twice as slow in (test/core/methods.test.ts caught it).
 */
import { EndpointLoad } from './endpoint-load';

/** The largest READY count judged against the median of the means. */
export const SMALL_FLEET_MAX = 5;

/**
 * The median of the means M in ms of the endpoints that have one (the lower
 * middle one of an even count; an endpoint that has only failed has none,
 * and one whose only answer is the balancer's provisional first none yet:
 * first-answer.ts),
 * or 0, judged against F: no answer yet, or more than
 * SMALL_FLEET_MAX endpoints. `means` is scratch, so that it allocates
 * nothing once warm; taken when the budget ranks (ejection-ranking.ts).
 */
export function smallFleetMedianMs(candidates: readonly EndpointLoad[], means: number[]): number {
  means.length = 0;
  if (candidates.length <= SMALL_FLEET_MAX) {
    for (const load of candidates) {
      if (load.hasMean && !load.provisional) {
        means.push(load.meanRttMs);
      }
    }
  }
  const n = means.length;
  if (n === 0) {
    return 0;
  }
  means.sort(ascending);
  return means[(n - (n % 2 === 1 ? 1 : 2)) / 2];
}

function ascending(a: number, b: number): number {
  return a - b;
}
