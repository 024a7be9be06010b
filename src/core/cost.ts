/**
 * The peak-EWMA cost function: what one more call to an endpoint costs now,
 * and what a finished call's latency sample is, from the endpoint's stored
 * state, the time and the settings alone. The state it reads is kept by
 * peak-ewma-model.ts, which the engine calls.
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { sampleFrom } from './error-penalty';
import { fleetPenaltyFactor } from './fleet-penalty';
import { FleetRtt } from './fleet-rtt';
import { currentRttMs } from './memory';
import { withMeanFloorMs } from './mean';
import { isNew, isProbing, probeCost, unsampledCost } from './new-endpoint';
import { withPendingWaitMs } from './pending';
import { failuresInARowAfter, probeBackoffFactor } from './probe-backoff';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { capStaleMs, isStale } from './staleness';
import { BalancerTraffic } from './traffic';

/**
 * Peak-EWMA cost, in ms × calls. The textbook rule (Envoy, Finagle, tower):
 *
 *     cost = E(now) · (outstanding + 1)
 *
 * with E the decayed peak estimate (peak-ewma.ts), and outstanding this
 * client's calls to it, counted from their pick (endpoint-load.ts
 * `committed`: grpc-js starts a call a promise turn after picking it, and
 * the picks of one burst must see each other). Each optional mechanism
 * lives in its own module and is off when its setting is absent:
 *
 * - new-endpoint.ts   no answer yet: 0 while idle, the probe penalty
 *                     (`penaltyValue + outstanding`) while one is out,
 *                     and the draw then looks past it (choice.ts); with
 *                     M kept, the endpoint that gave the balancer's first
 *                     answer until its second (first-answer.ts);
 * - memory.ts         decay counted in the client's own calls too;
 * - staleness.ts      a stale estimate counts at most as the fleet average,
 *                     and while its probe is out costs the probe penalty;
 *                     shared-recovery.ts: stale at once when a pod that
 *                     went into the same fault has come back;
 * - pending.ts        calls waiting without an answer raise E;
 * - fleet-penalty.ts  × (E / fleet)^s above the fleet average;
 * - ejection.ts       above R × the fleet average: skipped (rate's `ejected`),
 *                     judged on the estimate or on the mean answer (mean.ts),
 *                     which only a probe resets and whose slow answers back
 *                     the probes off; ejection-budget.ts: at most P % of
 *                     the endpoints at once, the slowest; small-fleet.ts:
 *                     of at most five, R × the median mean instead, and
 *                     ejection-ranking.ts: when both are taken again;
 *                     slow-start.ts: an endpoint that joins a running
 *                     fleet is not ejected for its latency for a window,
 *                     and takes (F / S)² of the turns its mean loses;
 * - mean.ts           while fresh, E counts at least the mean answer M;
 * - error-penalty.ts  what a failed call teaches;
 * - probe-backoff.ts  after failures in a row, a larger penalty and
 *                     rarer probes;
 * - methods.ts        samples in units of their method's fleet average, and
 *                     (`methodScoring: "work"`) in-flight calls weighted by
 *                     their method: cost = E · (work + w).
 *
 * Two more live outside the cost: what E decays toward between samples
 * (memory.ts: 0, or the fleet average), and who is offered the call before
 * any cost is compared (rotation.ts: the next endpoint in a rotation, while
 * it looks typical).
 */
export function peakEwmaCost(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): number {
  if (isNew(load)) {
    return unsampledCost(load, settings);
  }
  const stale = isStale(load, nowMs, settings, fleet, traffic);
  return costFromEstimate(load, stale, estimateWith(load, currentRttMs(load, nowMs, settings, traffic, fleet), stale, nowMs, settings, fleet), settings, fleet);
}

/**
 * The cost of a sampled endpoint whose estimate (as `estimateMs` gives it)
 * is `rttMs`, for a call weighing `callWeight` (methods.ts); while fresh,
 * priced at least at its mean answer (mean.ts `withMeanFloorMs`).
 */
export function costFromEstimate(
  load: EndpointLoad,
  stale: boolean,
  rttMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  callWeight = 1,
): number {
  if (isProbing(load, stale)) {
    // A stale estimate is no estimate: probe one call at a time, as a new endpoint.
    return probeCost(load, settings);
  }
  const calls = settings.methodScoring === 'work' ? load.committedWork + callWeight : load.committed + 1;
  const pricedMs = withMeanFloorMs(load, rttMs, stale, settings);
  return pricedMs * calls * fleetPenaltyFactor(pricedMs, settings, fleet);
}

/**
 * The estimate the cost uses: `currentRttMs`, at most the fleet average once
 * stale (staleness.ts), at least the wait of calls in flight (pending.ts).
 * A function of stored state, the time and the call count only.
 */
export function estimateMs(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): number {
  return estimateWith(load, currentRttMs(load, nowMs, settings, traffic, fleet), isStale(load, nowMs, settings, fleet, traffic), nowMs, settings, fleet);
}

/**
 * `estimateMs` from its parts, so that a caller that already has the decayed
 * estimate (`currentRttMs`) and staleness does not compute them again.
 */
export function estimateWith(
  load: EndpointLoad,
  currentMs: number,
  stale: boolean,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
): number {
  return withPendingWaitMs(load, capStaleMs(currentMs, stale, fleet), nowMs, settings);
}

/**
 * The latency sample a finished call contributes, or null for none: the
 * estimate it is judged against computed here (`estimateMs`; none before
 * the first sample). The model's accounting calls `sampleWith`.
 */
export function sampleForOutcome(
  load: EndpointLoad,
  outcome: CallOutcome,
  elapsedMs: number,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): number | null {
  const estimateNowMs = load.hasSample ? estimateMs(load, nowMs, settings, fleet, traffic) : undefined;
  return sampleWith(outcome, elapsedMs, estimateNowMs, failuresInARowAfter(load, outcome), settings, fleet);
}

/**
 * `sampleForOutcome` given what the caller already has: the endpoint's
 * estimate now (`estimateMs`; undefined before its first sample) and
 * the failures in a row this outcome makes (probe-backoff.ts
 * `failuresInARowAfter`). The error penalty (error-penalty.ts) on the fleet
 * average, scaled by their probe back-off. `elapsedMs` in the unit the
 * estimate is kept in (methods.ts `normalisedElapsedMs` when the call has a
 * method).
 */
export function sampleWith(
  outcome: CallOutcome,
  elapsedMs: number,
  estimateNowMs: number | undefined,
  failuresInARow: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
): number | null {
  return sampleFrom(outcome, elapsedMs, estimateNowMs, settings, fleetRttOf(fleet), probeBackoffFactor(failuresInARow, settings));
}

/** The fleet average, or undefined before its first sample. */
export function fleetRttOf(fleet?: FleetRtt): number | undefined {
  return fleet !== undefined && fleet.hasSample ? fleet.rttMs : undefined;
}
