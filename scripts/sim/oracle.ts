/**
 * The two oracles: clients that read every backend's true state, which no
 * real client can. Bounds to measure the policies against, not policies.
 *
 * - `oracle`: the expected response time of one more call at each backend,
 *   from the true end times of the calls in service, the queue ahead (each
 *   queued call at its mean service time, minus those whose deadline will
 *   have passed), the backend's speed, GC pause and extra delay; the lowest
 *   wins. A backend that fails calls is charged 1/(1 − errorRate); a dead or
 *   black-holed one is never chosen while another exists.
 * - `oracle-capacity`: shortest expected delay by capacity, (calls at the
 *   backend + 1) / capacity — the bound for rules that weight backends by
 *   capacity (weighted round robin, WRR with perfect weights, …).
 */
import { RandomSource } from '../../src/core/random';
import { BackendModel } from '../model/backend';
import { ClientPolicy } from './client-policy';
import { OracleFleetView, oracleFleetView } from './oracle-fleet';

export type OracleKind = 'oracle' | 'oracle-capacity';

export class OraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  /** The cost of each READY backend at the current pick (reused). */
  private costs = new Float64Array(0);

  constructor(
    private readonly kind: OracleKind,
    backends: readonly BackendModel[],
    private readonly nowMs: () => number,
    private readonly random: RandomSource,
    /** The median of the method the next pick is for. */
    private readonly medianMs: () => number,
    /** The run's shared view of the fleet (cached per backend state). */
    private readonly fleet: OracleFleetView = oracleFleetView(backends),
  ) {}

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
  }

  pick(): number {
    const ready = this.ready;
    if (ready.length === 0) {
      return -1;
    }
    const nowMs = this.nowMs();
    const medianMs = this.medianMs();
    if (this.costs.length < ready.length) {
      this.costs = new Float64Array(ready.length);
    }
    const costs = this.costs;
    if (this.kind === 'oracle') {
      this.fleet.responseCosts(ready, nowMs, medianMs, costs);
    } else {
      this.fleet.capacityCosts(ready, medianMs, costs);
    }
    let best = -1;
    let bestCost = Infinity;
    let ties = 0;
    for (let i = 0; i < ready.length; i++) {
      const id = ready[i];
      const cost = costs[i];
      if (cost < bestCost || best < 0) {
        best = id;
        bestCost = cost;
        ties = 1;
      } else if (cost === bestCost && this.random() * ++ties < 1) {
        best = id;
      }
    }
    return best;
  }

  started(): number {
    return 0;
  }

  ended(): void {}
}
