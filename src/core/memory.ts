/**
 * Memory: how much of an endpoint's estimate is left since its last sample.
 * The textbook decay is exp(−Δt/τ) (peak-ewma.ts). A client that sends each
 * endpoint less than a call per τ would forget an endpoint's latency before
 * it samples it again, and compare noise; counted in its own calls, its
 * memory lasts as many of its calls as a busy client's does.
 */
import { EndpointLoad } from './endpoint-load';
import { retainedFraction } from './peak-ewma';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { BalancerTraffic } from './traffic';

/** The endpoint's RTT estimate at `nowMs` (defaultRtt before its first sample). */
export function currentRttMs(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, traffic?: BalancerTraffic): number {
  if (!load.hasSample) {
    return settings.defaultRttMs;
  }
  return load.rttMs * retainedAt(load, nowMs, settings, traffic);
}

/**
 * The share of the estimate left since its last sample: exp(−Δt/τ), or,
 * with `decayFairShares` C and `traffic`, exp(−min(Δt/τ, Δcalls/(C·n))) with
 * Δcalls the balancer's calls since the sample and n its READY endpoints:
 * a client that sends each endpoint few calls forgets at most 1/e per C
 * fair shares of its own calls instead of per τ.
 */
export function retainedAt(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, traffic?: BalancerTraffic): number {
  const elapsedMs = nowMs - load.sampledAtMs;
  const shares = settings.decayFairShares;
  if (!shares || traffic === undefined || traffic.readyEndpoints === 0 || !(elapsedMs > 0)) {
    return retainedFraction(elapsedMs, settings.decayMs);
  }
  const byCalls = (traffic.callsStarted - load.sampledAtCall) / (shares * traffic.readyEndpoints);
  return Math.exp(-Math.min(elapsedMs / settings.decayMs, byCalls));
}
