/**
 * Per-instance stats the application can read without private grpc-js APIs:
 * every live balancer of ours registers here while it exists.
 */
import { currentRttMs } from '../core/memory';
import { PeakEwmaModel } from '../core/peak-ewma-model';
import { keepsMean } from '../core/mean';
import { sparedEjection } from '../core/slow-start';
import { EndpointLoad } from '../core/endpoint-load';
import { LoadBalancingEngine } from '../core/engine';
import { methodWeight } from '../core/methods';
import { PickCounts, RefusalCounts } from '../core/pick-paths';

/** Methods a balancer's stats list at most (the most called). */
export const STATS_MAX_METHODS = 10;

/** One method as per-method scoring sees it (`methodScoring`, core/methods.ts). */
export interface MethodStatsView {
  /** The method path the `callMarker` interceptor passed, e.g. `/pkg.Service/Get`. */
  readonly method: string;
  /** Calls started for it since it was tracked. */
  readonly calls: number;
  /** Its fleet average: a moving average of its successful calls' latency, all endpoints; null before the first. */
  readonly baselineMs: number | null;
  /** Its weight now: baselineMs / fleetRttMs, 1 while either is unknown (what a call of it counts as). */
  readonly weight: number;
}

/** One endpoint as its balancer sees it. */
export interface EndpointStats {
  /** The endpoint's addresses, comma-separated. */
  readonly address: string;
  /** Its pick_first child's connectivity state. */
  readonly state: string;
  /** Calls in flight. */
  readonly outstanding: number;
  /**
   * The learned peak-EWMA RTT estimate, decayed to now, in ms (null under
   * least_request). `cost` is what picks see: it also reflects the fleet
   * ejection bound and calls still waiting (docs/design.md).
   */
  readonly estimateMs: number | null;
  /** The cost a pick would see now. */
  readonly cost: number;
  /** Calls started on this endpoint since it joined. */
  readonly callsStarted: number;
  /** callsStarted as a fraction of the sum of callsStarted over the endpoints listed. */
  readonly shareOfCalls: number;
  /** Time since the last RTT sample in ms; null if none yet. */
  readonly msSinceLastSample: number | null;
  /**
   * Whether picks skip it now for its latency or because it is shedding calls (`ejectionRatio`, judged on
   * `ejectionSignal`); false under least_request.
   */
  readonly ejected: boolean;
  /** The mean signal in ms (`ejectionSignal: "mean"`); null otherwise or before a sample. */
  readonly meanMs: number | null;
  /** Failed calls in a row (and, with the mean signal, answers still over the line): the probe back-off's count. */
  readonly failuresInARow: number;
  /**
   * Ms left of its slow start (`slowStartWindow`: it joined a running fleet, and is weighed by its cost
   * rather than ejected for its latency meanwhile, or came back from a restart in place; core/slow-start.ts);
   * null when it is in none, is not READY, or its calls are failing or one ran out its deadline within a
   * probe interval (then it is judged as any endpoint).
   */
  readonly slowStartMsLeft: number | null;
}

/** One live balancer instance: its policy, config, state and endpoints. */
export interface BalancerStats {
  /** Unique per balancer instance in this process; a config update keeps it, a new instance changes it. */
  readonly instanceId: number;
  /** `peak_ewma_experimental` or `least_request_experimental`. */
  readonly policy: string;
  /** The channel's `grpc-js-peak-ewma.stats_label` option, or ''. */
  readonly label: string;
  /** The balancer's aggregate connectivity state (READY, CONNECTING, TRANSIENT_FAILURE, IDLE). */
  readonly state: string;
  /** The live config, as service-config JSON. */
  readonly config: object;
  /**
   * The fleet average the cost compares estimates with, in ms: a moving
   * average of successful calls' latency over all endpoints. null under
   * least_request and before the first successful call.
   */
  readonly fleetRttMs: number | null;
  /**
   * The ejection line now, in ms (peak_ewma's `ejectionRatio` R): endpoints
   * judged above it are skipped by picks (`EndpointStats.ejected`). R × the
   * fleet average, or higher while more than `maxEjected` endpoints are over
   * that (the budget, `maxEjectionPercent`). null under least_request, with
   * ejection off, and before the first successful call.
   */
  readonly ejectionLineMs: number | null;
  /**
   * How many endpoints may be ejected at once: ⌊maxEjectionPercent × READY
   * endpoints / 100⌋, at least 1, as of the last pick. null when nothing
   * bounds it (least_request, ejection off, `maxEjectionPercent` 100) and
   * before the first pick.
   */
  readonly maxEjected: number | null;
  /**
   * Endpoints a pick compares now: choiceCount, or peak_ewma's
   * mixedChoiceCount while the marked methods are a mix (core/methods.ts);
   * Infinity for least_request's FULL_SCAN; null before the first update.
   */
  readonly candidatesPerPick: number | null;
  /**
   * The balancer's picks since it began, by the path that made each
   * (`turn`, `challenged`, `refused`, `ejected`, `drawn`, `slowStart`: core/pick-paths.ts
   * says what each means). null before the first update.
   */
  readonly picks: PickCounts | null;
  /**
   * The `refused` picks by why the gate refused the turn (`inFlight`,
   * `failure`, `mean`: core/pick-paths.ts `Refusal`); they add up to
   * `picks.refused`. null before the first update.
   */
  readonly refusals: RefusalCounts | null;
  /** Every endpoint in the current address list, READY or not. */
  readonly endpoints: readonly EndpointStats[];
  /**
   * With per-method scoring on: the STATS_MAX_METHODS most called methods,
   * most first; empty otherwise (off, least_request, or no `callMarker`).
   */
  readonly methods: readonly MethodStatsView[];
}

