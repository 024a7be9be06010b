/**
 * peak_ewma's cost model: the per-balancer state the cost function (cost.ts)
 * reads — the fleet average, the balancer's traffic, the per-method table,
 * the ejection budget — and the accounting of each finished call into an
 * endpoint's estimate, its mean and its failure count.
 */
import { costFromEstimate, estimateMs, estimateWith, peakEwmaCost, sampleWith } from './cost';
import { ejectionLineMs, isEjected, judgedOnMean, lineBaseMs, medianIsLineBase } from './ejection';
import { budgetApplies } from './ejection-budget';
import { EjectionRanking } from './ejection-ranking';
import { CallOutcome, EndpointLoad, isFailure } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { CandidateRating, LoadModel } from './load-model';
import { endProvisional, endsProvisional, opensProvisionally, settledFirstMs } from './first-answer';
import { keepsMean, onProbation, recordMeanSample } from './mean';
import { currentRttMs, decayedEstimateMs, retainedAt } from './memory';
import { answerWeightOf, MethodStats, MethodTable, methodWeight, normalisedElapsedMs } from './methods';
import { isNew, isProbing, unsampledCost } from './new-endpoint';
import { blendRttMs } from './peak-ewma';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { Refusal } from './pick-paths';
import { countFailures, failuresAfterEjectingAnswer, failuresInARowAfter } from './probe-backoff';
import { refusalOf, rotates } from './rotation';
import { comesBack } from './shared-recovery';
import { isShedding, recordShed } from './shed';
import { endsFirstCall, inSlowStart, noteReturn, noteTimeout, slowAnswersCarried, sparedEjection, spendsTurnCredit, startSlowStart } from './slow-start';
import { isStale } from './staleness';
import { BalancerTraffic } from './traffic';

export class PeakEwmaModel implements LoadModel {
  readonly ignoresTime = false;
  private current: PeakEwmaSettings;
  /** This balancer's fleet average (successful calls, all endpoints). */
  readonly fleet = new FleetRtt();
  /** This balancer's calls and READY count, kept by the engine (the probe interval's clock). */
  readonly traffic = new BalancerTraffic();

  private readonly methodTable = new MethodTable();
  /** How many may be ejected at once (ejection-budget.ts), and what the line is a multiple of (small-fleet.ts). */
  private readonly ejection = new EjectionRanking();
  // The ranking's reader and its time, bound once so that a ranking allocates nothing.
  private rankingNowMs = 0;
  private readonly signalRatio = (load: EndpointLoad): number => {
    const fleet = this.fleet;
    const nowMs = this.rankingNowMs;
    const settings = this.settings;
    // Not ranked: what is new, stale or spared in its slow start is not ejected for its latency.
    if (isNew(load) || !fleet.hasSample || sparedEjection(load, nowMs, settings) || isStale(load, nowMs, settings, fleet, this.traffic)) {
      return NaN;
    }
    // The estimate only where it is the signal: the mean's, most endpoints' under the defaults, is stored.
    const signalMs = settings.ejectionSignal === 'mean' && judgedOnMean(load) ? load.meanRttMs : estimateMs(load, nowMs, settings, fleet, this.traffic);
    const baseMs = lineBaseMs(settings, fleet, this.ejection);
    return baseMs === null ? NaN : signalMs / baseMs;
  };
  // `ejected`'s scratch rating, so that the stats path allocates nothing either.
  private readonly statsRating = new CandidateRating();

  constructor(settings: PeakEwmaSettings) {
    this.current = settings;
  }

  get settings(): PeakEwmaSettings {
    return this.current;
  }

  /**
   * Replaced whole on a config update; per-endpoint state is untouched, and
   * the ejection is ranked again at the next pick: a line and tie marks
   * ranked under another R or P would otherwise stand for up to n picks
   * (rankings are counted only in picks that rank).
   */
  set settings(settings: PeakEwmaSettings) {
    this.current = settings;
    this.ejection.rankAtNextPick();
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
    const settings = this.settings;
    const ejection = this.ejection;
    const takesMedian = medianIsLineBase(settings);
    const binds = budgetApplies(settings);
    if (!(takesMedian || binds) || !ejection.due(candidates.length)) {
      return;
    }
    // The median first: the budget ranks ratios to it.
    if (takesMedian) {
      ejection.takeMedian(candidates);
    }
    if (binds) {
      this.rankingNowMs = nowMs;
      ejection.budget.rank(candidates, this.signalRatio, settings);
    }
  }

