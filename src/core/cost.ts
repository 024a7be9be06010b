/**
 * Cost models: how much a call sent to an endpoint is expected to cost, and
 * how a finished call changes that. Lower is better. Both policies share all
 * other machinery; only this differs.
 */
import { ejectionLineRatio, isEjected } from './ejection';
import { budgetBinds, EjectionBudget } from './ejection-budget';
import { recordMeanSample, withMeanFloorMs } from './mean';
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { sampleFrom } from './error-penalty';
import { fleetPenaltyFactor } from './fleet-penalty';
import { FleetRtt } from './fleet-rtt';
import { currentRttMs, decayedEstimateMs, retainedAt } from './memory';
import { answerWeightOf, MethodStats, MethodTable, methodWeight, normalisedElapsedMs } from './methods';
import { probeCost, unsampledCost } from './new-endpoint';
import { withPendingWaitMs } from './pending';
import { blendRttMs } from './peak-ewma';
import { failuresAfterEjectingAnswer, failuresInARowAfter, probeBackoffFactor } from './probe-backoff';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { Refusal } from './pick-paths';
import { refusalOf, rotates } from './rotation';
import { capStaleMs, isStale } from './staleness';
import { BalancerTraffic } from './traffic';

// The settings and the estimate's reader, where the policies and tests have always found them.
export type { PeakEwmaSettings } from './peak-ewma-settings';
export { currentRttMs } from './memory';

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
   * The rotation's margin (`PowerOfChoices.chooseAgainst`): > 0, a random
   * challenger takes the incumbent's turn only below margin × its cost;
   * 0 or absent, an incumbent that passes the gate keeps its turn.
   */
  readonly rotationMargin?: number;
  /**
   * Whether picks follow a rotation (rotation.ts): the next endpoint in it
   * takes the call unless `refusalOf` or the margin says otherwise.
   * Absent or false: every candidate is drawn at random (gRFC A48's rule).
   */
  readonly rotates?: boolean;
  /**
   * Called by the engine before each pick among `candidates` (the READY
   * endpoints), for what depends on all of them at once: the ejection
   * budget (ejection-budget.ts). Absent: nothing.
   */
  beforePick?(candidates: readonly EndpointLoad[], nowMs: number): void;
  /** The rotation's gate: why `load`, the next in it, may not take its turn at `nowMs`, or null when it may; absent: always may. */
  refusalOf?(load: EndpointLoad, nowMs: number): Refusal | null;
  /**
   * The balancer's own traffic, if the model counts in it: the engine records
   * the READY count at each pick and counts each started call there.
   */
  readonly traffic?: BalancerTraffic;
  /** The tracked methods, if the model scores per method (methods.ts); undefined: methods are ignored. */
  readonly methods?: MethodTable;
  /**
   * Candidates compared per pick while `methods` are a mix (methods.ts
   * `MethodTable.mixed`), where more than choiceCount; absent: choiceCount.
   */
  readonly mixedChoiceCount?: number;
  /** The weight of a call of `method` placed now (methods.ts); absent: 1. */
  weightOf?(method: MethodStats): number;
  /**
   * Rates `load` at `nowMs` into `into` for a call weighing `callWeight`
   * (1 without per-method scoring): the pick path. One call computes what
   * `cost` and `ejected` would, from one estimate.
   */
  rate(load: EndpointLoad, nowMs: number, into: CandidateRating, callWeight: number): void;
  /** The cost of sending one more call to `load` at `nowMs` (stats, tests). Must be >= 0. */
  cost(load: EndpointLoad, nowMs: number): number;
  /** Account a finished call (of `method`, if known); `load.outstanding` has already been decremented. */
  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number, method?: MethodStats): void;
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