/**
 * A live balancer, as the process-wide registry holds it (format 1, below):
 * it computes its own entry. @internal
 */
export interface BalancerStatsSource {
  balancerStats(): BalancerStats;
}

/** A balancer's raw state, which toStats turns into its entry. @internal */
export interface RawBalancerStats {
  statsSnapshot(): {
    instanceId: number;
    policy: string;
    label: string;
    state: string;
    config: object;
    endpoints: { address: string; state: string; load: EndpointLoad; cost: number }[];
    engine: LoadBalancingEngine | null;
  };
}

/**
 * One registry per process, whichever copy of this package a balancer comes
 * from (an application's and a library's: package-copies.ts), so that every
 * copy's getLoadBalancerStats() lists every copy's balancers. Each source
 * computes its own entry with its own copy's classes: read by another copy,
 * its model would fail that copy's `instanceof PeakEwmaModel`, and half the
 * fields would read null. The 1 in the key is the format of this holder and
 * of what balancerStats() returns: a copy that changes either (a field of
 * BalancerStats removed, renamed or retyped, where a reader would misread
 * it) must take another key, so every source found here answers in the
 * shape this copy reads; fields added later are extra properties, which
 * older readers pass on untouched. The instance counter lives here too, as
 * the ids are unique per process.
 */
const STATS_KEY = Symbol.for('grpc-js-peak-ewma.stats.v1');

interface StatsRegistry {
  readonly sources: Set<BalancerStatsSource>;
  lastInstanceId: number;
}

const registry: StatsRegistry = ((globalThis as { [STATS_KEY]?: StatsRegistry })[STATS_KEY] ??= {
  sources: new Set(),
  lastInstanceId: 0,
});
const sources = registry.sources;

/** An instance id no balancer of any copy in this process has had. @internal */
export function nextInstanceId(): number {
  return ++registry.lastInstanceId;
}

export function registerStatsSource(source: BalancerStatsSource): void {
  sources.add(source);
}

export function unregisterStatsSource(source: BalancerStatsSource): void {
  sources.delete(source);
}

/**
 * A snapshot of every live peak_ewma / least_request balancer in this
 * process, those of other copies of this package included.
 */
export function getLoadBalancerStats(): BalancerStats[] {
  return Array.from(sources, (source) => source.balancerStats());
}

/** A balancer's entry from its raw state, with this copy's classes. @internal */
export function toStats(raw: ReturnType<RawBalancerStats['statsSnapshot']>): BalancerStats {
  const nowMs = raw.engine?.clock() ?? 0;
  const model = raw.engine?.model;
  const totalCalls = raw.endpoints.reduce((sum, endpoint) => sum + endpoint.load.callsStarted, 0);
  return {
    instanceId: raw.instanceId,
    policy: raw.policy,
    label: raw.label,
    state: raw.state,
    config: raw.config,
    fleetRttMs: model instanceof PeakEwmaModel && model.fleet.hasSample ? model.fleet.rttMs : null,
    ejectionLineMs: model instanceof PeakEwmaModel ? model.ejectionLineMs : null,
    maxEjected: model instanceof PeakEwmaModel ? model.maxEjected : null,
    candidatesPerPick: raw.engine?.candidatesPerPick ?? null,
    picks: raw.engine?.picks.snapshot() ?? null,
    refusals: raw.engine?.picks.refusals() ?? null,
    endpoints: raw.endpoints.map(({ address, state, load, cost }) => ({
      address,
      state,
      outstanding: load.outstanding,
      estimateMs: model instanceof PeakEwmaModel ? currentRttMs(load, nowMs, model.settings, model.traffic, model.fleet) : null,
      cost,
      callsStarted: load.callsStarted,
      shareOfCalls: totalCalls > 0 ? load.callsStarted / totalCalls : 0,
      msSinceLastSample: load.hasSample ? nowMs - load.sampledAtMs : null,
      // Picks skip only READY endpoints, and the budget (maxEjected) counts only those: a pod
      // that went down while ejected is down, not ejected (else "ejected=2 of at most 1").
      ejected: state === 'READY' && model instanceof PeakEwmaModel && model.ejected(load, nowMs),
      meanMs: model instanceof PeakEwmaModel && keepsMean(model.settings) && load.hasMean ? load.meanRttMs : null,
      failuresInARow: load.consecutiveFailures,
      slowStartMsLeft: state === 'READY' && model instanceof PeakEwmaModel && sparedEjection(load, nowMs, model.settings) ? load.slowStartEndsMs - nowMs : null,
    })),
    methods: methodViews(raw.engine),
  };
}

/**
 * What `engine` runs now, read back from the engine itself (its choiceCount
 * and, under peak_ewma, its model's settings), not from the config it was
 * handed: the config-applied trace line, so that a config update the engine
 * did not take shows. @internal
 */
export function describeEngine(engine: LoadBalancingEngine): string {
  const model = engine.model;
  const settings = model instanceof PeakEwmaModel ? ` ${JSON.stringify(model.settings)}` : '';
  return `choiceCount=${engine.choiceCount}${settings}`;
}

function methodViews(engine: LoadBalancingEngine | null): MethodStatsView[] {
  const model = engine?.model;
  const methods = model?.methods;
  if (!(model instanceof PeakEwmaModel) || methods === undefined) {
    return [];
  }
  return methods.top(STATS_MAX_METHODS).map((method) => ({
    method: method.name,
    calls: method.calls,
    baselineMs: method.fleet.hasSample ? method.fleet.rttMs : null,
    weight: methodWeight(method, model.fleet),
  }));
}
