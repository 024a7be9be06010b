/**
 * The rotation: who gets a call without a draw.
 *
 * Why. Two random draws compared on cost place calls like independent
 * arrivals whenever the costs carry no information, and at one or two calls
 * in service per backend (Node, Python, Ruby servers) or with many clients
 * they carry none: a client's own calls in flight are ~0 and its estimates
 * are a sample or two old. Independent arrivals queue at one slot: an
 * identical fleet of single-slot backends had twice round_robin's p99 (67
 * against 33 ms), where round_robin spaces each client's calls to a backend
 * n calls apart. So the balancer keeps a rotation, as round_robin does, and
 * the next endpoint in it — the incumbent — takes the call unless there is
 * something against it (docs/tuning-log.md §9, §14).
 *
 * The rule, for the incumbent I, with F the fleet average (fleet-rtt.ts),
 * M the moving average of I's answers (mean.ts) and T `maxEjectionTime`:
 *
 * 1. The gate (`rotationGate` g). I takes its turn only while it looks like
 *    a typical endpoint to this client:
 *        M ≤ g · F,  no call of this client in flight to I,
 *        its last call did not fail, and none failed within T.
 *    The mean, not the peak: a peak estimate sits above F after any tail
 *    sample, so gating on it turned the rotation off on healthy fleets
 *    (1 slot × 8 clients, identical: 60 against 33 ms). The call in flight:
 *    where a client has its own calls out (a busy client, 8 slots), the
 *    cost knows something, and the draw decides, as it always did. The
 *    failures: M leaves failures to the error penalty, so without them a
 *    backend failing 5 % of its calls or crash-looping would keep its turns.
 *    A stale endpoint (staleness.ts) takes its turn while no probe is out.
 * 2. The margin (`rotationMargin` m). An incumbent that passes the gate
 *    still loses the call to a random challenger that costs less than
 *    m × its cost (PowerOfChoices.chooseAgainst): a clearly cheaper
 *    endpoint wins, a slightly cheaper one does not break the spacing.
 *    An incumbent that passes the gate but is ejected (ejection.ts) leaves
 *    the call to the draw, as one the gate refuses.
 *
 * An incumbent that fails the gate is not skipped to the next in line (that
 * doubles the neighbour's turns: §9): the call goes to the draw among all
 * endpoints, the textbook power of two choices.
 */
import { meanSignalMs } from './ejection';
import { EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';
import { isNew, isProbing } from './new-endpoint';
import { PeakEwmaSettings } from './peak-ewma-settings';
import { Refusal } from './pick-paths';
import { failuresEndInAnError } from './probe-backoff';
import { isStale, probeIntervalMs } from './staleness';
import { BalancerTraffic } from './traffic';

/** Whether `settings` turn the rotation on: a gate or a margin. */
export function rotates(settings: PeakEwmaSettings): boolean {
  return !!settings.rotationGate || !!settings.rotationMargin;
}

/**
 * Why the gate refuses `load`, the next in the rotation, its turn at
 * `nowMs` (pick-paths.ts `Refusal`), or null when it takes it. A call of
 * this client in flight refuses it whenever there is a gate, and without
 * one while the endpoint is being probed (no answer yet, or stale: its
 * cost is the probe penalty, new-endpoint.ts). Otherwise null without a
 * gate, and while there is nothing to judge against (no answer from it
 * yet, or only the balancer's provisional first: first-answer.ts; or no
 * fleet average).
 *
 * Why the probe is refused before anything is judged: the margin weighs
 * the probe penalty as if it were a cost, so a new endpoint with its probe
 * out kept its turn whenever the challengers drawn were ejected or cost
 * more than m × the penalty, and every turn with no margin: a cold pod
 * joining a fleet of five with two pods ejected got 2–3 calls of a 20-call
 * burst where the probe rule promises one (test/core/incumbent.test.ts).
 */
export function refusalOf(
  load: EndpointLoad,
  nowMs: number,
  settings: PeakEwmaSettings,
  fleet: FleetRtt,
  traffic?: BalancerTraffic,
): Refusal | null {
  const gate = settings.rotationGate;
  if (load.committed > 0 && (!!gate || isProbing(load, isStale(load, nowMs, settings, fleet, traffic)))) {
    return Refusal.inFlight;
  }
  if (!gate || isNew(load) || !fleet.hasSample) {
    return null;
  }
  // A failure keeps it out of the rotation for a probe interval.
  const failedLately = !(nowMs - load.failedAtMs >= probeIntervalMs(settings));
  const typical = load.consecutiveFailures === 0 && !failedLately && meanSignalMs(load, load.rttMs) <= gate * fleet.rttMs;
  // A stale endpoint takes its turn as its probe; asked only when the
  // stored state says no, so a typical incumbent (most picks) skips it.
  if (typical || isStale(load, nowMs, settings, fleet, traffic)) {
    return null;
  }
  // Refused: only now say why. Failures in a row that end in a slow answer
  // that left it ejected (probe-backoff.ts) are its mean's doing.
  return failedLately || failuresEndInAnError(load) ? Refusal.failure : Refusal.mean;
}
