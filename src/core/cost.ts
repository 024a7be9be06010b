/**
 * Cost models: how much a call sent to an endpoint is expected to cost, and
 * how a finished call changes that. Lower is better. Both policies share all
 * other machinery; only this differs.
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { blendRttMs, decayedRttMs, retainedFraction } from './peak-ewma';

export interface LoadModel {
  /** The cost of sending one more call to `load` at `nowMs`. Must be >= 0. */
  cost(load: EndpointLoad, nowMs: number): number;
  /** Account a finished call; `load.outstanding` has already been decremented. */
  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void;
  /**
   * Optional: whether `load` is latency-ejected at `nowMs`. The chooser
   * skips an ejected candidate while it can still draw others (see
   * PowerOfChoices); absent means never.
   */
  ejected?(load: EndpointLoad, nowMs: number): boolean;
}

/** least_request (gRFC A48): the cost is the number of calls in flight. */
export const leastRequestModel: LoadModel = {
  cost: (load) => load.outstanding,
  recordCall: () => {},
};

export interface PeakEwmaSettings {
  /** τ, the time constant of the decay, in ms. */
  readonly decayMs: number;
  /** The estimate of an endpoint that has not answered yet, in ms. */
  readonly defaultRttMs: number;
  /**
   * The cost of an endpoint with calls in flight and no answer yet, in the
   * cost's unit (ms × calls); `penaltyValue + outstanding` (Envoy's rule),
   * so each client probes a new endpoint one call at a time.
   */
  readonly penaltyValue: number;
  /**
   * A failed call counts as a sample of at least `errorPenaltyFactor` times
   * max(current estimate, defaultRtt), so a backend that fails fast does not
   * look fast. 1 turns this off: failures are plain latency samples.
   */
  readonly errorPenaltyFactor: number;
  /**
   * s, the steeper cost far above the fleet: an endpoint whose estimate E
   * exceeds the fleet average F costs (E/F)^s times more, so a backend at
   * 2× the fleet costs 2^(1+s)× where the textbook rule says 2×. 0 or
   * absent: off (the textbook cost).
   */
  readonly fleetPenaltyExponent?: number;
  /**
   * R, bounded latency ejection: an endpoint whose estimate exceeds R × the
   * fleet average is skipped by the chooser while it can draw other
   * candidates (at most choiceCount extra draws). 0 or absent: off.
   */
  readonly ejectionRatio?: number;
  /**
   * T, in ms: an estimate not refreshed by a sample for T counts at most as
   * the fleet average, so an endpoint avoided for its latency (or its
   * errors) is probed again after at most T, and a stale peak cannot keep a
   * healed backend out. 0 or absent: off.
   */
  readonly maxEjectionMs?: number;
  /**
   * Whether the estimate counts the wait of calls still in flight: with
   * calls outstanding and no answer for Δ ms, the endpoint is at least Δ
   * slow, so the estimate is at least Δ. A stalled backend (GC pause, black
   * hole) stops attracting calls after about one estimate's time instead of
   * after its first answer. false or absent: off (textbook).
   */
  readonly pendingAware?: boolean;
}

/**
 * Peak-EWMA cost, in ms × calls: estimate × (outstanding + 1).
 *
 * - no sample yet, nothing in flight: defaultRtt;
 * - no sample yet, calls in flight:   penaltyValue + outstanding;
 * - otherwise:                        estimate × (outstanding + 1),
 *                                     × (estimate / fleet)^s above the fleet.
 *
 * `fleet` (the balancer's fleet average) is optional: without it, or with
 * the fleet settings off, this is the textbook cost.
 */
export function peakEwmaCost(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, fleet?: FleetRtt): number {
  if (!load.hasSample) {
    return load.outstanding > 0 ? settings.penaltyValue + load.outstanding : settings.defaultRttMs;
  }
  if (load.outstanding > 0 && isStale(load, nowMs, settings, fleet)) {
    // A stale estimate is no estimate: probe one call at a time, as a new endpoint.
    return settings.penaltyValue + load.outstanding;
  }
  const rttMs = estimateMs(load, nowMs, settings, fleet);
  const cost = rttMs * (load.outstanding + 1);
  const exponent = settings.fleetPenaltyExponent;
  if (exponent && fleet !== undefined && fleet.hasSample && rttMs > fleet.rttMs) {
    return cost * Math.pow(rttMs / fleet.rttMs, exponent);
  }
  return cost;
}

