/**
 * The skeleton both policies share (gRFC A48's least_request structure over
 * A61 endpoints): one endpoint-level pick_first child per endpoint, their
 * states aggregated, and a picker that lets the engine choose among the
 * READY ones. A policy is this class plus a config class; the config decides
 * the cost model.
 */
import { ChannelOptions, connectivityState, experimental, Metadata, StatusObject } from '@grpc/grpc-js';
import { systemClock } from '../core/clock';
import { EndpointLoad } from '../core/endpoint-load';
import { LoadBalancingEngine } from '../core/engine';
import { systemRandom } from '../core/random';
import { EmptyListRetry } from './empty-list-retry';
import { endpointKey } from './endpoint-key';
import { EndpointPickingConfig } from './endpoint-picking-config';
import { configOfThisCopy, EndpointPickingConfigClass } from './foreign-config';
import { EndpointPicker, PickableEndpoint, PickContext } from './picker';
import { PickTurn } from './pick-turn';
import { RetiredLoads } from './retired-loads';
import {
  BalancerStats,
  BalancerStatsSource,
  RawBalancerStats,
  describeEngine,
  nextInstanceId,
  registerStatsSource,
  toStats,
  unregisterStatsSource,
} from './stats';
import { childOptionsOf, statsLabelOf } from './stats-label';
import { Tracer } from './trace';

const { LeafLoadBalancer, QueuePicker, UnavailablePicker } = experimental;
/** The metadata `connectionFailed` picks with: a TRANSIENT_FAILURE picker reads none. */
const NO_METADATA = new Metadata();
type LeafLoadBalancer = experimental.LeafLoadBalancer;
type ConnectivityState = connectivityState;

interface ManagedEndpoint {
  readonly key: string;
  readonly child: LeafLoadBalancer;
  readonly load: EndpointLoad;
  /** The child's state when we last looked, to notice it leaving READY. */
  lastState: ConnectivityState;
  /**
   * When it last left READY; NaN while READY and before it first was. With
   * `refusedWhileAway` (its connection failed meanwhile: the child reported
   * TRANSIENT_FAILURE with no connection, `connectionFailed`), how long it
   * was away says whether a process came back restarted in place
   * (core/slow-start.ts `noteReturn`). A reconnect after a GOAWAY goes
   * IDLE → CONNECTING → READY and never fails; an endpoint that left the
   * address list and came back (RetiredLoads) is DNS or EDS churn, not a
   * restart, and starts with neither; nor does one that outlier_detection
   * ejected and let back, whose connection stayed up.
   */
  awaySinceMs: number;
  refusedWhileAway: boolean;
}

/** How pick_first (and we) begin a TRANSIENT_FAILURE message. */
const CONNECTION_FAILED = 'No connection established';

/**
 * Whether `child`, in TRANSIENT_FAILURE, has no connection: pick_first says
 * so in its picker's status ("No connection established. Last error: …").
 * Beneath outlier_detection an ejected endpoint's pick_first reports
 * TRANSIENT_FAILURE too, with its connection up ("Picked subchannel … is
 * unhealthy"): the process was never away, so its return is no restart in
 * place. Were grpc-js to word it otherwise, no return would count: slow start
 * would miss restarts, as before 2026-12-07, and spare nothing it should not.
 */
function connectionFailed(child: LeafLoadBalancer): boolean {
  const result = child.getPicker().pick({ metadata: NO_METADATA, extraPickInfo: {} });
  return result.pickResultType === experimental.PickResultType.TRANSIENT_FAILURE && result.status !== null && result.status.details.startsWith(CONNECTION_FAILED);
}

/**
 * The skeleton both policies share. Not constructed directly: grpc-js builds
 * the concrete policies from their registered names.
 */
