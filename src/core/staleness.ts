/**
 * The bound on latency ejection: an estimate not refreshed by a sample for
 * `maxEjectionMs` — and, given `probeFairShares` K, for K fair shares of the
 * balancer's own calls — counts at most as the fleet average, so an endpoint
 * avoided for its latency or errors is probed again and a stale peak cannot
 * keep a healed backend out (docs/tuning-log.md §2).
 */
import { EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { probeFairSharesOf } from './probe-backoff';
import { BalancerTraffic } from './traffic';

/**
 * How long an endpoint not heard from is left before it is probed again:
 * `maxEjectionMs` T, or without it the decay's τ, which then is what brings
 * an estimate back. What the rotation's gate counts a failure as recent for
 * (rotation.ts), and how long a channel runs before a new endpoint counts as
 * a joiner (slow-start.ts).
 */
export function probeIntervalMs(settings: PeakEwmaSettings): number {
  return settings.maxEjectionMs || settings.decayMs;
}

/**
 * Whether `load`'s estimate is stale at `nowMs` (never without a fleet
 * average): as above, or at once while a peer that went into the same
 * fault has come back (shared-recovery.ts).
 */
export function isStale(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): boolean {
  const maxEjectionMs = settings.maxEjectionMs;
  if (!maxEjectionMs || !load.hasSample || fleet === undefined || !fleet.hasSample) {
    return false;
  }
  if (traffic !== undefined && traffic.recovery.probeDue(load, settings)) {
    return true;
  }
  if (nowMs - load.sampledAtMs < maxEjectionMs) {
    return false;
  }
  const fairShares = probeFairSharesOf(load, settings);
  // Old enough; stale once it has also missed K fair shares of this balancer's calls.
  return !fairShares || traffic === undefined || traffic.sharesSince(load) >= fairShares;
}

/** A stale estimate counts at most as the fleet average. */
export function capStaleMs(rttMs: number, stale: boolean, fleet?: FleetRtt): number {
  return stale && rttMs > fleet!.rttMs ? fleet!.rttMs : rttMs;
}
