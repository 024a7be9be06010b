/**
 * What a simulated client's load balancer must do. One instance per client
 * (per channel): every client keeps its own state, as independent processes
 * do. Backends are named by their global id.
 */
import { CallOutcome } from '../../src/core/endpoint-load';

export interface ClientPolicy {
  /** The READY endpoints changed (backend ids, in resolver order). */
  setReady(backendIds: readonly number[]): void;
  /** The backend for a new call of method `method` (index into the scenario's methods), or -1 when none is READY. */
  pick(method: number): number;
  /**
   * The call just picked (of `method`) went out to `backendId`; returns a
   * token to hand back to `ended`.
   */
  started(backendId: number, method: number): number;
  /** The call ended. `ok` is gRPC status OK (outlier detection's notion of success). */
  ended(backendId: number, outcome: CallOutcome, ok: boolean, token: number): void;
  /** The path of the latest pick (src/core/pick-paths.ts `PickPath`), -1 for none; absent: the policy has no paths. */
  lastPickPath?(): number;
}