export abstract class EndpointPickingLoadBalancer implements experimental.LoadBalancer, BalancerStatsSource, RawBalancerStats {
  /** Unique in this process, whichever copy of the package made it: tells one balancer instance from its successor. */
  readonly instanceId = nextInstanceId();
  private readonly endpoints = new Map<string, ManagedEndpoint>();
  /** Records of endpoints that just left the list, for when they come back (retired-loads.ts). */
  private readonly retired = new RetiredLoads();
  private readonly childHelper: experimental.ChannelControlHelper;
  private context: PickContext | null = null;
  private updatesPaused = false;
  private lastError: string | null = null;
  /** Whether a non-empty list was accepted: the channel then holds a config (see updateAddressList). */
  private servedAList = false;
  /** The resolver's error since the last good resolution, for RPCs that fail meanwhile. */
  private resolutionError: string | null = null;
  private currentState: ConnectivityState = connectivityState.IDLE;
  private statsLabel = '';
  private config: EndpointPickingConfig | null = null;
  /** IDLE children at the last state recomputation; lets exitIdle() return at once. */
  private idleEndpoints = 0;
  /** Asks the resolver again while it answers an empty list after a served one. */
  private readonly emptyListRetry: EmptyListRetry;
  /** The last refused config's error line, said once (see ownConfig). */
  private lastRefusal: string | null = null;

  protected constructor(
    private readonly helper: experimental.ChannelControlHelper,
    /** The registered policy name. */
    readonly policyName: string,
    private readonly configClass: EndpointPickingConfigClass,
    private readonly tracer: Tracer,
  ) {
    this.childHelper = experimental.createChildChannelControlHelper(helper, {
      updateState: (_state, _picker, errorMessage) => this.onChildStateChange(errorMessage),
    });
    this.emptyListRetry = new EmptyListRetry(() => helper.requestReresolution());
    registerStatsSource(this);
    this.tracer.info(`instance ${this.instanceId} created`);
  }

  updateAddressList(
    endpointList: experimental.StatusOr<experimental.Endpoint[]>,
    lbConfig: experimental.TypedLoadBalancingConfig,
    options: ChannelOptions,
    resolutionNote: string,
  ): boolean {
    const config = this.ownConfig(lbConfig);
    if (config === null) {
      return false;
    }
    this.lastRefusal = null;
    this.applyConfig(config);
    this.config = config;
    this.statsLabel = statsLabelOf(options);
    if (!endpointList.ok) {
      // A failed resolution while we have endpoints: keep serving them. If
      // none can serve, the RPCs are told about this failure too (as
      // grpc-go's balancers do): it may be why the endpoints are stale.
      this.resolutionError = endpointList.error.details;
      if (this.endpoints.size === 0) {
        this.publish(connectivityState.TRANSIENT_FAILURE, new UnavailablePicker(endpointList.error), endpointList.error.details);
      } else if (this.currentState === connectivityState.TRANSIENT_FAILURE) {
        this.refreshState();
      }
      return true;
    }
    this.resolutionError = null;
    const list = endpointList.value;
    this.tracer.info(`address update: ${list.length} endpoints`);
    const nowMs = this.context!.engine.clock();
    this.retired.prune(nowMs);
    if (list.length === 0) {
      this.retireChildren(nowMs);
      const details = `${this.policyName}: No addresses resolved. Resolution note: ${resolutionNote}`;
      this.publish(connectivityState.TRANSIENT_FAILURE, new UnavailablePicker({ details }), details);
      // Refused (as grpc-java's least_request and grpc-js's pick_first do)
      // once we have served a list: grpc-js's DNS resolver takes false as a
      // failed resolution and resolves again by itself, so an idle client
      // finds the endpoints when they come back instead of failing its next
      // call; the channel keeps the config of the earlier list, so calls
      // meanwhile still fail fast with the message above. Accepted as the
      // first list: refusing that would leave the channel without a config,
      // and calls would wait out their deadline instead of failing fast.
      // Measured: docs/design.md, "Resolution". Under a parent policy the
      // refusal may never reach the resolver, so ask it too (empty-list-retry.ts).
      if (this.servedAList) {
        this.emptyListRetry.listEmpty(options);
      }
      return !this.servedAList;
    }
    this.emptyListRetry.stop();
    this.servedAList = true;
    const childOptions = childOptionsOf(options);
    this.updatesPaused = true;
    const seen = new Set<string>();
    const added: ManagedEndpoint[] = [];
    for (const endpoint of list) {
      const key = endpointKey(endpoint);
      if (seen.has(key)) {
        continue;
      }
      seen.add(key);
      const existing = this.endpoints.get(key);
      if (existing) {
        existing.child.updateEndpoint(endpoint, childOptions);
      } else {
        const managed: ManagedEndpoint = {
          key,
          child: new LeafLoadBalancer(endpoint, this.childHelper, childOptions, resolutionNote),
          load: this.retired.reclaim(key, nowMs) ?? new EndpointLoad(),
          lastState: connectivityState.IDLE,
          awaySinceMs: NaN,
          refusedWhileAway: false,
        };
        this.endpoints.set(key, managed);
        added.push(managed);
      }
    }
    for (const [key, managed] of this.endpoints) {
      if (!seen.has(key)) {
        managed.child.destroy();
        this.endpoints.delete(key);
        this.retired.retire(key, managed.load, nowMs);
      }
    }
    for (const managed of added) {
      managed.child.startConnecting();
    }
    this.updatesPaused = false;
    this.refreshState();
    return true;
  }

