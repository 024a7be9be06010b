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
 * Who. An endpoint is a *joiner* when this balancer's first call to it
 * came both `JOINER_AFTER_FAIR_SHARES` fair shares of its calls (traffic.ts)
 * and one probe interval (`maxEjectionTime`, or τ with that off) after the
 * balancer's own first call: the rotation has offered every endpoint of the
 * fleet it began with a call by then, and the ones that were still
 * connecting have had time to connect.
 *
 * The rule, for `slowStartMs` W after the joiner's first call ends:
 *
 * - unless its calls are failing, it is not ejected for its latency, so
 *   its slow answers are no failed probes and nothing backs off, and the
 *   ejection budget does not rank it (errors and load shedding are judged
 *   as for any endpoint);
 * - where the rotation's gate would refuse it its turn for its mean, it
 *   takes the turn with weight (F / S)², S its mean or its estimate,
 *   whichever is higher, and F the fleet average, spaced evenly by a
 *   running credit: a pod twice as slow as its peers takes a quarter of
 *   those turns, one five times slower a twenty-fifth (a process
 *   restarted in place F / S: below), besides the probes
 *   any endpoint gets once stale, staleness.ts. No challenger takes
 *   such a turn: the margin would weigh the very cost the weight has
 *   already accounted for.
 *
 * Why squared, and why the higher of two. A slow joiner either warms with
 * the work or is broken (a bad node, a release that regressed), and the
 * client cannot tell which from one answer. A small share starts the warm-up
 * and grows as the square of the pod's speed; a broken pod's small share
 * costs little. Screened on s17 and s18 (s08's scale-out with five pods
 * 10 × slower for good): with F / M (M capped at 2 × the ejection line, so
 * a pod 10 × slower still took a third) and W 30 s, the broken scale-out's
 * p99 went 21.5 → 115 ms at 8 slots × 8 clients; with (F / S)² and W 10 s,
 * 23.1, while s17 kept its gain (51.3 → 30.0). The estimate is the higher
 * where M has nothing yet (calls that lost every hedge race, ejection.ts
 * `meanSignalMs`) or is capped.
 *
 * A window is set when it starts: a config update leaves running windows
 * their end, and `slowStartMs` 0 suspends them.
 *
 * A process restarted in its container (an OOM kill, a crash) keeps its
 * pod's IP: the endpoint this channel knew comes back cold. One that was
 * not READY for a probe interval or more, its connection refused meanwhile
 * (the policy's part: endpoint-picking-balancer.ts), is a joiner again from
 * its next call (`noteReturn`): its old state is the old process's. A
 * reconnect after a GOAWAY (`max_connection_age`) fails no connection and
 * takes milliseconds, and address-list churn is no restart: neither
 * changes anything, or a slow pod would be spared anew at each.
 *
 * Why linear for a process restarted in place. A newcomer may be broken,
 * and the square keeps a broken one's share small; a process restarted in
 * place ran on this address before, so its slowness is warm-up, and it
 * warms only by serving. It takes the refused turns with weight F / S, a
 * share in proportion to its speed (its share of the work, were its
 * capacity in proportion too). With gRPC's reconnect back-off a pod down
 * 3 s is found back after about 5 s (scripts/sim/reconnect.ts), so with a
 * pod restarting every 2 s about 2.6 are down at once; squared, the
 * restarted pods warmed on a few calls a second each while the rest of the
 * fleet ran out of slots: at 4 slots × 8 clients s19's p99 read 302 ms
 * (5 seeds), least_request's 92. Linear, 40 ms, and 29 against 54 at
 * 8 × 8; a newcomer's weight is unchanged (docs/tuning-log.md §60).
 *
 * After W the joiner is judged as any endpoint, so one that stays slow is
 * then ejected as before, and its back-off resumes where it would stand had
 * the window never been: the answers over the line it gave in a row in the
 * window count as failed probes with the first answer that ejects it after
 * (`slowAnswersCarried`). The window spares a joiner; it does not forget
 * what it said. Without that a joiner still slow at W began the back-off
 * afresh, probed after 1, 2, 4 × K fair shares by every client where one
 * judged all along was at 8 × K: at 4 slots × 64 clients five newcomers
 * 10 × slower for good (s18) got as many calls in the 14 s after their
 * windows as in the windows, and the p99 went 38 → 86 ms, against 42 with
 * the count carried, while pods that warm (s17) read as before
 * (docs/tuning-log.md §58). A joiner fast from its first call is never
 * refused for its mean, and nothing here touches it. Not a joiner: the
 * fleet a client begins with, which it judges at once as before.
 *
 * Unlike Envoy's slow start (`slow_start_config`: a new host's weight ramps
 * over a window by time alone), the weight here follows the pod's own
 * speed as this client measures it: a pod that warms fast gets its full
 * share as soon as its answers are typical.
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { probeIntervalMs } from './staleness';
import { BalancerTraffic } from './traffic';

/** Fair shares of the balancer's calls before an endpoint's first call that make it a joiner (with the time below). */
export const JOINER_AFTER_FAIR_SHARES = 2;

/** How long after the balancer's first call an endpoint's first call must come to make it a joiner: one probe interval. */
export function joinerAfterMs(settings: PeakEwmaSettings): number {
  return probeIntervalMs(settings);
}

/** Records, at `load`'s first call (`nowMs`), where the balancer's calls and time stood; the balancer's first call starts its clock. */
export function noteFirstCall(load: EndpointLoad, traffic: BalancerTraffic, nowMs: number): void {
  if (!Number.isNaN(load.firstCallAtShares)) {
    return;
  }
  // The balancer's first call is some endpoint's first: asked only here, off the common path.
  if (Number.isNaN(traffic.firstCallAtMs)) {
    traffic.firstCallAtMs = nowMs;
  }
  load.firstCallAtShares = traffic.sharesNow();
  load.firstCallAfterMs = nowMs - traffic.firstCallAtMs;
}

