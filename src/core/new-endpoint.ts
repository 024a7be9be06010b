/**
 * New endpoints: an endpoint that has never answered (or, with M kept, has
 * answered once, with the balancer's first answer: first-answer.ts), and
 * one whose estimate is stale while a probe is out, are probed one call at
 * a time.
 */
import { EndpointLoad } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * Whether `load` has no estimate to go by yet: no answer, or only the
 * balancer's first, which is provisional (first-answer.ts).
 */
export function isNew(load: EndpointLoad): boolean {
  return !load.hasSample || load.provisional;
}

/**
 * Whether `load` is being probed: a call of this client is out to it
 * (counted from the pick, endpoint-load.ts `committed`) and it has no
 * estimate to go by, because it has never answered or its estimate is
 * `stale` (staleness.ts). Such an endpoint costs `probeCost`, the gate
 * refuses it its rotation turn (rotation.ts), and with ejection on the draw
 * looks past it for an endpoint with a price (choice.ts), so that a second
 * call goes to it only where the draw finds none cheaper.
 *
 * Why the draw looks past it, and not the cost alone: two endpoints being
 * probed drawn together compared as `penaltyValue + 1` each, so one of them
 * took a second call, and one drawn with an ejected peer took it for not
 * being ejected. A scale-out of two cold pods into four warm ones gave one
 * of them a second call of a 20-call burst in 20 of 40 seeds
 * (test/core/incumbent.test.ts; docs/tuning-log.md §53).
 */
export function isProbing(load: EndpointLoad, stale: boolean): boolean {
  return load.committed > 0 && (isNew(load) || stale);
}

/**
 * The cost of an endpoint being probed, `penaltyValue + outstanding`
 * (counting calls picked and not yet started, endpoint-load.ts `committed`)
 * (Envoy's rule): above the cost of every endpoint answering within about
 * √(penaltyValue · F / (k + 1)) ms with k calls out (the fleet penalty
 * makes a cost grow as E² / F: in a 1 ms fleet one call stalled for 0.7 s
 * prices its endpoint over 1e6), so such a peer, drawn beside it, costs
 * more. Among several being probed, and no cheaper endpoint drawn, the one
 * with the fewest calls out wins: a start-up burst larger than the fleet
 * goes to the endpoint with the fewest calls out among up to 2d drawn.
 */
export function probeCost(load: EndpointLoad, settings: PeakEwmaSettings): number {
  return settings.penaltyValue + load.committed;
}

/**
 * A new endpoint (`isNew`): free while idle, so the first pick
 * that draws it sends it a call whatever the service's speed; then
 * `probeCost` until that call answers, so each client probes it one call at
 * a time (Finagle's rule: no history costs 0, pending calls the penalty).
 * Pricing it at `defaultRtt` instead starved it: with two choices it lost to
 * every sampled peer cheaper than 10 ms, so a pod added to a fleet of a 2 ms
 * service got no calls (issue 14).
 */
export function unsampledCost(load: EndpointLoad, settings: PeakEwmaSettings): number {
  return isProbing(load, false) ? probeCost(load, settings) : 0;
}