  /**
   * grpc-js calls this on every call (InternalChannel.getConfig), so it must
   * cost nothing when no child is IDLE: every child state change recounts.
   */
  exitIdle(): void {
    if (this.idleEndpoints === 0) {
      return;
    }
    for (const managed of this.endpoints.values()) {
      if (managed.child.getConnectivityState() === connectivityState.IDLE) {
        managed.child.exitIdle();
      }
    }
  }

  resetBackoff(): void {
    // LeafLoadBalancer exposes no backoff reset; its pick_first child resets
    // its own backoff when the channel asks the subchannels directly.
  }

  destroy(): void {
    this.emptyListRetry.stop();
    this.context?.turn.stop();
    this.destroyChildren();
    this.retired.clear();
    unregisterStatsSource(this);
    this.tracer.info('destroyed');
  }

  getTypeName(): string {
    return this.policyName;
  }

  // --- stats (see stats.ts) ---

  /** @internal This balancer's entry in getLoadBalancerStats(), computed by this copy of the package. */
  balancerStats(): BalancerStats {
    return toStats(this.statsSnapshot());
  }

  /** @internal Raw state for balancerStats(). */
  statsSnapshot() {
    const engine = this.context?.engine ?? null;
    return {
      instanceId: this.instanceId,
      policy: this.policyName,
      label: this.statsLabel,
      state: connectivityState[this.currentState],
      config: this.config?.toJsonObject() ?? {},
      endpoints: Array.from(this.endpoints.values(), (managed) => ({
        address: managed.key,
        state: connectivityState[managed.child.getConnectivityState()],
        load: managed.load,
        cost: engine ? engine.costOf(managed.load) : NaN,
      })),
      engine,
    };
  }

  // --- internals ---

  /**
   * `lbConfig` as this copy's config, or null to refuse the update
   * (foreign-config.ts); a refusal logged once until an update is taken: a
   * DNS resolver retries a refused one every few seconds.
   */
  private ownConfig(lbConfig: experimental.TypedLoadBalancingConfig): EndpointPickingConfig | null {
    const taken = configOfThisCopy(lbConfig, this.policyName, this.configClass);
    if ('config' in taken) {
      return taken.config;
    }
    const refusal = taken.refusal === null ? null : `instance ${this.instanceId} refused an update: ${taken.refusal}; it keeps its config and endpoints`;
    if (refusal !== null && refusal !== this.lastRefusal) {
      this.lastRefusal = refusal;
      this.tracer.error(refusal);
    }
    return null;
  }

  private applyConfig(config: EndpointPickingConfig): void {
    if (this.context === null) {
      const engine = new LoadBalancingEngine({
        model: config.createModel(),
        choiceCount: config.choiceCount,
        clock: systemClock,
        random: systemRandom,
      });
      this.context = { engine, countsStreams: config.countsStreams, tracer: this.tracer, turn: new PickTurn() };
    } else {
      config.configure(this.context.engine);
      this.context.countsStreams = config.countsStreams;
    }
    if (this.tracer.enabled) {
      // Read back from the engine: the stats' config is the JSON we were given, this is what runs.
      this.tracer.info(`instance ${this.instanceId} engine: ${describeEngine(this.context.engine)}`);
    }
  }

