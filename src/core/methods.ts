/**
 * Per-method scoring (`methodScoring`): a service whose methods cost 1 ms to
 * 1 s cannot be judged by one estimate per endpoint — an endpoint that just
 * served a 1 s Report carries a 1 s peak and is avoided for seconds, one that
 * served a run of pings looks fast, and the signal that tells a slow backend
 * from a fast one drowns in the method mix (scenario s13).
 *
 * The balancer keeps, per method m, the method's own fleet average B_m (a
 * `FleetRtt` over its successful calls, all endpoints), beside the
 * balancer's fleet average F over all calls. A method's weight is
 *
 *     w_m = B_m / F
 *
 * (how many "average calls" one call of m costs), and:
 *
 * - latency: a call of m that took r ms is sampled as r / w_m, so each
 *   endpoint keeps one estimate in the unit of an average call, and a Report
 *   and a ping on the same backend say the same thing about its speed. One
 *   estimate per endpoint, not one per (endpoint, method): the state per
 *   endpoint does not grow with the methods, the pick reads one estimate per
 *   candidate, and a rarely called method still learns from every other
 *   method's calls. The assumption is that a slow backend is slow for every
 *   method by about the same factor (the simulator's model, and a CPU-bound
 *   backend's behaviour).
 * - evidence: an answer of m moves the endpoint's estimates (the peak E
 *   and the mean M) by v_m = min(1, w_m)² of what an average call's answer
 *   would (`answerWeight`). A call's latency is its service time, which a
 *   slow backend stretches by its factor for every method, plus its wait
 *   for a slot, which is the same ms whatever the method; normalised, that
 *   wait is magnified by 1/w_m, its variance by 1/w_m², so v_m is the
 *   inverse-variance weight. A 1 ms ping that waited 40 ms behind a Report
 *   reads as 2 s of an average call: weighed fully, a run of such answers
 *   made healthy backends look sick and ejected them in turn (s13, s14;
 *   docs/tuning-log.md §18). Methods at or above the average call weigh 1.
 * - work (`methodScoring: "work"`): the load factor counts in-flight work,
 *   not calls: cost = E · (Σ w of calls in flight + w of the call placed),
 *   so a ping avoids a backend busy with a Report, which a call count
 *   treats as one ping.
 *
 * A method without a baseline yet (first seen, over the cap, or called
 * without the interceptor) has weight 1: it is scored as today. With one
 * method B_m and F see the same samples, so w = 1 exactly and every number
 * the engine computes is bit-identical to scoring without methods.
 *
 * A mix: while the tracked methods' fleet averages are `MIX_RATIO` (4) or
 * more apart, the engine compares `mixedChoiceCount` candidates per pick
 * instead of choiceCount (engine.ts). Why: with one kind of call, a
 * client's own in-flight counts are mostly 0 or 1 and two candidates are
 * as good as ten (more would pick on noise: at 1 slot × 8 clients the
 * identical fleet went 1.01 → 1.06 × round_robin with 10); in a mix one
 * in-flight 1 s Report holds a slot as long as a thousand pings, so the
 * cheapest of two random endpoints is often still busy with one. A client
 * that knows every backend's speed and its own calls in flight meets
 * every s13 target by comparing all of them and misses most of them by
 * comparing two (scripts/sim/oracle-own.ts; docs/tuning-log.md §22). Judged
 * once per `MIX_CHECK_CALLS` calls placed or `MIX_CHECK_MS`, whichever
 * comes first, O(tracked methods) each time.
 *
 * Memory: at most `MAX_TRACKED_METHODS` methods per balancer (a FleetRtt and
 * three counters each, ~100 bytes); a method with no call for
 * `METHOD_IDLE_MS` is dropped when a new method is seen, at most one sweep
 * (O(tracked methods)) per METHOD_IDLE_MS / 4; so a method seen while the
 * table is full waits up to 30 s for a slot, scoring as weight 1 meanwhile.
 */
import { FleetRtt } from './fleet-rtt';

