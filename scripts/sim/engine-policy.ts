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
import { LoadModel } from '../../src/core/cost';
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

  constructor(setup: EngineSetup, clock: () => number, random: RandomSource) {
    this.engine = new LoadBalancingEngine({ model: setup.model, choiceCount: setup.choiceCount, clock, random });
  }

  setReady(backendIds: readonly number[]): void {
    this.readyIds = backendIds.slice();
    this.ready = backendIds.map((id) => (this.loads[id] ??= new EndpointLoad()));
  }

  pick(): number {
    const index = this.engine.pick(this.ready);
    return index < 0 ? -1 : this.readyIds[index];
  }

  started(backendId: number): number {
    return this.engine.callStarted(this.loads[backendId]);
  }

  ended(backendId: number, outcome: CallOutcome, _ok: boolean, startedAtMs: number): void {
    this.engine.callEnded(this.loads[backendId], outcome, startedAtMs);
  }

  /** The engine's state for `backendId` (for tests and traces). */
  loadOf(backendId: number): EndpointLoad | undefined {
    return this.loads[backendId];
  }
}
