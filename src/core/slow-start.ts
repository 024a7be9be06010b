/**
 * Slow start: a pod that joins a running fleet is let warm up.
 *
 * Why. A pod started by a rolling update or a scale-out is often slow at
 * first because it warms up with work: a JVM's JIT, cold caches, pools
 * opened on first use. It gets faster only by serving calls. Judged like
 * any endpoint, its first answers put it over the ejection line, and then
 * it got one probe per client per backed-off interval, a few calls a
 * second: never enough to warm. In the simulator's s17 (s07's rolling
 * restart with pods whose first call is 5 × slower, the extra falling by
 * 1/e every 300 calls they serve) the last four pods of the roll served
 * 218–511 calls each over their first 30 s, where least_request gave them
 * 16,000–20,000, and the other sixteen carried the fleet: p99 51 ms against
 * least_request's 46 at 8 slots × 8 clients, 417 against 243 at 2 slots
 * (docs/tuning-log.md §57).
 *
 * The rule. An endpoint is a *joiner* when this balancer had started
 * `JOINER_AFTER_FAIR_SHARES` fair shares of its calls (traffic.ts) before
 * its first call to it: it was not part of the fleet the client began
 * with. For `slowStartMs` W after a joiner's first answer:
 *
 * - it is not ejected for its latency (errors and load shedding still
 *   count), so its slow answers are no failed probes and nothing backs off,
 *   and the ejection budget does not rank it;
 * - where the rotation's gate would refuse it its turn for its mean M, it
 *   takes the turn in proportion to its speed, F / M of them (F the fleet
 *   average), spaced evenly by a running credit: a pod 5 × slower than its
 *   peers takes one turn in five, which keeps it about as busy as they
 *   are. No challenger takes such a turn: the margin would weigh the very
 *   cost the share has already accounted for.
 *
 * After W it is judged as any endpoint, so a newcomer that stays slow is
 * then ejected as before. A joiner that is fast from its first call is
 * never refused for its mean, and nothing here touches it. The fleet a
 * client begins with is judged at once, as before: a client starting
 * against a fleet has no way to tell a pod warming up from one that is
 * slow, and those pods are not new to the fleet's other clients.
 *
 * Unlike Envoy's slow start (`slow_start_config`: a new host's weight
 * ramps over a window by time alone), the share here follows the pod's own
 * speed as this client measures it: a pod that warms fast gets its full
 * share as soon as its answers are typical.
 */
import { EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { BalancerTraffic } from './traffic';

/**
 * Fair shares of the balancer's calls after which an endpoint's first call
 * makes it a joiner. The rotation offers every READY endpoint a call in
 * each fair share, so the fleet a client begins with has had its first
 * calls by then; counted in calls, not time, so that a light client's
 * first round is not mistaken for joins.
 */
export const JOINER_AFTER_FAIR_SHARES = 2;

/** Records where the balancer's calls stood at `load`'s first call (its first only). */
export function noteFirstCall(load: EndpointLoad, traffic: BalancerTraffic): void {
  if (Number.isNaN(load.firstCallAtShares)) {
    load.firstCallAtShares = traffic.sharesNow();
  }
}

/** At the end of `load`'s first call (`nowMs`, once only): a joiner's slow start begins, for `slowStartMs`. */
export function startSlowStart(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): void {
  const windowMs = settings.slowStartMs;
  if (windowMs && load.slowStartEndsMs === -Infinity && load.firstCallAtShares >= JOINER_AFTER_FAIR_SHARES) {
    load.slowStartEndsMs = nowMs + windowMs;
  }
}

/** Whether `load` is in its slow start at `nowMs`. */
export function inSlowStart(load: EndpointLoad, nowMs: number): boolean {
  return nowMs < load.slowStartEndsMs;
}

/**
 * Whether `load`, in its slow start and refused its turn by the gate for
 * its mean, takes the turn anyway: F / M of such turns, by a running credit.
 */
export function takesSlowStartTurn(load: EndpointLoad, nowMs: number, fleet: FleetRtt): boolean {
  if (!inSlowStart(load, nowMs)) {
    return false;
  }
  const meanMs = load.meanRttMs;
  load.slowStartCredit += meanMs > 0 ? Math.min(1, fleet.rttMs / meanMs) : 1;
  if (load.slowStartCredit < 1) {
    return false;
  }
  load.slowStartCredit -= 1;
  return true;
}
