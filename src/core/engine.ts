/**
 * The engine: one balancer's view of its endpoints and the rule that picks
 * among them. The grpc-js policies and the simulator both drive this class,
 * so there is one implementation of the algorithm.
 */
import { EjectedOf, PowerOfChoices, ProbedOf } from './choice';
import { MonotonicClock } from './clock';
import { CandidateRating, LoadModel } from './load-model';
import { CallOutcome, EndpointLoad, workLeft } from './endpoint-load';
import { MethodKey, MethodStats, MethodTable } from './methods';
import { PickPath, PickPaths, Refusal } from './pick-paths';
import { noteFirstCall } from './slow-start';
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
  /** How this balancer's picks were made (pick-paths.ts); kept across config updates. */
  readonly picks = new PickPaths();
  private readonly chooser: PowerOfChoices;
  // Set for the duration of one pick, so the cost reader is one bound
  // function instead of a closure allocated per pick.
  private pickCandidates: readonly EndpointLoad[] = [];
  private pickNowMs = 0;
  private pickWeight = 1;
  // The rating of the candidate read last. PowerOfChoices asks whether a
  // candidate is ejected, and then whether it is being probed, right after
  // reading its cost, so one rating (one estimate) answers all three.
  private readonly rating = new CandidateRating();
  private readonly costOfCandidate = (index: number): number => {
    this.model.rate(this.pickCandidates[index], this.pickNowMs, this.rating, this.pickWeight);
    return this.rating.cost;
  };
  private readonly ejectedCandidate = (): boolean => this.rating.ejected;
  private readonly probedCandidate = (): boolean => this.rating.probing;
  private readonly random: RandomSource;
  // The next incumbent, for the incumbent rule, and how many candidates its
  // start was drawn among (0: not yet; nextIncumbent draws it).
  private rotation = 0;
  private rotationDrawnAmong = 0;

  constructor(options: EngineOptions) {
    this.model = options.model;
    this.choiceCount = options.choiceCount;
    this.clock = options.clock;
    this.chooser = new PowerOfChoices(options.random);
    this.random = options.random;
  }

  /**
   * The state of the method `name` for per-method scoring (methods.ts), or
   * undefined when the model does not score per method, `name` is
   * undefined, or the method table is full. A map lookup; the clock is read
   * only when a method is first seen.
   */
  methodOf(name: string | undefined): MethodStats | undefined {
    const methods = this.model.methods;
    if (name === undefined || methods === undefined) {
      return undefined;
    }
    return methods.get(name) ?? methods.add(name, this.clock());
  }

  /**
   * `methodOf(key.name)`, answered from the key's cache (methods.ts
   * `MethodKey`) while the state it holds is tracked by this model's
   * table; otherwise looked up and cached.
   */
  methodOfKey(key: MethodKey | undefined): MethodStats | undefined {
    const methods = this.model.methods;
    if (key === undefined || methods === undefined) {
      return undefined;
    }
    const cached = key.stats;
    if (cached !== undefined && cached.table === methods) {
      return cached;
    }
    const stats = this.methodOf(key.name);
    if (stats !== undefined) {
      key.stats = stats;
    }
    return stats;
  }

  /** The weight of a call of `method` placed now (1 without one): pass it to pick, callStarted and callEnded. */
  callWeight(method: MethodStats | undefined): number {
    return method === undefined || this.model.weightOf === undefined ? 1 : this.model.weightOf(method);
  }

  /**
   * The index of the chosen candidate, or -1 if there are none; `callWeight`
   * is the weight of the call being placed (`callWeight`).
   */
  pick(candidates: readonly EndpointLoad[], callWeight = 1): number {
    const model = this.model;
    this.pickCandidates = candidates;
    this.pickWeight = callWeight;
    this.pickNowMs = model.ignoresTime ? 0 : this.clock();
    const traffic = model.traffic;
    if (traffic !== undefined) {
      traffic.setReadyEndpoints(candidates.length);
    }
    model.beforePick?.(candidates, this.pickNowMs);
    // With ejection off the draw compares costs alone (Envoy's rule), probes too.
    const ejects = model.ejects;
    const ejected = ejects ? this.ejectedCandidate : undefined;
    const probed = ejects ? this.probedCandidate : undefined;
    const n = candidates.length;
    const choiceCount = this.choiceCountNow();
    // The chooser handles n <= 1 itself; the rotation only starts once there
    // is something to rotate over.
    let chosen: number;
    if (model.rotates === true && n > 1) {
      chosen = this.pickInRotation(n, choiceCount, ejected, probed);
    } else {
      chosen = this.chooser.choose(n, choiceCount, this.costOfCandidate, ejected, probed);
      if (chosen >= 0) {
        this.picks.count(PickPath.drawn);
      }
    }
    this.pickCandidates = NO_CANDIDATES;
    return chosen;
  }

  /**
   * The rotation (rotation.ts): the next endpoint in it takes the call if
   * it passes the gate and is not ejected, unless the margin rule gives it
   * to a clearly cheaper challenger; one that fails the gate or is ejected
   * leaves the call to the draw.
   *
   * An ejected incumbent leaves the call to the draw among all endpoints,
   * not to one challenger: a single challenger won whatever it cost, so an
   * endpoint priced at the probe penalty (a new one with its probe out)
   * took the turn of every ejected incumbent drawn against it. In a burst
   * over a small fleet with one pod ejected, a cold new pod got 2–4 of 20
   * calls where the probe rule promises one (CI, 2026-12-06). The draw
   * compares `choiceCount` candidates and skips the ejected ones, as every
   * other ejected pick does, and looks past endpoints being probed
   * (choice.ts). An incumbent being probed never gets this far: the gate
   * refuses it (rotation.ts).
   */
  private pickInRotation(n: number, choiceCount: number, ejected: EjectedOf | undefined, probed: ProbedOf | undefined): number {
    const model = this.model;
    const picks = this.picks;
    const incumbent = this.nextIncumbent(n);
    const refusal = model.refusalOf === undefined ? null : model.refusalOf(this.pickCandidates[incumbent], this.pickNowMs);
    if (refusal === Refusal.mean && model.takesSlowStartTurn !== undefined && model.takesSlowStartTurn(this.pickCandidates[incumbent], this.pickNowMs)) {
      picks.count(PickPath.slowStart);
      return incumbent;
    }
    if (refusal !== null) {
      picks.countRefused(refusal);
      return this.chooser.choose(n, choiceCount, this.costOfCandidate, ejected, probed);
    }
    const margin = model.rotationMargin ?? 0;
    if (margin <= 0 && ejected === undefined) {
      picks.count(PickPath.turn);
      return incumbent;
    }
    const incumbentCost = this.costOfCandidate(incumbent);
    if (ejected !== undefined && this.rating.ejected) {
      picks.count(PickPath.ejected);
      return this.chooser.choose(n, choiceCount, this.costOfCandidate, ejected, probed);
    }
    if (margin > 0) {
      const chosen = this.chooser.chooseAgainst(incumbent, incumbentCost, n, choiceCount, margin, this.costOfCandidate, ejected, probed);
      picks.count(chosen === incumbent ? PickPath.turn : PickPath.challenged);
      return chosen;
    }
    picks.count(PickPath.turn);
    return incumbent;
  }

  /** choiceCount, or the model's `mixedChoiceCount` while its methods are a mix (methods.ts) and that is more. */
  private choiceCountNow(): number {
    const methods = this.methodsThatWiden();
    return methods !== undefined && methods.mixed(this.pickNowMs) ? this.model.mixedChoiceCount! : this.choiceCount;
  }

  /** The candidates a pick compares as of the last mix judgement, without counting a call (stats). */
  get candidatesPerPick(): number {
    const methods = this.methodsThatWiden();
    return methods !== undefined && methods.judgedMixed ? this.model.mixedChoiceCount! : this.choiceCount;
  }

  /** The method table whose mix would widen the choice; undefined when no mix could. */
  private methodsThatWiden(): MethodTable | undefined {
    const mixedCount = this.model.mixedChoiceCount;
    return mixedCount !== undefined && mixedCount > this.choiceCount ? this.model.methods : undefined;
  }

  /**
   * The rotation's next endpoint. Its start is drawn again whenever the
   * number of candidates changes, as grpc-js's round_robin draws a fresh
   * start for each new picker. Why: a channel's first picks often come
   * while only some of its endpoints are READY (the others still
   * connecting). A start drawn among two of three endpoints and kept would
   * put every client that started then on two of the three positions of
   * the full list, in the same order: their calls bunch on one backend at
   * a time, which queues at one or two slots.
   */
  private nextIncumbent(candidateCount: number): number {
    if (candidateCount !== this.rotationDrawnAmong) {
      this.rotation = Math.floor(this.random() * candidateCount);
      this.rotationDrawnAmong = candidateCount;
    }
    const incumbent = this.rotation % candidateCount;
    this.rotation = incumbent + 1;
    return incumbent;
  }

  /**
   * `load` is READY again after `goneMs` ms not READY, its connection refused
   * meanwhile; the policy and the simulator measure the absence, the model
   * decides what it means (slow-start.ts `noteReturn`).
   */
  endpointReturned(load: EndpointLoad, goneMs: number): void {
    this.model.endpointReturned?.(load, goneMs);
  }

  /** The cost of `load` now; for stats and tracing, not the pick path. */
  costOf(load: EndpointLoad): number {
    return this.model.cost(load, this.clock());
  }

  /**
   * A call (of `method`, weighing `callWeight`) went out to `load`; returns
   * its start time for `callEnded`.
   */
  callStarted(load: EndpointLoad, callWeight = 1, method?: MethodStats): number {
    load.callStarted();
    load.outstandingWork += callWeight;
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
    if (traffic !== undefined) {
      noteFirstCall(load, traffic, nowMs);
    }
    if (method !== undefined) {
      method.calls++;
      method.inFlight++;
      method.lastSeenMs = nowMs;
      // After stamping it: the sweep must not drop the method being placed.
      method.table?.sweepIfDue(nowMs);
    }
    return nowMs;
  }

  /** The call started by `callStarted(load, callWeight, method)` ended. */
  callEnded(load: EndpointLoad, outcome: CallOutcome, startedAtMs: number, callWeight = 1, method?: MethodStats): void {
    load.callFinished();
    if (method !== undefined && method.inFlight > 0) {
      method.inFlight--;
    }
    load.outstandingWork = workLeft(load.outstandingWork, callWeight, load.outstanding);
    if (this.model.ignoresTime) {
      this.model.recordCall(load, outcome, 0, 0, method);
      return;
    }
    const nowMs = this.clock();
    load.busySinceMs = nowMs;
    this.model.recordCall(load, outcome, nowMs - startedAtMs, nowMs, method);
  }
}
