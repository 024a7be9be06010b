/**
 * New endpoints: an endpoint that has never answered, and one whose
 * estimate is stale while a probe is out, are probed one call at a time.
 */
import { EndpointLoad } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * Whether `load` is being probed: a call of this client is out to it
 * (counted from the pick, endpoint-load.ts `committed`) and it has no
 * estimate to go by, because it has never answered or its estimate is
 * `stale` (staleness.ts). Such an endpoint costs `probeCost` and is
 * skipped by the draw while others can be drawn, as an ejected one is
 * (choice.ts), so that a second call goes to it only when every candidate
 * drawn is being probed or ejected.
 *
 * Why the skip, and not the cost alone: two endpoints being probed drawn
 * together compare as `penaltyValue + 1` each, so one of them took a
 * second call, and one being probed drawn with an ejected one took it
 * because it was not ejected. A scale-out of two cold pods into four warm
 * ones gave one of them a second call of a 20-call burst in 20 of 40
 * seeds (test/core/incumbent.test.ts; docs/tuning-log.md §53).
 */
export function isProbing(load: EndpointLoad, stale: boolean): boolean {
  return load.committed > 0 && (!load.hasSample || stale);
}

/**
 * The cost of an endpoint being probed, `penaltyValue + outstanding`
 * (counting calls picked and not yet started, endpoint-load.ts `committed`)
 * (Envoy's rule): above the cost of every endpoint answering within about
 * √(penaltyValue · F / (k + 1)) ms with k calls out (the fleet penalty
 * makes a cost grow as E² / F: in a 1 ms fleet one call stalled for 0.7 s
 * prices its endpoint over 1e6). Where every candidate drawn is skipped
 * (`isProbing`, or ejected) the cheapest wins, so a start-up burst larger
 * than the fleet goes to the endpoint with the fewest calls out among the
 * up to 2d drawn.
 */
export function probeCost(load: EndpointLoad, settings: PeakEwmaSettings): number {
  return settings.penaltyValue + load.committed;
}

/**
 * An endpoint that has never answered: free while idle, so the first pick
 * that draws it sends it a call whatever the service's speed; then
 * `probeCost` until that call answers, so each client probes it one call at
 * a time (Finagle's rule: no history costs 0, pending calls the penalty).
 * Pricing it at `defaultRtt` instead starved it: with two choices it lost to
 * every sampled peer cheaper than 10 ms, so a pod added to a fleet of a 2 ms
 * service got no calls (issue 14).
 */
export function unsampledCost(load: EndpointLoad, settings: PeakEwmaSettings): number {
  return load.committed > 0 ? probeCost(load, settings) : 0;
}
