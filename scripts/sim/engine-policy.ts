/**
 * least_request, least_connection and peak_ewma: the product's engine
 * (src/core) with the cost model and choice count the product's own config
 * classes produce from service-config JSON. Nothing of the algorithm lives
 * here; this only maps backend ids to the engine's `EndpointLoad`s, as the
 * grpc-js balancer maps endpoints.
 */
import { LoadBalancingEngine } from '../../src/core/engine';
import { CallOutcome, EndpointLoad } from '../../src/core/endpoint-load';
import { RandomSource } from '../../src/core/random';
import { LoadModel } from '../../src/core/load-model';
import { MethodKey, MethodStats } from '../../src/core/methods';
import { resized } from '../model/typed-arrays';
import { ClientPolicy } from './client-policy';

export interface EngineSetup {
  readonly model: LoadModel;
  readonly choiceCount: number;
}

export class EnginePolicy implements ClientPolicy {
  readonly engine: LoadBalancingEngine;
  /** Per-endpoint state by backend id, kept across list updates (ports are never reused). */
  private readonly loads: EndpointLoad[] = [];
  private ready: EndpointLoad[] = [];
  private readyIds: number[] = [];
  /** When each backend last left the READY set (NaN while READY or before it first was), as the grpc-js balancer keeps it. */
  private readonly awaySinceMs: number[] = [];
  // The method and weight of the call just picked, as the grpc-js picker
  // keeps them in the call's closure.
  private pickMethod: MethodStats | undefined = undefined;
  private pickWeight = 1;
  // One key per method, as the interceptor hands the picker one per method path.
  private readonly methodKeys: readonly MethodKey[];
  // With per-method scoring, calls in flight by token: start, weight, method.
  private readonly inFlight = new CallsInFlight();

  constructor(
    setup: EngineSetup,
    clock: () => number,
    random: RandomSource,
    /** Method names by index. */
    methodNames: readonly string[] = [],
  ) {
    this.engine = new LoadBalancingEngine({ model: setup.model, choiceCount: setup.choiceCount, clock, random });
    this.methodKeys = methodNames.map((name) => new MethodKey(name));
  }

  setReady(backendIds: readonly number[]): void {
    const nowMs = this.engine.clock();
    const awaySinceMs = this.awaySinceMs;
    for (const id of this.readyIds) {
      if (!backendIds.includes(id)) {
        awaySinceMs[id] = nowMs;
      }
    }
    for (const id of backendIds) {
      const since = awaySinceMs[id];
      if (since !== undefined && !Number.isNaN(since)) {
        this.engine.endpointReturned(this.loads[id], nowMs - since);
        awaySinceMs[id] = NaN;
      }
    }
    this.setCandidates(backendIds);
  }

  /**
   * The backends picks choose among, without the READY bookkeeping: for a
   * yardstick that shows the engine a subset of the READY backends
   * (oracle-ready.ts), where one left out and shown again did not go away.
   */
  setCandidates(backendIds: readonly number[]): void {
    this.readyIds = backendIds.slice();
    this.ready = backendIds.map((id) => (this.loads[id] ??= new EndpointLoad()));
  }

  pick(method: number): number {
    const engine = this.engine;
    this.pickMethod = engine.methodOfKey(this.methodKeys[method]);
    this.pickWeight = engine.callWeight(this.pickMethod);
    const index = engine.pick(this.ready, this.pickWeight);
    return index < 0 ? -1 : this.readyIds[index];
  }

  started(backendId: number): number {
    const startedAtMs = this.engine.callStarted(this.loads[backendId], this.pickWeight, this.pickMethod);
    // Without per-method scoring the token is the start time, as before.
    return this.pickMethod === undefined ? startedAtMs : -1 - this.inFlight.add(startedAtMs, this.pickWeight, this.pickMethod);
  }

  ended(backendId: number, outcome: CallOutcome, _ok: boolean, token: number): void {
    if (token >= 0) {
      this.engine.callEnded(this.loads[backendId], outcome, token);
      return;
    }
    const call = -1 - token;
    const inFlight = this.inFlight;
    this.engine.callEnded(this.loads[backendId], outcome, inFlight.startedAtMs[call], inFlight.weight[call], inFlight.method[call]);
    inFlight.release(call);
  }

  lastPickPath(): number {
    return this.engine.picks.last;
  }

  /** The engine's state for `backendId` (for tests and traces). */
  loadOf(backendId: number): EndpointLoad | undefined {
    return this.loads[backendId];
  }
}

/** Calls in flight by slot, with a free list: what the picker's per-call closure holds. */
class CallsInFlight {
  startedAtMs = new Float64Array(64);
  weight = new Float64Array(64);
  method: (MethodStats | undefined)[] = [];
  private free: number[] = [];
  private used = 0;

  add(startedAtMs: number, weight: number, method: MethodStats | undefined): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.used++;
      if (slot >= this.weight.length) {
        this.startedAtMs = resized(this.startedAtMs, slot * 2);
        this.weight = resized(this.weight, slot * 2);
      }
    }
    this.startedAtMs[slot] = startedAtMs;
    this.weight[slot] = weight;
    this.method[slot] = method;
    return slot;
  }

  release(slot: number): void {
    this.method[slot] = undefined;
    this.free.push(slot);
  }
}
