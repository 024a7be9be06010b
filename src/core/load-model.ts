/**
 * The contract between the engine (engine.ts, choice.ts) and a cost model:
 * what a call sent to an endpoint is expected to cost, and how a finished
 * call changes that. Lower is better. Both policies share all other
 * machinery; only the model differs: least-request-model.ts (gRFC A48) and
 * peak-ewma-model.ts, whose cost function is cost.ts.
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { MethodStats, MethodTable } from './methods';
import { Refusal } from './pick-paths';
import { BalancerTraffic } from './traffic';

/**
 * One candidate's standing in a pick, as `LoadModel.rate` leaves it. The
 * engine reuses one instance, so rating allocates nothing.
 */
export class CandidateRating {
  /** The cost of one more call, >= 0; lower is better. */
  cost = 0;
  /** Skipped by the chooser while it can draw others (see PowerOfChoices). */
  ejected = false;
  /**
   * Being probed (new-endpoint.ts `isProbing`): the chooser draws on past
   * it, and it keeps its cost (see PowerOfChoices). Read only where `ejects`.
   */
  probing = false;
}

export interface LoadModel {
  /**
   * true: the model never looks at time, so the engine reads no clock on
   * the call path and passes 0 for every `nowMs` and `elapsedMs`. A clock
   * read costs 25–110 ns (more than the whole least_request rule), and the
   * pick path has three of them.
   */
  readonly ignoresTime: boolean;
  /**
   * Whether `rate` can ever eject; false spares the chooser the check, and
   * it then compares costs alone, `probing` unread (Envoy's rule).
   */
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
   * Whether `load`, refused its turn for its mean, takes it anyway as an
   * endpoint in its slow start (slow-start.ts); no challenger takes such a
   * turn. Absent: never.
   */
  takesSlowStartTurn?(load: EndpointLoad, nowMs: number): boolean;
  /**
   * `load` is READY again after `goneMs` not READY, its connection refused
   * meanwhile: a process restarted in place may be a joiner again
   * (slow-start.ts `noteReturn`). Absent: nothing.
   */
  endpointReturned?(load: EndpointLoad, goneMs: number): void;
  /**
   * The balancer's own traffic, if the model counts in it: the engine records
   * the READY count at each pick and counts each started call there.
   */
  readonly traffic?: BalancerTraffic;
  /** The tracked methods, if the model scores per method (methods.ts); undefined: methods are ignored. */
  readonly methods?: MethodTable | undefined;
  /**
   * Candidates compared per pick while `methods` are a mix (methods.ts
   * `MethodTable.mixed`), where more than choiceCount; absent: choiceCount.
   */
  readonly mixedChoiceCount?: number | undefined;
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