  refusalOf(load: EndpointLoad, nowMs: number): Refusal | null {
    return refusalOf(load, nowMs, this.settings, this.fleet, this.traffic);
  }

  takesSlowStartTurn(load: EndpointLoad, nowMs: number): boolean {
    const settings = this.settings;
    // Only while spared: a joiner whose calls fail is judged as any (a config turned off and on
    // again can find one that failed meanwhile).
    if (!sparedEjection(load, nowMs, settings)) {
      return false;
    }
    const fleet = this.fleet;
    const stale = isStale(load, nowMs, settings, fleet, this.traffic);
    // A pod shedding calls is out, slow start or not (shed.ts).
    if (isShedding(load, nowMs, stale, settings)) {
      return false;
    }
    // `estimateMs` from its parts: the staleness is known.
    return spendsTurnCredit(load, fleet, estimateWith(load, currentRttMs(load, nowMs, settings, this.traffic, fleet), stale, nowMs, settings, fleet));
  }

  endpointReturned(load: EndpointLoad, goneMs: number): void {
    noteReturn(load, goneMs, this.settings);
  }

  cost(load: EndpointLoad, nowMs: number): number {
    return peakEwmaCost(load, nowMs, this.settings, this.fleet, this.traffic);
  }

  rate(load: EndpointLoad, nowMs: number, into: CandidateRating, callWeight = 1): void {
    const settings = this.settings;
    if (isNew(load)) {
      into.cost = unsampledCost(load, settings);
      into.ejected = false;
      into.probing = isProbing(load, false);
      return;
    }
    const stale = isStale(load, nowMs, settings, this.fleet, this.traffic);
    const rttMs = estimateWith(load, currentRttMs(load, nowMs, settings, this.traffic, this.fleet), stale, nowMs, settings, this.fleet);
    into.cost = costFromEstimate(load, stale, rttMs, settings, this.fleet, callWeight);
    into.probing = isProbing(load, stale);
    const shedding = isShedding(load, nowMs, stale, settings);
    into.ejected = isEjected(load, rttMs, stale, settings, this.fleet, this.ejection, shedding) && (shedding || !sparedEjection(load, nowMs, settings));
  }

  /**
   * The ejection line now in ms (ejection.ts `ejectionLineMs`): R, or the
   * budget's higher ratio while it binds, × F or the small fleet's median
   * mean; null with ejection off or before the fleet's first answer. For stats.
   */
  get ejectionLineMs(): number | null {
    return ejectionLineMs(this.settings, this.fleet, this.ejection);
  }

  /**
   * How many endpoints may be ejected at once (ejection-budget.ts), as of the
   * last pick's READY count; null when nothing bounds it (ejection or the
   * budget off) or before the first pick. For stats.
   */
  get maxEjected(): number | null {
    const allowed = this.ejection.budget.allowed;
    return budgetApplies(this.settings) && allowed > 0 ? allowed : null;
  }

  /** Whether `load` is ejected now (ejection.ts), for stats and tests: what a pick's `rate` says. */
  ejected(load: EndpointLoad, nowMs: number): boolean {
    this.rate(load, nowMs, this.statsRating);
    return this.statsRating.ejected;
  }