/**
 * `load` is READY again after `goneMs` away: after a probe interval or more
 * it is a joiner again, its next call its first (`noteFirstCall`) and the
 * end of that call the start of its window. Its estimate, mean and failure
 * count stay: a slow first answer is spared by the window as a new pod's
 * is, and errors are judged as ever. An endpoint never called is left to
 * its first call.
 */
export function noteReturn(load: EndpointLoad, goneMs: number, settings: PeakEwmaSettings): void {
  if (Number.isNaN(load.firstCallAtShares) || !(goneMs >= probeIntervalMs(settings))) {
    return;
  }
  load.firstCallAtShares = NaN;
  load.firstCallAfterMs = NaN;
  load.slowStartEndsMs = -Infinity;
  load.slowStartCredit = 0;
  load.slowStartSlowAnswers = 0;
  load.returned = true;
  load.restartedInPlace = true;
}

/**
 * Whether the call of `load` ending now is its first (whatever its outcome:
 * the window starts at the end of it): none has ended before, or it came
 * back (`noteReturn`) and a call started since. A call still out from before
 * it left that ends before any new one has started starts nothing; one that
 * ends after a new call started opens the window a little early.
 */
export function endsFirstCall(load: EndpointLoad): boolean {
  if (!load.hasSample) {
    load.returned = false;
    return true;
  }
  if (!load.returned || Number.isNaN(load.firstCallAtShares)) {
    return false;
  }
  load.returned = false;
  return true;
}

/** At the end of `load`'s first call (`nowMs`, once only): a joiner's slow start begins, for `slowStartMs`. */
export function startSlowStart(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): void {
  const windowMs = settings.slowStartMs;
  if (
    windowMs &&
    load.slowStartEndsMs === -Infinity &&
    load.firstCallAtShares >= JOINER_AFTER_FAIR_SHARES &&
    load.firstCallAfterMs >= joinerAfterMs(settings)
  ) {
    load.slowStartEndsMs = nowMs + windowMs;
  }
}

/** Whether `load` is in its slow start at `nowMs` (none once `slowStartMs` is off, even one already begun). */
export function inSlowStart(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): boolean {
  return !!settings.slowStartMs && nowMs < load.slowStartEndsMs;
}

/**
 * Records a call of `load` that ran out its deadline on it (`sparedEjection`
 * reads the time): one that ran at least R × F, not one whose deadline was
 * spent before the pick (a queued pick, a retry, a client stall).
 * `judgedMs`: the time in average calls, as F is (methods.ts).
 */
export function noteTimeout(load: EndpointLoad, outcome: CallOutcome, judgedMs: number, nowMs: number, settings: PeakEwmaSettings, fleet: FleetRtt): void {
  if (outcome === CallOutcome.DEADLINE_EXCEEDED && fleet.hasSample && judgedMs >= (settings.ejectionRatio ?? 0) * fleet.rttMs) {
    load.timedOutAtMs = nowMs;
  }
}

/**
 * Whether `load` is spared ejection for its latency now: in its slow start,
 * its calls not failing, and none run out its deadline within a probe
 * interval. A joiner whose calls time out is not warming up but drowning:
 * at two slots × 8 clients, pods restarted in place (s19) with a fleet short
 * of the pods still down tipped over, spared, in 5 % of calls (1.8 % judged
 * as any endpoint); not spared while they time out, 1.9 % (docs/tuning-log.md §59).
 */
export function sparedEjection(load: EndpointLoad, nowMs: number, settings: PeakEwmaSettings): boolean {
  // In slow start first: it rules out nearly every endpoint, and the ranking asks this of each.
  return inSlowStart(load, nowMs, settings) && load.consecutiveFailures === 0 && nowMs - load.timedOutAtMs >= probeIntervalMs(settings);
}

/**
 * Whether `load`, in its slow start and refused its turn by the gate for
 * its mean, takes the turn anyway: with weight (F / S)², S the higher of
 * its mean and `estimateMs` (F / S for a process restarted in place), by a
 * running credit.
 */
export function spendsTurnCredit(load: EndpointLoad, fleet: FleetRtt, estimateMs: number): boolean {
  const slowMs = Math.max(load.hasMean ? load.meanRttMs : 0, estimateMs);
  const speed = slowMs > 0 ? Math.min(1, fleet.rttMs / slowMs) : 1;
  load.slowStartCredit += load.restartedInPlace ? speed : speed * speed;
  if (load.slowStartCredit < 1) {
    return false;
  }
  load.slowStartCredit -= 1;
  return true;
}

/**
 * The failed probes `load`'s slow start kept from its back-off, handed over
 * now: its answers over the line in a row in the window (`overLine`: this
 * answer is over it; `windowOpen`: `inSlowStart` now), returned once, to the
 * first answer that ejects it after the window (an answer under the line, in
 * the window or after, ends the run). 0 for any other answer, and for an
 * endpoint that was never a joiner, which is most of them, at the cost of
 * one comparison.
 */
export function slowAnswersCarried(load: EndpointLoad, outcome: CallOutcome, overLine: boolean, windowOpen: boolean): number {
  // Deadlines, errors, lost hedges: neither over the line nor under it (mean.ts takes no failure).
  if (load.slowStartEndsMs === -Infinity || outcome !== CallOutcome.SUCCESS) {
    return 0;
  }
  const slowAnswers = load.slowStartSlowAnswers;
  if (windowOpen) {
    load.slowStartSlowAnswers = overLine ? slowAnswers + 1 : 0;
    return 0;
  }
  load.slowStartSlowAnswers = 0;
  return overLine ? slowAnswers : 0;
}