  /**
   * A child's report. While an update is running (paused), only its error is
   * kept: every reused child re-reports during the update, and scanning all
   * endpoints per report would make each update O(n²). The update ends with
   * one scan (refreshState), which also sees any child that left READY
   * meanwhile, since lastState is only written by that scan.
   */
  private onChildStateChange(errorMessage: string | null): void {
    if (errorMessage !== null) {
      this.lastError = errorMessage;
    }
    if (!this.updatesPaused) {
      this.refreshState();
    }
  }

  /**
   * One pass over the endpoints: asks for re-resolution if one left READY,
   * then publishes READY if any endpoint is READY; else CONNECTING if any is
   * CONNECTING or IDLE; else TRANSIENT_FAILURE carrying the last error. IDLE
   * endpoints are asked to reconnect, so every endpoint stays connected.
   */
  private refreshState(): void {
    if (this.context === null) {
      return;
    }
    const ready: PickableEndpoint[] = [];
    const idle: LeafLoadBalancer[] = [];
    let connecting = false;
    let leftReady = false;
    const engine = this.context.engine;
    for (const managed of this.endpoints.values()) {
      const state = managed.child.getConnectivityState();
      if (managed.lastState === connectivityState.READY && state !== connectivityState.READY) {
        leftReady = true;
        managed.awaySinceMs = engine.clock();
        managed.refusedWhileAway = false;
      }
      // Away (it left READY and is not back): was its connection refused, and is it back now?
      if (!Number.isNaN(managed.awaySinceMs)) {
        if (state === connectivityState.TRANSIENT_FAILURE) {
          managed.refusedWhileAway ||= connectionFailed(managed.child);
        } else if (state === connectivityState.READY) {
          if (managed.refusedWhileAway) {
            engine.endpointReturned(managed.load, engine.clock() - managed.awaySinceMs);
          }
          managed.awaySinceMs = NaN;
        }
      }
      managed.lastState = state;
      if (state === connectivityState.READY) {
        ready.push({ load: managed.load, picker: managed.child.getPicker(), name: managed.key });
      } else if (state === connectivityState.CONNECTING) {
        connecting = true;
      } else if (state === connectivityState.IDLE) {
        connecting = true;
        idle.push(managed.child);
      }
    }
    if (leftReady) {
      this.helper.requestReresolution();
    }
    this.idleEndpoints = idle.length;
    if (ready.length > 0) {
      this.publish(connectivityState.READY, new EndpointPicker(ready, this.context), null);
    } else if (connecting) {
      this.publish(connectivityState.CONNECTING, new QueuePicker(this), null);
    } else if (this.endpoints.size > 0) {
      const details = this.failureDetails();
      this.publish(connectivityState.TRANSIENT_FAILURE, new UnavailablePicker({ details }), details);
    }
    for (const child of idle) {
      child.exitIdle();
    }
  }

  /**
   * What failed, said once. The children are pick_first, whose own error
   * already reads "No connection established. Last error: …"; wrapping it in
   * the same words again said it twice.
   */
  private failureDetails(): string {
    const connection =
      this.lastError === null
        ? CONNECTION_FAILED
        : this.lastError.startsWith(CONNECTION_FAILED)
          ? this.lastError
          : `${CONNECTION_FAILED}. Last error: ${this.lastError}`;
    const resolution = this.resolutionError === null ? '' : `; name resolution also failed: ${this.resolutionError}`;
    return `${this.policyName}: ${connection}${resolution}`;
  }

  private publish(state: ConnectivityState, picker: experimental.Picker, errorMessage: string | null): void {
    if (state !== this.currentState) {
      this.tracer.info(`${connectivityState[this.currentState]} -> ${connectivityState[state]}`);
    }
    this.currentState = state;
    this.helper.updateState(state, picker, errorMessage);
  }

  private retireChildren(nowMs: number): void {
    for (const [key, managed] of this.endpoints) {
      this.retired.retire(key, managed.load, nowMs);
    }
    this.destroyChildren();
  }

  private destroyChildren(): void {
    for (const managed of this.endpoints.values()) {
      managed.child.destroy();
    }
    this.endpoints.clear();
  }
}

export type { StatusObject };
