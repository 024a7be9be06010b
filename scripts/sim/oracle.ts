/**
 * The two oracles: clients that read every backend's true state, which no
 * real client can. Bounds to measure the policies against, not policies.
 *
 * - `oracle`: the expected response time of one more call at each backend,
 *   from the true end times of the calls in service, the queue ahead (each
 *   queued call at its mean service time, minus those whose deadline will
 *   have passed), the backend's speed, GC pause and extra delay; the lowest
 *   wins. A backend that fails calls is charged 1/(1 − errorRate); a dead or
 *   black-holed one, or one that would refuse the call (one-slot pods that
 *   shed load, s16), is never chosen while another exists.
 * - `oracle-capacity`: shortest expected delay by capacity, (calls at the
 *   backend + 1) / capacity — the bound for rules that weight backends by
 *   capacity (weighted round robin, WRR with perfect weights, …).
 *
 * The costs come from the run's shared `OracleFleetView` (cached per
 * backend state, exact); the pick only scans them. Ties are broken by
 * reservoir sampling, so a run's random draws are exactly one per later
 * backend that ties the best so far: keeping that count and order is what
 * keeps results reproducible across changes to the cost code.
 */
import { RandomSource } from '../../src/core/random';
import { BackendModel } from '../model/backend';
import { cheapestOf } from './cheapest';
import { ClientPolicy } from './client-policy';
import { OracleFleetView, oracleFleetView } from './oracle-fleet';

export type OracleKind = 'oracle' | 'oracle-capacity';

export class OraclePolicy implements ClientPolicy {
  private ready: readonly number[] = [];

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
    const medianMs = this.medianMs();
    const costs =
      this.kind === 'oracle' ? this.fleet.responseCosts(ready, this.nowMs(), medianMs) : this.fleet.capacityCosts(medianMs);
    return cheapestOf(ready, ready.length, costs, this.random);
  }

  started(): number {
    return 0;
  }

  ended(): void {}
}
