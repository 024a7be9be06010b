/**
 * The ejection budget (`maxEjectionPercent` P): of a balancer's n READY
 * endpoints at most
 *
 *     k = max(1, ⌊P · n / 100⌋)
 *
 * are ejected (ejection.ts) at once, as of the latest ranking (below):
 * between rankings the line stays put, and answers that arrive meanwhile
 * can put more over it, for at most n − 1 picks.
 *
 * Why. An ejected endpoint's calls go to the others. A large fleet at the
 * reference's 70 % load absorbs a few slow pods' shares; a small or busy
 * one cannot. At 5 backends × 90 % load (the sensitivity grid's uneven
 * fleet) the line at 1.5 × F put more than one of the five out at once,
 * and the rest ran past their capacity: p99 44 → 50 ms when the line came
 * down from 1.8, 44.8 with a budget of two, 41.6 with one (docs/tuning-log.md
 * §38, §39). Envoy's and gRPC's outlier detection bound their ejections
 * the same way (max_ejection_percent, 10 % by default, gRFC A50), and as
 * theirs do, one endpoint may always be ejected, so that a fleet of two
 * or three can still put out its slow pod.
 *
 * How. While more than k endpoints are over the line R × F, the line rises
 * to the (k+1)-th highest ratio to F, so the k slowest stay out, the next
 * sits on the line (out while its ratio is above where it was ranked), and
 * the others are weighed by their cost like any endpoint. So the budget is
 * k, and the endpoint at its edge part of the time. Where endpoints tie at
 * the edge (equal signals: pods that all time out at the same deadline),
 * no line between ratios can part them, and the line on their common
 * ratio lets every one of them in; so the ranking names which of the tied
 * make up the k, the first ones in the READY list, and those stay out
 * until the next ranking while they are over R (`tiedOut`). When the ratios are
 * ranked again: ejection-ranking.ts (every n picks and whenever n changes);
 * between rankings the line stays put in units of its base. A ranking
 * sorts at most n numbers: O(log n) per pick, amortised, and no allocation
 * once warm.
 */

import { EndpointLoad } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/** How many of `endpointCount` endpoints may be ejected at once: ⌊P · n / 100⌋, and at least one. */
export function ejectionBudget(endpointCount: number, maxEjectionPercent: number): number {
  return Math.max(1, Math.floor((maxEjectionPercent * endpointCount) / 100));
}

/** Whether `settings` have a budget that can bind: ejection on, and a percentage under 100 (absent: none). */
export function budgetApplies(settings: PeakEwmaSettings): boolean {
  const percent = settings.maxEjectionPercent;
  return !!settings.ejectionRatio && percent !== undefined && percent < 100;
}

export class EjectionBudget {
  /**
   * The ejection line in units of its base (ejection.ts `lineBaseMs`) as of
   * the last ranking: R, or higher while more than the budget were over R.
   */
  lineRatio = 0;
  /** k as of the last ranking: how many of the endpoints then READY may be out at once; 0 before the first. */
  allowed = 0;
  /** Rankings so far: the mark of the tied endpoints the latest one keeps out (`EndpointLoad.tiedOutAtRanking`). */
  private rankings = 0;
  private readonly ratios: number[] = [];

  /**
   * Ranks `endpoints` (the READY ones) under `settings`' R and P (where
   * `budgetApplies`): `ratioOf` gives an endpoint's signal over the line's
   * base, NaN for one that cannot be ejected now.
   */
  rank(endpoints: readonly EndpointLoad[], ratioOf: (endpoint: EndpointLoad) => number, settings: PeakEwmaSettings): void {
    this.rankings++;
    this.allowed = ejectionBudget(endpoints.length, settings.maxEjectionPercent ?? 100);
    this.lineRatio = this.rankedLine(endpoints, ratioOf, settings.ejectionRatio ?? 0, this.allowed);
  }

  /**
   * Whether `load` is one of the endpoints tied at the edge that the latest
   * ranking keeps out (see the header): what the line cannot say of them.
   * The caller asks only of an endpoint that is not over the line.
   */
  tiedOut(load: EndpointLoad): boolean {
    return load.tiedOutAtRanking === this.rankings;
  }

  /** R, or the (k+1)-th highest ratio when more than k are over R. */
  private rankedLine(endpoints: readonly EndpointLoad[], ratioOf: (endpoint: EndpointLoad) => number, ejectionRatio: number, budget: number): number {
    const over = this.ratios;
    over.length = 0;
    for (const endpoint of endpoints) {
      const ratio = ratioOf(endpoint);
      if (ratio > ejectionRatio) {
        over.push(ratio);
      }
    }
    if (over.length <= budget) {
      return ejectionRatio;
    }
    over.sort(descending);
    // On the first one let in, not between it and the last kept out: until the next
    // ranking it is out while its ratio is above where it was ranked, about half the
    // time. A line set midway kept it in and measured worse where the budget binds
    // (5 backends × 90 % load 44.8 → 48.4 ms, 3 × 2 slots brownout 395 → 447 ms:
    // docs/tuning-log.md §39): the edge endpoint is over R too, and part of its calls
    // belong elsewhere.
    const line = over[budget];
    if (over[budget - 1] === line) {
      this.markTiedOut(endpoints, ratioOf, line, budget - over.indexOf(line));
    }
    return line;
  }

  /** Marks the first `count` of `endpoints` whose ratio is `line` as kept out by this ranking. */
  private markTiedOut(endpoints: readonly EndpointLoad[], ratioOf: (endpoint: EndpointLoad) => number, line: number, count: number): void {
    for (let i = 0; i < endpoints.length && count > 0; i++) {
      if (ratioOf(endpoints[i]) === line) {
        endpoints[i].tiedOutAtRanking = this.rankings;
        count--;
      }
    }
  }
}

function descending(a: number, b: number): number {
  return b - a;
}
