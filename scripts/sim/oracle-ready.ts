/**
 * `oracle-ready`: the product's engine told which backends are slow. A
 * yardstick that splits peak_ewma's gap to the client-only bound
 * (oracle-static.ts) in two: what the engine does not know, and what its
 * rule does with what it knows.
 *
 * The engine (any peak_ewma config) sees as READY only the backends an
 * oracle deems healthy: capacity (oracle-static's `staticCapacity`: speed
 * × slots × the share of time out of GC pauses × the share of calls that
 * succeed) at least `healthy` × the best READY backend's, read from the
 * backends' behaviour at each pick, so a fault is known the moment it
 * starts and forgotten the moment it ends. Everything else is the engine's
 * own: its rotation runs over the healthy ones in the shared order, its
 * gate and draws judge their queues from its own answers.
 *
 * Taking the slow backends out of the READY list is what a rotation that
 * skips them does: each client's turns come round every n_healthy calls,
 * spaced, as the static split's smooth schedule spaces them. So this
 * measures the engine's rule with perfect knowledge of who is slow; the
 * gap from peak_ewma to it is knowledge, the gap from it to the oracle
 * (which sees queues) is what no client-side rule can close.
 */
import { BackendModel } from '../model/backend';
import { CallOutcome } from '../../src/core/endpoint-load';
import { ClientPolicy } from './client-policy';
import { EnginePolicy } from './engine-policy';
import { ReadyCapacities } from './oracle-static';

export class ReadyOraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  private readonly capacities: ReadyCapacities;
  // What the engine was last given, and a scratch list for the next judgement.
  private shown: number[] = [];
  private next: number[] = [];

  constructor(
    private readonly engine: EnginePolicy,
    backends: readonly BackendModel[],
    /** The share of the best backend's capacity a backend needs to be shown, in (0, 1]. */
    private readonly healthy: number,
  ) {
    if (!(healthy > 0 && healthy <= 1)) {
      throw new RangeError(`oracle-ready: healthy must be in (0, 1], got ${healthy}`);
    }
    this.capacities = new ReadyCapacities(backends);
  }

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
    this.show();
  }

  pick(method: number): number {
    this.show();
    return this.engine.pick(method);
  }

  started(backendId: number): number {
    return this.engine.started(backendId);
  }

  ended(backendId: number, outcome: CallOutcome, ok: boolean, token: number): void {
    this.engine.ended(backendId, outcome, ok, token);
  }

  lastPickPath(): number {
    return this.engine.lastPickPath();
  }

  /**
   * Gives the engine the healthy READY backends (all of them if none is)
   * when they changed; judged again only when a behaviour or the READY
   * list did.
   */
  private show(): void {
    const ready = this.ready;
    const capacities = this.capacities;
    if (!capacities.refresh(ready)) {
      return;
    }
    const line = this.healthy * capacities.fastest;
    const next = this.next;
    next.length = 0;
    ready.forEach((id, i) => {
      if (capacities.capacity[i] >= line) {
        next.push(id);
      }
    });
    if (next.length === 0) {
      next.push(...ready);
    }
    const shown = this.shown;
    if (next.length === shown.length && next.every((id, i) => id === shown[i])) {
      return;
    }
    this.next = shown;
    this.shown = next;
    this.engine.setCandidates(next);
  }
}