/** Methods tracked per balancer; further ones score as weight 1 until a slot frees. */
export const MAX_TRACKED_METHODS = 64;
/** A method with no call for this long is dropped (the reference's 120 s). */
export const METHOD_IDLE_MS = 120_000;
/** Tracked methods whose fleet averages are this many times apart make a mix (see the header). */
export const MIX_RATIO = 4;
/** Whether the tracked methods are a mix is judged again after this many calls placed, or... */
export const MIX_CHECK_CALLS = 1_000;
/** ...this long since the last judgement, whichever comes first (a slow service learns it within a second). */
export const MIX_CHECK_MS = 1_000;

export class MethodStats {
  /** B_m: this method's fleet average, successful calls, all endpoints. */
  readonly fleet = new FleetRtt();
  /** Calls started for this method since it was tracked (for stats). */
  calls = 0;
  /** When a call was last placed for it (monotonic ms). */
  lastSeenMs = 0;
  /** Its calls started and not yet ended: a method is not idle while one runs (a 150 s export). */
  inFlight = 0;
  /** The table tracking it; undefined once that table dropped it (idle), so a `MethodKey` holding it looks the name up again. */
  table: MethodTable | undefined = undefined;

  constructor(readonly name: string) {}

  get tracked(): boolean {
    return this.table !== undefined;
  }
}

/**
 * A method's name as the caller hands it to the engine, one object per
 * method for the life of the process, with a one-entry cache: its state in
 * the table it was last resolved in (`LoadBalancingEngine.methodOfKey`),
 * valid while that state's `table` is the one asking.
 *
 * Why: a table lookup by name is a quarter of what per-method scoring adds
 * to a pick (docs/design.md, "Where the fifth goes"), and a service's calls
 * cycle through a few methods, so a one-name shortcut in the table misses
 * on most calls. The interceptor hands the picker the same key for every
 * call of a method (streaming.ts), so the state found for the first call is
 * on the key for the next: one comparison instead of hashing. Several
 * balancers placing the same method take turns in the one entry and each
 * falls back to the lookup, as without a key: correct, only slower. A key
 * holds on to the last state it was resolved to, and through it to that
 * state's table while the table tracks it, until another replaces it.
 */
export class MethodKey {
  stats: MethodStats | undefined = undefined;

  constructor(readonly name: string) {}
}

/**
 * w_m = B_m / F, or 1 while either has no sample or is 0 ms (answers of 0 ms
 * on the clock): a weight of 0 sampled the method's answers as r / 0 =
 * Infinity, which recordCall discards, B_m with them, so it stayed 0.
 */
export function methodWeight(method: MethodStats | undefined, fleet: FleetRtt): number {
  if (method === undefined || !method.fleet.hasSample || !fleet.hasSample || !(fleet.rttMs > 0) || !(method.fleet.rttMs > 0)) {
    return 1;
  }
  return method.fleet.rttMs / fleet.rttMs;
}

/**
 * v_m = min(1, w_m)², how much an answer of `method` moves an endpoint's
 * estimates against an average call's answer (see the header); 1 without
 * a method, so single-method and method-less scoring are unchanged.
 */
export function answerWeight(method: MethodStats | undefined, fleet: FleetRtt): number {
  return answerWeightOf(methodWeight(method, fleet));
}

/** v for a method of weight `weight` (`answerWeight` when w_m is already at hand). */
export function answerWeightOf(weight: number): number {
  return weight >= 1 ? 1 : weight * weight;
}

/**
 * A call of `method` that took `elapsedMs`, in the unit of an average call:
 * elapsed / w_m. A method's first answers, before it has a baseline while
 * the balancer has one, count as an average call: one number says nothing
 * of how this endpoint compares with others for that method. `weight` is
 * w_m now (`methodWeight`).
 */
export function normalisedElapsedMs(elapsedMs: number, method: MethodStats, fleet: FleetRtt, weight: number): number {
  if (!method.fleet.hasSample && fleet.hasSample) {
    return fleet.rttMs;
  }
  return elapsedMs / weight;
}

