/**
 * The picker: the engine chooses among the READY endpoints, the chosen
 * endpoint's own pick_first picker supplies the subchannel, and the call's
 * start and end are accounted on that endpoint.
 *
 * A call is accounted in onCallStarted/onCallEnded: grpc-js may run pick()
 * several times for one call (queued picks are re-run on every state
 * update; a pick whose subchannel stopped being READY while call credentials
 * were generated is retried) and then calls only the callbacks of the pick
 * that actually opened a stream. A complete pick counts on its endpoint
 * from the pick until its call starts or the event-loop turn ends
 * (pick-turn.ts), so the picks of one burst see each other.
 */
import { experimental, Metadata } from '@grpc/grpc-js';
import { EndpointLoad } from '../core/endpoint-load';
import { LoadBalancingEngine } from '../core/engine';
import { MethodStats } from '../core/methods';
import { PICK_PATH_NAMES } from '../core/pick-paths';
import { outcomeOfStatus } from './call-outcome';
import { PickTurn } from './pick-turn';
import { isUntimed, timedMethodOf } from './streaming';
import { Tracer } from './trace';

type PickResult = experimental.PickResult;
type OnCallEnded = NonNullable<PickResult['onCallEnded']>;

/** An endpoint as the picker sees it. */
export interface PickableEndpoint {
  readonly load: EndpointLoad;
  readonly picker: experimental.Picker;
  readonly name: string;
}

/** Balancer-wide settings a picker reads at pick time, so config updates reach live pickers. */
export interface PickContext {
  readonly engine: LoadBalancingEngine;
  countsStreams: boolean;
  readonly tracer: Tracer;
  readonly turn: PickTurn;
}

export class EndpointPicker implements experimental.Picker {
  private readonly loads: readonly EndpointLoad[];

  constructor(
    private readonly ready: readonly PickableEndpoint[],
    private readonly context: PickContext,
  ) {
    this.loads = ready.map((endpoint) => endpoint.load);
  }

  pick(pickArgs: experimental.PickArgs): PickResult {
    const { engine, tracer } = this.context;
    // The call's method (callMarker), only when the model scores per method.
    const method = engine.model.methods === undefined ? undefined : engine.methodOfKey(timedMethodOf(pickArgs.metadata));
    const callWeight = engine.callWeight(method);
    const index = engine.pick(this.loads, callWeight);
    const chosen = this.ready[index];
    if (tracer.picksEnabled) {
      tracer.debug(`pick: ${chosen.name} (${PICK_PATH_NAMES[engine.picks.last]}) among ${this.describeCosts()}`);
    }
    const childPick = chosen.picker.pick(pickArgs);
    if (childPick.pickResultType !== experimental.PickResultType.COMPLETE) {
      return childPick;
    }
    if (!this.context.countsStreams && isUntimed(pickArgs.metadata)) {
      return childPick;
    }
    return trackCall(childPick, this.context, chosen.load, callWeight, method);
  }

  private describeCosts(): string {
    const { engine } = this.context;
    return this.ready.map((endpoint) => `${endpoint.name}=${engine.costOf(endpoint.load).toFixed(3)}`).join(' ');
  }
}

/**
 * Wraps the child's pick so that the call's start and end reach the engine,
 * chaining the child's own callbacks. The subchannel is returned unchanged:
 * parents (outlier_detection, xds_cluster_impl) unwrap it.
 */
function trackCall(
  childPick: PickResult,
  { engine, turn }: PickContext,
  load: EndpointLoad,
  callWeight: number,
  method: MethodStats | undefined,
): PickResult {
  const pickedInTurn = turn.claim(load, callWeight);
  let startedAtMs = 0;
  let inFlight = false;
  const onCallEnded: OnCallEnded = (code: number, details: string, metadata: Metadata) => {
    if (inFlight) {
      inFlight = false;
      engine.callEnded(load, outcomeOfStatus(code, details), startedAtMs, callWeight, method);
    }
    childPick.onCallEnded?.(code, details, metadata);
  };
  return {
    pickResultType: childPick.pickResultType,
    subchannel: childPick.subchannel,
    status: childPick.status,
    onCallStarted: () => {
      turn.started(load, callWeight, pickedInTurn);
      startedAtMs = engine.callStarted(load, callWeight, method);
      inFlight = true;
      childPick.onCallStarted?.();
    },
    onCallEnded,
  };
}
