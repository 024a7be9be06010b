/**
 * Cost models: how much a call sent to an endpoint is expected to cost, and
 * how a finished call changes that. Lower is better. Both policies share all
 * other machinery; only this differs.
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { decayedRttMs, nextRttMs } from './peak-ewma';

export interface LoadModel {
  /** The cost of sending one more call to `load` at `nowMs`. Must be >= 0. */
  cost(load: EndpointLoad, nowMs: number): number;
  /** Account a finished call; `load.outstanding` has already been decremented. */
  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void;
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
}

/**
 * Peak-EWMA cost, in ms × calls: estimate × (outstanding + 1).
 *
 * - no sample yet, nothing in flight: defaultRtt;
 * - no sample yet, calls in flight:   penaltyValue + outstanding;
 * - otherwise:                        decayed estimate × (outstanding + 1).
 */
export function peakEwmaCost(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): number {
  if (!load.hasSample) {
    return load.outstanding > 0 ? settings.penaltyValue + load.outstanding : settings.defaultRttMs;
  }
  return currentRttMs(load, nowMs, settings) * (load.outstanding + 1);
}

/** The endpoint's RTT estimate at `nowMs` (defaultRtt before its first sample). */
export function currentRttMs(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): number {
  if (!load.hasSample) {
    return settings.defaultRttMs;
  }
  return decayedRttMs(load.rttMs, nowMs - load.sampledAtMs, settings.decayMs);
}

/** The latency sample a finished call contributes, or null for none. */
export function sampleForOutcome(
  load: EndpointLoad,
  outcome: CallOutcome,
  elapsedMs: number,
  nowMs: number,
  settings: PeakEwmaSettings,
): number | null {
  switch (outcome) {
    case CallOutcome.CANCELLED:
      return null;
    case CallOutcome.FAILURE:
      if (settings.errorPenaltyFactor > 1) {
        const base = Math.max(currentRttMs(load, nowMs, settings), settings.defaultRttMs);
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

  constructor(settings: PeakEwmaSettings) {
    this.settings = settings;
  }

  cost(load: EndpointLoad, nowMs: number): number {
    return peakEwmaCost(load, nowMs, this.settings);
  }

  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void {
    const sampleMs = sampleForOutcome(load, outcome, elapsedMs, nowMs, this.settings);
    if (sampleMs === null || !(sampleMs >= 0) || !Number.isFinite(sampleMs)) {
      return;
    }
    if (load.hasSample) {
      load.rttMs = nextRttMs(load.rttMs, nowMs - load.sampledAtMs, sampleMs, this.settings.decayMs);
    } else {
      // The first answer replaces the prior entirely: defaultRtt was a guess.
      load.rttMs = sampleMs;
      load.hasSample = true;
    }
    load.sampledAtMs = nowMs;
  }
}
