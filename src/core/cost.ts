/**
 * Cost models: how much a call sent to an endpoint is expected to cost, and
 * how a finished call changes that. Lower is better. Both policies share all
 * other machinery; only this differs.
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { BalancerTraffic } from './traffic';
import { blendRttMs, retainedFraction } from './peak-ewma';

/**
 * One candidate's standing in a pick, as `LoadModel.rate` leaves it. The
 * engine reuses one instance, so rating allocates nothing.
 */
export class CandidateRating {
  /** The cost of one more call, >= 0; lower is better. */
  cost = 0;
  /** Skipped by the chooser while it can draw others (see PowerOfChoices). */
  ejected = false;
}

export interface LoadModel {
  /**
   * true: the model never looks at time, so the engine reads no clock on
   * the call path and passes 0 for every `nowMs` and `elapsedMs`. A clock
   * read costs 25–110 ns (more than the whole least_request rule), and the
   * pick path has three of them.
   */
  readonly ignoresTime: boolean;
  /** Whether `rate` can ever eject; false spares the chooser the check. */
  readonly ejects: boolean;
  /**
   * The incumbent rule's margin (`PowerOfChoices.chooseAgainst`): > 0, the
   * first candidate is the next in the engine's rotation and a random other
   * wins only below margin × its cost; 0 or absent, every candidate is
   * drawn at random (gRFC A48's rule).
   */
  readonly rotationMargin?: number;
  /** Experimental: the challenger is the next in rotation (`PowerOfChoices.choosePair`). */
  readonly rotationPair?: boolean;
  /**
   * The balancer's own traffic, if the model counts in it: the engine records
   * the READY count at each pick and counts each started call there.
   */
  readonly traffic?: BalancerTraffic;
  /**
   * Rates `load` at `nowMs` into `into`: the pick path. One call computes
   * what `cost` and `ejected` would, from one estimate.
   */
  rate(load: EndpointLoad, nowMs: number, into: CandidateRating): void;
  /** The cost of sending one more call to `load` at `nowMs` (stats, tests). Must be >= 0. */
  cost(load: EndpointLoad, nowMs: number): number;
  /** Account a finished call; `load.outstanding` has already been decremented. */
  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void;
}

/** least_request (gRFC A48): the cost is the number of calls in flight. */
export const leastRequestModel: LoadModel = {
  ignoresTime: true,
  ejects: false,
  rate: (load, _nowMs, into) => {
    into.cost = load.outstanding;
    into.ejected = false;
  },
  cost: (load) => load.outstanding,
  recordCall: () => {},
};

export interface PeakEwmaSettings {
  /** τ, the time constant of the decay, in ms. */
  readonly decayMs: number;
  /**
   * The estimate of an endpoint that has not answered yet, in ms: what
   * stats report and the floor of the error penalty. Not its cost: idle and
   * unsampled costs 0, so it is probed at once (see `unsampledCost`).
   */
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
   * K, the probe interval counted in the balancer's own calls: an estimate
   * is stale (see `maxEjectionMs`) only once it is `maxEjectionMs` old AND
   * the balancer has started at least K × (READY endpoints) calls since its
   * last sample, i.e. the endpoint has missed about K fair shares. A slow
   * client thus probes an avoided endpoint about once per K fair shares of
   * its calls instead of once per `maxEjectionMs`. 0 or absent, or no
   * `BalancerTraffic`: time only.
   */
  readonly probeFairShares?: number;
  /**
   * Whether the estimate counts the wait of calls still in flight: with
   * calls outstanding and no answer for Δ ms, the endpoint is at least Δ
   * slow, so the estimate is at least Δ. A stalled backend (GC pause, black
   * hole) stops attracting calls after about one estimate's time instead of
   * after its first answer. false or absent: off (textbook).
   */
  readonly pendingAware?: boolean;
  /**
   * m, the incumbent rule (see `LoadModel.rotationMargin`): the next
   * endpoint in a per-balancer rotation keeps its turn unless a randomly
   * drawn other costs less than m × its cost. 0 or absent: off.
   */
  readonly rotationMargin?: number;
  /** Experimental: the challenger is the next endpoint in the rotation, not a random one. */
  readonly rotationPair?: boolean;
  /**
   * C, memory counted in the client's own calls: the estimate forgets at
   * most 1/e per C fair shares of the balancer's calls (see `retainedAt`),
   * so a light client keeps what it learnt. 0 or absent: time only.
   */
  readonly decayFairShares?: number;
}