/**
 * Peak-EWMA cost, in ms × calls. The textbook rule (Envoy, Finagle, tower):
 *
 *     cost = E(now) · (outstanding + 1)
 *
 * with E the decayed peak estimate (peak-ewma.ts). Each optional mechanism
 * lives in its own module and is off when its setting is absent:
 *
 * - new-endpoint.ts   no answer yet: 0 while idle, the probe penalty
 *                     (`penaltyValue + outstanding`) while one is out;
 * - memory.ts         decay counted in the client's own calls too;
 * - staleness.ts      a stale estimate counts at most as the fleet average,
 *                     and while its probe is out costs the probe penalty;
 * - pending.ts        calls waiting without an answer raise E;
 * - fleet-penalty.ts  × (E / fleet)^s above the fleet average;
 * - ejection.ts       above R × the fleet average: skipped (rate's `ejected`),
 *                     judged on the estimate or on the mean answer (mean.ts),
 *                     which only a probe resets and whose slow answers back
 *                     the probes off; ejection-budget.ts: at most P % of
 *                     the endpoints at once, the slowest;
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
  if (!load.hasSample) {
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
function costFromEstimate(
  load: EndpointLoad,
  stale: boolean,
  rttMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
  callWeight = 1,
): number {
  if (load.outstanding > 0 && stale) {
    // A stale estimate is no estimate: probe one call at a time, as a new endpoint.
    return probeCost(load, settings);
  }
  const calls = settings.methodScoring === 'work' ? load.outstandingWork + callWeight : load.outstanding + 1;
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
function estimateWith(
  load: EndpointLoad,
  currentMs: number,
  stale: boolean,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet?: FleetRtt,
): number {
  return withPendingWaitMs(load, capStaleMs(currentMs, stale, fleet), nowMs, settings);
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
  const estimateNowMs = needsEstimate ? estimateMs(load, nowMs, settings, fleet, traffic) : settings.defaultRttMs;
  return sampleFrom(outcome, elapsedMs, estimateNowMs, settings, fleetRttOf(fleet), probeBackoffFactor(failuresInARowAfter(load, outcome), settings));
}

/** The fleet average, or undefined before its first sample. */
function fleetRttOf(fleet?: FleetRtt): number | undefined {
  return fleet !== undefined && fleet.hasSample ? fleet.rttMs : undefined;
}

export class PeakEwmaModel implements LoadModel {
  readonly ignoresTime = false;
  /** Replaced whole on a config update; per-endpoint state is untouched. */
  settings: PeakEwmaSettings;
  /** This balancer's fleet average (successful calls, all endpoints). */
  readonly fleet = new FleetRtt();
  /** This balancer's calls and READY count, kept by the engine (the probe interval's clock). */
  readonly traffic = new BalancerTraffic();

  private readonly methodTable = new MethodTable();
  /** How many may be ejected at once (ejection-budget.ts). */
  private readonly budget = new EjectionBudget();
  // The ranking's reader and its time, bound once so that a ranking allocates nothing.
  private rankingNowMs = 0;
  private readonly signalRatio = (load: EndpointLoad): number => {
    const fleet = this.fleet;
    const nowMs = this.rankingNowMs;
    const settings = this.settings;
    if (!load.hasSample || !fleet.hasSample || isStale(load, nowMs, settings, fleet, this.traffic)) {
      return NaN;
    }
    const signalMs = settings.ejectionSignal === 'mean' ? load.meanRttMs : estimateMs(load, nowMs, settings, fleet, this.traffic);
    return signalMs / fleet.rttMs;
  };
  // `ejected`'s scratch rating, so that the stats path allocates nothing either.
  private readonly statsRating = new CandidateRating();

  constructor(settings: PeakEwmaSettings) {
    this.settings = settings;
  }

  get methods(): MethodTable | undefined {
    const scoring = this.settings.methodScoring;
    return scoring === 'latency' || scoring === 'work' ? this.methodTable : undefined;
  }

  weightOf(method: MethodStats): number {
    return methodWeight(method, this.fleet);
  }

  get mixedChoiceCount(): number | undefined {
    return this.settings.mixedChoiceCount;
  }

  get ejects(): boolean {
    return !!this.settings.ejectionRatio;
  }

  get rotationMargin(): number {
    return this.settings.rotationMargin ?? 0;
  }

  get rotates(): boolean {
    return rotates(this.settings);
  }

  beforePick(candidates: readonly EndpointLoad[], nowMs: number): void {
    const { ejectionRatio, maxEjectionPercent } = this.settings;
    if (ejectionRatio && budgetBinds(maxEjectionPercent)) {
      this.rankingNowMs = nowMs;
      this.budget.beforePick(candidates, this.signalRatio, ejectionRatio, maxEjectionPercent);
    }
  }

  refusalOf(load: EndpointLoad, nowMs: number): Refusal | null {
    return refusalOf(load, nowMs, this.settings, this.fleet, this.traffic);
  }

  cost(load: EndpointLoad, nowMs: number): number {
    return peakEwmaCost(load, nowMs, this.settings, this.fleet, this.traffic);
  }

