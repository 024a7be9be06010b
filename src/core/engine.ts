/**
 * The engine: one balancer's view of its endpoints and the rule that picks
 * among them. The grpc-js policies and the simulator both drive this class,
 * so there is one implementation of the algorithm.
 */
import { PowerOfChoices } from './choice';
import { MonotonicClock } from './clock';
import { CandidateRating, LoadModel } from './cost';
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { RandomSource } from './random';

// Shared, so that releasing the candidates after a pick allocates nothing.
const NO_CANDIDATES: readonly EndpointLoad[] = Object.freeze([]);

export interface EngineOptions {
  model: LoadModel;
  /** Candidates compared per pick; Infinity compares all of them. */
  choiceCount: number;
  clock: MonotonicClock;
  random: RandomSource;
}

export class LoadBalancingEngine {
  model: LoadModel;
  choiceCount: number;
  readonly clock: MonotonicClock;
  private readonly chooser: PowerOfChoices;
  // Set for the duration of one pick, so the cost reader is one bound
  // function instead of a closure allocated per pick.
  private pickCandidates: readonly EndpointLoad[] = [];
  private pickNowMs = 0;
  // The rating of the candidate read last. PowerOfChoices asks whether a
  // candidate is ejected right after reading its cost, so one rating (one
  // estimate) answers both.
  private readonly rating = new CandidateRating();
  private readonly costOfCandidate = (index: number): number => {
    this.model.rate(this.pickCandidates[index], this.pickNowMs, this.rating);
    return this.rating.cost;
  };
  private readonly ejectedCandidate = (): boolean => this.rating.ejected;
  private readonly random: RandomSource;
  // The next incumbent, for the incumbent rule; -1 until its first pick,
  // which starts it at a random endpoint (as grpc-js's round_robin starts).
  private rotation = -1;

  constructor(options: EngineOptions) {
    this.model = options.model;
    this.choiceCount = options.choiceCount;
    this.clock = options.clock;
    this.chooser = new PowerOfChoices(options.random);
    this.random = options.random;
  }

  /** The index of the chosen candidate, or -1 if there are none. */
  pick(candidates: readonly EndpointLoad[]): number {
    const model = this.model;
    this.pickCandidates = candidates;
    this.pickNowMs = model.ignoresTime ? 0 : this.clock();
    const traffic = model.traffic;
    if (traffic !== undefined) {
      traffic.readyEndpoints = candidates.length;
    }
    const ejected = model.ejects ? this.ejectedCandidate : undefined;
    const margin = model.rotationMargin;
    const n = candidates.length;
    // Both choosers handle n <= 1 themselves; the rotation only starts once
    // there is something to rotate over.
    const chosen =
      margin !== undefined && margin > 0 && n > 1
        ? this.chooser.chooseAgainst(this.nextIncumbent(n), n, this.choiceCount, margin, this.costOfCandidate, ejected)
        : this.chooser.choose(n, this.choiceCount, this.costOfCandidate, ejected);
    this.pickCandidates = NO_CANDIDATES;
    return chosen;
  }

  private nextIncumbent(candidateCount: number): number {
    if (this.rotation < 0) {
      this.rotation = Math.floor(this.random() * candidateCount);
    }
    const incumbent = this.rotation % candidateCount;
    this.rotation = incumbent + 1;
    return incumbent;
  }

  /** The cost of `load` now; for stats and tracing, not the pick path. */
  costOf(load: EndpointLoad): number {
    return this.model.cost(load, this.clock());
  }

  /** A call went out to `load`; returns its start time for `callEnded`. */
  callStarted(load: EndpointLoad): number {
    load.callStarted();
    const traffic = this.model.traffic;
    if (traffic !== undefined) {
      traffic.callsStarted++;
    }
    if (this.model.ignoresTime) {
      return 0;
    }
    const nowMs = this.clock();
    if (load.outstanding === 1) {
      load.busySinceMs = nowMs;
    }
    return nowMs;
  }

  callEnded(load: EndpointLoad, outcome: CallOutcome, startedAtMs: number): void {
    load.callFinished();
    if (this.model.ignoresTime) {
      this.model.recordCall(load, outcome, 0, 0);
      return;
    }
    const nowMs = this.clock();
    load.busySinceMs = nowMs;
    this.model.recordCall(load, outcome, nowMs - startedAtMs, nowMs);
  }
}
