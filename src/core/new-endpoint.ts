/**
 * New endpoints: an endpoint that has never answered, and one whose
 * estimate is stale while a probe is out, are probed one call at a time.
 */
import { EndpointLoad } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * The cost of an endpoint being probed, `penaltyValue + outstanding`
 * (counting calls picked and not yet started, endpoint-load.ts `committed`)
 * (Envoy's rule): above the cost of every endpoint answering within about
 * √(penaltyValue · F / (k + 1)) ms with k calls out (the fleet penalty
 * makes a cost grow as E² / F: in a 1 ms fleet one call stalled for 0.7 s
 * prices its endpoint over 1e6), so no second call goes there before the
 * first answers while such an endpoint is drawn, and ordered by calls in
 * flight among several: two endpoints being probed drawn together give
 * one of them a second call.
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