  rate(load: EndpointLoad, nowMs: number, into: CandidateRating, callWeight = 1): void {
    const settings = this.settings;
    if (!load.hasSample) {
      into.cost = unsampledCost(load, settings);
      into.ejected = false;
      return;
    }
    const stale = isStale(load, nowMs, settings, this.fleet, this.traffic);
    const rttMs = estimateWith(load, currentRttMs(load, nowMs, settings, this.traffic, this.fleet), stale, nowMs, settings, this.fleet);
    into.cost = costFromEstimate(load, stale, rttMs, settings, this.fleet, callWeight);
    into.ejected = isEjected(load, rttMs, stale, settings, this.fleet, this.budget);
  }

  /**
   * The ejection line now in ms (ejection.ts): R × the fleet average, or the
   * budget's higher line while it binds; null with ejection off or before the
   * fleet's first answer. For stats.
   */
  get ejectionLineMs(): number | null {
    const ratio = ejectionLineRatio(this.settings, this.budget);
    return ratio && this.fleet.hasSample ? ratio * this.fleet.rttMs : null;
  }

  /**
   * How many endpoints may be ejected at once (ejection-budget.ts), as of the
   * last pick's READY count; null when nothing bounds it (ejection or the
   * budget off) or before the first pick. For stats.
   */
  get maxEjected(): number | null {
    const { ejectionRatio, maxEjectionPercent } = this.settings;
    return ejectionRatio && budgetBinds(maxEjectionPercent) && this.budget.allowed > 0 ? this.budget.allowed : null;
  }

  /** Whether the chooser skips `load` now (ejection.ts), for stats and tests: what a pick's `rate` says. */
  ejected(load: EndpointLoad, nowMs: number): boolean {
    this.rate(load, nowMs, this.statsRating);
    return this.statsRating.ejected;
  }

  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number, method?: MethodStats): void {
    const settings = this.settings;
    const fleet = this.fleet;
    // One exp serves the estimate the sample is judged against and the blend.
    const retained = load.hasSample ? retainedAt(load, nowMs, settings, this.traffic) : 1;
    const stale = load.hasSample && isStale(load, nowMs, settings, fleet, this.traffic);
    const estimateNowMs = load.hasSample ? estimateWith(load, decayedEstimateMs(load.rttMs, retained, settings, fleet), stale, nowMs, settings, fleet) : settings.defaultRttMs;
    // In the unit of an average call (methods.ts); unchanged without a method.
    const methodW = methodWeight(method, fleet);
    const judgedMs = method === undefined ? elapsedMs : normalisedElapsedMs(elapsedMs, method, fleet, methodW);
    const failures = failuresInARowAfter(load, outcome);
    // An answer's evidence is its method's (methods.ts); a deadline or a
    // failure is whole evidence whatever the method: the call was stuck or
    // failed, which every method's next call would meet too.
    const weight = outcome === CallOutcome.SUCCESS ? answerWeightOf(methodW) : 1;
    if (outcome === CallOutcome.FAILURE) {
      load.failedAtMs = nowMs;
    }
    const sampleMs = sampleFrom(outcome, judgedMs, estimateNowMs, settings, fleetRttOf(fleet), probeBackoffFactor(failures, settings));
    if (sampleMs === null || !(sampleMs >= 0) || !Number.isFinite(sampleMs)) {
      load.consecutiveFailures = failures;
      return;
    }
    // With the mean signal an answer that leaves the endpoint ejected is a failed probe too (mean.ts).
    load.consecutiveFailures = recordMeanSample(load, outcome, sampleMs, stale, settings, fleet, weight, this.budget) ? failuresAfterEjectingAnswer(load) : failures;
    if (load.hasSample) {
      // The blend starts from what the cost used: a stale estimate from the
      // fleet average, not from an old peak.
      load.rttMs = blendRttMs(estimateNowMs, retained, sampleMs, weight);
    } else {
      // The first answer replaces the prior entirely: defaultRtt was a guess.
      load.rttMs = sampleMs;
      load.hasSample = true;
    }
    load.sampledAtMs = nowMs;
    load.sampledAtCall = this.traffic.callsStarted;
    if (outcome === CallOutcome.SUCCESS && elapsedMs >= 0 && Number.isFinite(elapsedMs)) {
      fleet.record(elapsedMs, nowMs, settings.decayMs);
      method?.fleet.record(elapsedMs, nowMs, settings.decayMs, fleet);
    }
  }
}