/**
 * Peak-EWMA cost, in ms × calls: estimate × (outstanding + 1).
 *
 * - no sample yet, nothing in flight: 0 (probe it now);
 * - no sample yet, calls in flight:   penaltyValue + outstanding;
 * - otherwise:                        estimate × (outstanding + 1),
 *                                     × (estimate / fleet)^s above the fleet.
 *
 * `fleet` (the balancer's fleet average) is optional: without it, or with
 * the fleet settings off, this is the textbook cost.
 */
export function peakEwmaCost(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): number {
  if (!load.hasSample) {
    return unsampledCost(load, settings);
  }
  const stale = isStale(load, nowMs, settings, fleet, traffic);
  return costFromEstimate(load, stale, estimateWith(load, currentRttMs(load, nowMs, settings, traffic), stale, nowMs, settings, fleet), settings, fleet);
}

/**
 * An endpoint that has never answered: free while idle, so the first pick
 * that draws it sends it a call whatever the service's speed; then
 * `penaltyValue + outstanding` until that call answers, so each client
 * probes it one call at a time (Finagle's rule: no history costs 0, pending
 * calls the penalty). Pricing it at `defaultRtt` instead starved it: with two
 * choices it lost to every sampled peer cheaper than 10 ms, so a pod added
 * to a fleet of a 2 ms service got no calls (issue 14).
 */
function unsampledCost(load: EndpointLoad, settings: PeakEwmaSettings): number {
  return load.outstanding > 0 ? settings.penaltyValue + load.outstanding : 0;
}

/** The cost of a sampled endpoint whose estimate (as `estimateMs` gives it) is `rttMs`. */
function costFromEstimate(load: EndpointLoad, stale: boolean, rttMs: number, settings: PeakEwmaSettings, fleet?: FleetRtt): number {
  if (load.outstanding > 0 && stale) {
    // A stale estimate is no estimate: probe one call at a time, as a new endpoint.
    return settings.penaltyValue + load.outstanding;
  }
  const cost = rttMs * (load.outstanding + 1);
  const exponent = settings.fleetPenaltyExponent;
  if (exponent && fleet !== undefined && fleet.hasSample && rttMs > fleet.rttMs) {
    // The default exponent, 1, spares the pick path a pow call (pow(x, 1) is x exactly).
    const ratio = rttMs / fleet.rttMs;
    return cost * (exponent === 1 ? ratio : Math.pow(ratio, exponent));
  }
  return cost;
}

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
function retainedAt(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings, traffic?: BalancerTraffic): number {
  const elapsedMs = nowMs - load.sampledAtMs;
  const shares = settings.decayFairShares;
  if (!shares || traffic === undefined || traffic.readyEndpoints === 0 || !(elapsedMs > 0)) {
    return retainedFraction(elapsedMs, settings.decayMs);
  }
  const byCalls = (traffic.callsStarted - load.sampledAtCall) / (shares * traffic.readyEndpoints);
  return Math.exp(-Math.min(elapsedMs / settings.decayMs, byCalls));
}

/**
 * The estimate the cost uses: `currentRttMs`, but at most the fleet average
 * once it is stale: `maxEjectionMs` without a sample and, given `traffic`
 * and `probeFairShares`, that many fair shares of the balancer's calls
 * missed (the bound on latency ejection). A function of stored state, the
 * time and the call count only.
 */
export function estimateMs(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): number {
  return estimateWith(load, currentRttMs(load, nowMs, settings, traffic), isStale(load, nowMs, settings, fleet, traffic), nowMs, settings, fleet);
}

/**
 * `estimateMs` from its parts, so that a caller that already has the decayed
 * estimate (`currentRttMs`) and staleness does not compute them again.
 */
function estimateWith(
  load: EndpointLoad,
  currentMs: number,
  stale: boolean,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
): number {
  let rttMs = currentMs;
  if (stale && rttMs > fleet!.rttMs) {
    rttMs = fleet!.rttMs;
  }
  if (settings.pendingAware && load.outstanding > 0 && nowMs - load.busySinceMs > rttMs) {
    rttMs = nowMs - load.busySinceMs;
  }
  return rttMs;
}

function isStale(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): boolean {
  const maxEjectionMs = settings.maxEjectionMs;
  if (!maxEjectionMs || !load.hasSample || fleet === undefined || !fleet.hasSample || nowMs - load.sampledAtMs < maxEjectionMs) {
    return false;
  }
  const fairShares = settings.probeFairShares;
  // Old enough; stale once it has also missed K fair shares of this balancer's calls.
  return !fairShares || traffic === undefined || traffic.callsStarted - load.sampledAtCall >= fairShares * traffic.readyEndpoints;
}

