/**
 * Memory: how much of an endpoint's estimate is left since its last sample,
 * and what the rest decays toward.
 *
 * How much: the textbook decay is exp(−Δt/τ) (peak-ewma.ts). A client that
 * sends each endpoint less than a call per τ would forget an endpoint's
 * latency before it samples it again, and compare noise; counted in its own
 * calls (`decayFairShares`), its memory lasts as many of its calls as a
 * busy client's does.
 *
 * Toward what (`decayToward`): the textbook decays toward 0, so an endpoint
 * that nobody has sampled for a while looks faster than every endpoint that
 * was just measured, and the less a client knows about an endpoint the more
 * it sends there: with 64 light clients every one of them re-admitted a
 * slow backend about once per τ, whatever it had learnt. Decayed toward the
 * fleet average F instead, an endpoint not heard from reverts to "typical",
 * never to "best"; a probe is still due once the estimate is stale
 * (staleness.ts), which no longer depends on the decay. With the rest of
 * the defaults, on the regime grid at one slot × 64 clients: uneven fleet
 * 165 → 133 ms, identical 37.7 → 36.3 (round_robin 36.1), s10 131 → 126;
 * the crash loop's errors 0.112 → 0.105 % (docs/tuning-log.md §14).
 */
import { FleetRtt } from './fleet-rtt';
import { EndpointLoad } from './endpoint-load';
import { retainedFraction } from './peak-ewma';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { BalancerTraffic } from './traffic';

/** The endpoint's RTT estimate at `nowMs` (defaultRtt before its first sample). */
export function currentRttMs(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, traffic?: BalancerTraffic, fleet?: FleetRtt): number {
  if (!load.hasSample) {
    return settings.defaultRttMs;
  }
  return decayedEstimateMs(load.rttMs, retainedAt(load, nowMs, settings, traffic), settings, fleet);
}

/**
 * An estimate of `rttMs` with the share `retained` of it left: decayed
 * toward 0 (the textbook: E · retained), or with `decayToward` "fleet"
 * toward the fleet average F once there is one: F + (E − F) · retained.
 */
export function decayedEstimateMs(rttMs: number, retained: number, settings: PeakEwmaSettings, fleet?: FleetRtt): number {
  if (settings.decayToward === 'fleet' && fleet !== undefined && fleet.hasSample) {
    return fleet.rttMs + (rttMs - fleet.rttMs) * retained;
  }
  return rttMs * retained;
}

/**
 * The share of the estimate left since its last sample: exp(−Δt/τ), or,
 * with `decayFairShares` C and `traffic`, exp(−min(Δt/τ, Δs/C)) with Δs
 * the fair shares of the balancer's calls started since the sample (its
 * calls ÷ the READY endpoints they were sent among: traffic.ts):
 * a client that sends each endpoint few calls forgets at most 1/e per C
 * fair shares of its own calls instead of per τ.
 */
export function retainedAt(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, traffic?: BalancerTraffic): number {
  const elapsedMs = nowMs - load.sampledAtMs;
  const shares = settings.decayFairShares;
  if (!shares || traffic === undefined || traffic.readyEndpoints === 0 || !(elapsedMs > 0)) {
    return retainedFraction(elapsedMs, settings.decayMs);
  }
  const byCalls = traffic.sharesSince(load, shares);
  return Math.exp(-Math.min(elapsedMs / settings.decayMs, byCalls));
}