/** The endpoint's RTT estimate at `nowMs` (defaultRtt before its first sample). */
export function currentRttMs(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): number {
  if (!load.hasSample) {
    return settings.defaultRttMs;
  }
  return decayedRttMs(load.rttMs, nowMs - load.sampledAtMs, settings.decayMs);
}

/**
 * The estimate the cost uses: `currentRttMs`, but at most the fleet average
 * once it has gone `maxEjectionMs` without a sample (the bound on latency
 * ejection). A function of stored state and time only.
 */
export function estimateMs(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, fleet?: FleetRtt): number {
  let rttMs = currentRttMs(load, nowMs, settings);
  if (isStale(load, nowMs, settings, fleet) && rttMs > fleet!.rttMs) {
    rttMs = fleet!.rttMs;
  }
  if (settings.pendingAware && load.outstanding > 0 && nowMs - load.busySinceMs > rttMs) {
    rttMs = nowMs - load.busySinceMs;
  }
  return rttMs;
}

function isStale(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, fleet?: FleetRtt): boolean {
  const maxEjectionMs = settings.maxEjectionMs;
  return (
    !!maxEjectionMs && load.hasSample && fleet !== undefined && fleet.hasSample && nowMs - load.sampledAtMs >= maxEjectionMs
  );
}

/** The latency sample a finished call contributes, or null for none. */
export function sampleForOutcome(
  load: EndpointLoad,
  outcome: CallOutcome,
  elapsedMs: number,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
): number | null {
  switch (outcome) {
    case CallOutcome.CANCELLED:
      return null;
    case CallOutcome.FAILURE:
      if (settings.errorPenaltyFactor > 1) {
        const base = Math.max(
          load.hasSample ? estimateMs(load, nowMs, settings, fleet) : settings.defaultRttMs,
          settings.defaultRttMs,
        );
        return Math.max(elapsedMs, settings.errorPenaltyFactor * base);
      }
      return elapsedMs;
    default:
      return elapsedMs;
  }
}

export class PeakEwmaModel implements LoadModel {
  /** Replaced whole on a config update; per-endpoint state is untouched. */
  settings: PeakEwmaSettings;
  /** This balancer's fleet average (successful calls, all endpoints). */
  readonly fleet = new FleetRtt();

  constructor(settings: PeakEwmaSettings) {
    this.settings = settings;
  }

  cost(load: EndpointLoad, nowMs: number): number {
    return peakEwmaCost(load, nowMs, this.settings, this.fleet);
  }

  /** Estimate above ejectionRatio × the fleet average. */
  ejected(load: EndpointLoad, nowMs: number): boolean {
    const ratio = this.settings.ejectionRatio;
    return (
      !!ratio && load.hasSample && this.fleet.hasSample && estimateMs(load, nowMs, this.settings, this.fleet) > ratio * this.fleet.rttMs
    );
  }

  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void {
    const settings = this.settings;
    const sampleMs = sampleForOutcome(load, outcome, elapsedMs, nowMs, settings, this.fleet);
    if (sampleMs === null || !(sampleMs >= 0) || !Number.isFinite(sampleMs)) {
      return;
    }
    if (load.hasSample) {
      // The blend starts from what the cost used: a stale estimate from the
      // fleet average, not from an old peak.
      const retained = retainedFraction(nowMs - load.sampledAtMs, settings.decayMs);
      load.rttMs = blendRttMs(estimateMs(load, nowMs, settings, this.fleet), retained, sampleMs);
    } else {
      // The first answer replaces the prior entirely: defaultRtt was a guess.
      load.rttMs = sampleMs;
      load.hasSample = true;
    }
    load.sampledAtMs = nowMs;
    if (outcome === CallOutcome.SUCCESS && elapsedMs >= 0 && Number.isFinite(elapsedMs)) {
      this.fleet.record(elapsedMs, nowMs, settings.decayMs);
    }
  }
}