/** The latency sample a finished call contributes, or null for none. */
export function sampleForOutcome(
  load: EndpointLoad,
  outcome: CallOutcome,
  elapsedMs: number,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  traffic?: BalancerTraffic,
): number | null {
  const needsEstimate = outcome === CallOutcome.FAILURE && load.hasSample;
  return sampleFrom(outcome, elapsedMs, needsEstimate ? estimateMs(load, nowMs, settings, fleet, traffic) : settings.defaultRttMs, settings);
}

/**
 * `sampleForOutcome` given the endpoint's estimate now (`defaultRtt` before
 * its first sample): a failure counts at least errorPenaltyFactor × the
 * larger of that and defaultRtt.
 */
function sampleFrom(outcome: CallOutcome, elapsedMs: number, estimateNowMs: number, settings: PeakEwmaSettings): number | null {
  if (outcome === CallOutcome.CANCELLED) {
    return null;
  }
  if (outcome === CallOutcome.FAILURE && settings.errorPenaltyFactor > 1) {
    return Math.max(elapsedMs, settings.errorPenaltyFactor * Math.max(estimateNowMs, settings.defaultRttMs));
  }
  return elapsedMs;
}

export class PeakEwmaModel implements LoadModel {
  readonly ignoresTime = false;
  /** Replaced whole on a config update; per-endpoint state is untouched. */
  settings: PeakEwmaSettings;
  /** This balancer's fleet average (successful calls, all endpoints). */
  readonly fleet = new FleetRtt();
  /** This balancer's calls and READY count, kept by the engine (the probe interval's clock). */
  readonly traffic = new BalancerTraffic();

  constructor(settings: PeakEwmaSettings) {
    this.settings = settings;
  }

  get ejects(): boolean {
    return !!this.settings.ejectionRatio;
  }

  get rotationMargin(): number {
    return this.settings.rotationMargin ?? 0;
  }

  get rotationPair(): boolean {
    return this.settings.rotationPair ?? false;
  }

  cost(load: EndpointLoad, nowMs: number): number {
    return peakEwmaCost(load, nowMs, this.settings, this.fleet, this.traffic);
  }

  rate(load: EndpointLoad, nowMs: number, into: CandidateRating): void {
    const settings = this.settings;
    if (!load.hasSample) {
      into.cost = unsampledCost(load, settings);
      into.ejected = false;
      return;
    }
    const stale = isStale(load, nowMs, settings, this.fleet, this.traffic);
    const rttMs = estimateWith(load, currentRttMs(load, nowMs, settings, this.traffic), stale, nowMs, settings, this.fleet);
    into.cost = costFromEstimate(load, stale, rttMs, settings, this.fleet);
    into.ejected = this.exceedsEjectionRatio(rttMs);
  }

  /** Estimate above ejectionRatio × the fleet average. */
  ejected(load: EndpointLoad, nowMs: number): boolean {
    return load.hasSample && this.exceedsEjectionRatio(estimateMs(load, nowMs, this.settings, this.fleet, this.traffic));
  }

  private exceedsEjectionRatio(estimateMs: number): boolean {
    const ratio = this.settings.ejectionRatio;
    return !!ratio && this.fleet.hasSample && estimateMs > ratio * this.fleet.rttMs;
  }

  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void {
    const settings = this.settings;
    const fleet = this.fleet;
    // One exp serves the estimate the sample is judged against and the blend.
    const retained = load.hasSample ? retainedAt(load, nowMs, settings, this.traffic) : 1;
    const estimateNowMs = load.hasSample
      ? estimateWith(load, load.rttMs * retained, isStale(load, nowMs, settings, fleet, this.traffic), nowMs, settings, fleet)
      : settings.defaultRttMs;
    const sampleMs = sampleFrom(outcome, elapsedMs, estimateNowMs, settings);
    if (sampleMs === null || !(sampleMs >= 0) || !Number.isFinite(sampleMs)) {
      return;
    }
    if (load.hasSample) {
      // The blend starts from what the cost used: a stale estimate from the
      // fleet average, not from an old peak.
      load.rttMs = blendRttMs(estimateNowMs, retained, sampleMs);
    } else {
      // The first answer replaces the prior entirely: defaultRtt was a guess.
      load.rttMs = sampleMs;
      load.hasSample = true;
    }
    load.sampledAtMs = nowMs;
    load.sampledAtCall = this.traffic.callsStarted;
    if (outcome === CallOutcome.SUCCESS && elapsedMs >= 0 && Number.isFinite(elapsedMs)) {
      fleet.record(elapsedMs, nowMs, settings.decayMs);
    }
  }
}
