/**
 * A shed call: the server refused it for want of capacity
 * (CallOutcome.SHED, RESOURCE_EXHAUSTED: grpcio's maximum_concurrent_rpcs, a
 * concurrency limiter, HTTP/2 ENHANCE_YOUR_CALM). A failure like any other
 * for the error penalty, the failures in a row and the gate; and word that
 * the endpoint is full now.
 *
 * Why more than the error penalty. The penalty prices a shed call at
 * f × F, but a two-choice draw of two endpoints that shed must still take
 * one of them, however high both are priced: with three one-worker Python
 * pods of six shedding load, peak_ewma failed 6.6 % of its calls
 * (docs/tuning-log.md §49). So an endpoint that has shed a call and not
 * answered one sent after it is ejected (with ejection on) while
 *
 *     shedding = S > −∞  and  not stale  (and now − S < τ when T is off)
 *
 * S the time of its last shed call: out until it is stale and probed
 * (staleness.ts: T and K fair shares of the client's calls, backed off as
 * its failures go on), or for τ where T is off and nothing goes stale. A
 * bound of T alone let a pod back a second after each shed call, before its
 * probe was due: 2.2 % of calls failed where this reads 1.5 % (§49). An answer to a call sent after S ends it: a call answered
 * just after S, sent before, says nothing about the endpoint's capacity
 * since. Outside the ejection budget (ejection-budget.ts), which bounds how
 * much capacity latency ejections may take from a fleet: a shedding
 * endpoint offers none, and a call sent to it fails. The risk is a
 * RESOURCE_EXHAUSTED that is not about capacity: a quota's (call-outcome.ts
 * keeps those a plain failure) or a message's size (no news), and any other
 * text a service gives the code for a per-caller reason, which would eject
 * endpoints for up to T each.
 *
 * Other failures do not eject: a pod failing 5 % of its calls at random
 * would lose its share in a small fleet that needs its capacity, and
 * ejecting on every failure put the reference's crash-loop recovery over
 * its 4 s target (docs/tuning-log.md §49).
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/** Whether `load` is shedding calls now (the header's rule); `stale` as staleness.ts says. */
export function isShedding(load: EndpointLoad, nowMs: number, stale: boolean, settings: PeakEwmaSettings): boolean {
  // With T on, staleness ends it (T and K fair shares); with T off nothing would: τ then.
  return load.shedAtMs > -Infinity && !stale && (!!settings.maxEjectionMs || nowMs - load.shedAtMs < settings.decayMs);
}

/**
 * Keeps `load.shedAtMs` for a call that ended at `nowMs` with `outcome`
 * after `elapsedMs`: set by a shed call, cleared by the endpoint's word on a
 * call sent at or after it. A cancel or a lost hedge is no word.
 */
export function recordShed(load: EndpointLoad, outcome: CallOutcome, elapsedMs: number, nowMs: number): void {
  if (outcome === CallOutcome.SHED) {
    load.shedAtMs = nowMs;
  } else if (outcome !== CallOutcome.CANCELLED && outcome !== CallOutcome.OUTLASTED && nowMs - elapsedMs >= load.shedAtMs) {
    load.shedAtMs = -Infinity;
  }
}