  recordCall(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number, method?: MethodStats): void {
    const settings = this.settings;
    const fleet = this.fleet;
    if (endsFirstCall(load)) {
      // A joiner's first call to end: its slow start begins, before this answer is judged (slow-start.ts).
      startSlowStart(load, nowMs, settings);
    }
    // One exp serves the estimate the sample is judged against and the blend.
    const retained = load.hasSample ? retainedAt(load, nowMs, settings, this.traffic) : 1;
    const stale = load.hasSample && isStale(load, nowMs, settings, fleet, this.traffic);
    if (stale) {
      // Only a stale endpoint's answer can be one the news made due (staleness.ts): no second look otherwise.
      this.traffic.recovery.noteAnswer(load, settings);
    }
    const meanKept = keepsMean(settings);
    if (load.provisional && endsProvisional(outcome, meanKept)) {
      // Evidence of its own, judged against the first answer as against any estimate (first-answer.ts).
      endProvisional(load);
    }
    // Undefined before the first sample (defaultRtt is a guess, not an estimate to judge a sample
    // against), and while the only one is a provisional first answer, which judges nothing (first-answer.ts).
    const estimateNowMs = !isNew(load) ? estimateWith(load, decayedEstimateMs(load.rttMs, retained, settings, fleet), stale, nowMs, settings, fleet) : undefined;
    // In the unit of an average call (methods.ts); unchanged without a method.
    const methodW = methodWeight(method, fleet);
    const judgedMs = method === undefined ? elapsedMs : normalisedElapsedMs(elapsedMs, method, fleet, methodW);
    const failures = failuresInARowAfter(load, outcome);
    // An answer's evidence is its method's (methods.ts); a deadline or a
    // failure is whole evidence whatever the method: the call was stuck or
    // failed, which every method's next call would meet too.
    const weight = outcome === CallOutcome.SUCCESS ? answerWeightOf(methodW) : 1;
    if (isFailure(outcome)) {
      load.failedAtMs = nowMs;
    }
    // In the same unit as F and the line: a ping 18 times its usual time is a timeout, a report at 0.8 of its usual is not.
    noteTimeout(load, outcome, judgedMs, nowMs, settings, fleet);
    recordShed(load, outcome, elapsedMs, nowMs);
    const sampleMs = sampleWith(outcome, judgedMs, estimateNowMs, failures, settings, fleet);
    if (sampleMs === null || !(sampleMs >= 0) || !Number.isFinite(sampleMs)) {
      countFailures(load, outcome, failures, false, nowMs);
      return;
    }
    if (!load.hasSample && opensProvisionally(outcome, meanKept, fleet)) {
      load.provisional = true;
    }
    // This answer settles a provisional first (first-answer.ts): anything else ended it above.
    const settles = load.provisional && load.hasSample;
    // With the mean signal an answer that leaves the endpoint ejected is a failed probe too (mean.ts).
    // Re-admitted by a probe after failed probes, and on probation since: this answer may end it (shared-recovery.ts).
    const failedProbesBefore = onProbation(load) ? load.failuresBeforeProbe : 0;
    const overLine = recordMeanSample(load, outcome, sampleMs, stale, settings, fleet, weight, this.ejection, settles);
    // In its slow start an answer over the line is no failed probe: the endpoint is not out. It is
    // counted, and the first answer that ejects after the window carries the count (slow-start.ts).
    const windowOpen = inSlowStart(load, nowMs, settings);
    const ejectingAnswer = overLine && !windowOpen;
    const carried = slowAnswersCarried(load, outcome, overLine, windowOpen);
    if (settles) {
      load.provisional = false;
    }
    // Settling, the lesser of two answers ejects: both count as failed probes, as a first answer does for
    // any other endpoint (the balancer's first never could: there was no line to judge it by).
    countFailures(load, outcome, ejectingAnswer ? failuresAfterEjectingAnswer(load) + (settles ? 1 : 0) + carried : failures, ejectingAnswer, nowMs);
    // Once: the answers after this one find M off probation (shared-recovery.ts).
    if (outcome === CallOutcome.SUCCESS && comesBack(load, failedProbesBefore, !onProbation(load), ejectingAnswer, nowMs, settings, fleet)) {
      this.traffic.recovery.recordReturn(load);
    }
    if (estimateNowMs !== undefined) {
      // The blend starts from what the cost used: a stale estimate from the
      // fleet average, not from an old peak.
      load.rttMs = blendRttMs(estimateNowMs, retained, sampleMs, weight);
    } else {
      // The first answer replaces the prior entirely (defaultRtt was a guess); the second settles a provisional first.
      load.rttMs = settles ? settledFirstMs(load.rttMs, sampleMs) : sampleMs;
      load.hasSample = true;
    }
    load.sampledAtMs = nowMs;
    this.traffic.stampSample(load);
    if (outcome === CallOutcome.SUCCESS && elapsedMs >= 0 && Number.isFinite(elapsedMs)) {
      fleet.record(elapsedMs, nowMs, settings.decayMs);
      method?.fleet.record(elapsedMs, nowMs, settings.decayMs, fleet);
    }
  }
}