/** The balancer's tracked methods, bounded in number and idle time. */
export class MethodTable {
  private readonly byName = new Map<string, MethodStats>();
  private sweptAtMs = 0;
  // The method looked up last: a service's calls often repeat a method, and
  // the interceptor passes the same string object for each call of it, so
  // one comparison spares the map's hashing and probing.
  private lastName: string | undefined = undefined;
  private lastStats: MethodStats | undefined = undefined;
  private isMix = false;
  private callsSinceMixCheck = MIX_CHECK_CALLS;
  private mixCheckedAtMs = -Infinity;

  constructor(
    readonly maxMethods: number = MAX_TRACKED_METHODS,
    readonly idleMs: number = METHOD_IDLE_MS,
  ) {}

  get size(): number {
    return this.byName.size;
  }

  /** The state of `name` if tracked. */
  get(name: string): MethodStats | undefined {
    if (name === this.lastName) {
      return this.lastStats;
    }
    const stats = this.byName.get(name);
    if (stats !== undefined) {
      this.lastName = name;
      this.lastStats = stats;
    }
    return stats;
  }

  /**
   * Tracks `name`, first seen at `nowMs`, if there is room (after dropping
   * idle methods); undefined if not: its calls score as weight 1.
   */
  add(name: string, nowMs: number): MethodStats | undefined {
    this.sweepIfDue(nowMs);
    if (this.byName.size >= this.maxMethods) {
      return undefined;
    }
    const method = new MethodStats(name);
    method.table = this;
    method.lastSeenMs = nowMs;
    this.byName.set(name, method);
    return method;
  }

  /**
   * Drops idle methods at most once per idleMs / 4: over the cap every
   * call of an untracked method comes to `add`, and must not pay
   * O(methods) each time. Also called as each call starts (the engine's
   * `callStarted`), so that a method idle for idleMs stops counting toward
   * a mix and leaves the stats though no new method appears: a service's one
   * slow call at start-up kept mixedChoiceCount candidates per pick for the
   * channel's life.
   */
  sweepIfDue(nowMs: number): void {
    if (nowMs - this.sweptAtMs >= this.idleMs / 4) {
      this.dropIdle(nowMs);
    }
  }

  /** Drops every method not picked for `idleMs` and with no call running. O(tracked methods). */
  dropIdle(nowMs: number): void {
    this.sweptAtMs = nowMs;
    this.lastName = undefined;
    this.lastStats = undefined;
    for (const [name, method] of this.byName) {
      if (nowMs - method.lastSeenMs >= this.idleMs && method.inFlight === 0) {
        method.table = undefined;
        this.byName.delete(name);
      }
    }
  }

  /**
   * Whether the tracked methods are a mix (see the header), as judged at
   * most MIX_CHECK_CALLS calls or MIX_CHECK_MS ago; each call counts one
   * call placed at `nowMs`.
   */
  mixed(nowMs: number): boolean {
    if (++this.callsSinceMixCheck >= MIX_CHECK_CALLS || nowMs - this.mixCheckedAtMs >= MIX_CHECK_MS) {
      this.callsSinceMixCheck = 0;
      this.mixCheckedAtMs = nowMs;
      this.isMix = this.judgeMix();
    }
    return this.isMix;
  }

  /** The last judgement of `mixed`, without counting a call (stats). */
  get judgedMixed(): boolean {
    return this.isMix;
  }

  private judgeMix(): boolean {
    let lowestMs = Infinity;
    let highestMs = 0;
    for (const method of this.byName.values()) {
      // A method answered in 0 ms on the clock has no baseline (methodWeight says so too): 4 × 0 is no mix.
      if (method.fleet.hasSample && method.fleet.rttMs > 0) {
        lowestMs = Math.min(lowestMs, method.fleet.rttMs);
        highestMs = Math.max(highestMs, method.fleet.rttMs);
      }
    }
    return highestMs > 0 && highestMs >= MIX_RATIO * lowestMs;
  }

  /** The `limit` methods with the most calls, most first (stats). */
  top(limit: number): MethodStats[] {
    return [...this.byName.values()].sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1)).slice(0, limit);
  }
}
