/**
 * The balancer's first answer is provisional. Until the endpoint that gave
 * it answers again, that endpoint is priced and probed as one that has
 * never answered (new-endpoint.ts: free while idle, one call at a time),
 * the gate does not refuse it for its mean, and it is not ejected. Its
 * second answer settles it: E and M start from the lesser of the two
 * (`settledFirstMs`), as a first answer replaces the prior.
 *
 * Why. A channel's first call pays for the client's own warm-up (grpc-js's
 * call path compiled, the first stream), and until 2026-12-06 the answer
 * counted as a full window of M (mean.ts `meanSamplesAfter`). Over real
 * gRPC a client sending calls one after another to four identical 2 ms
 * backends found its first call 28–139 ms, and the backend that served it
 * got 1 of the next 200 calls: out until its probe, after `maxEjectionTime`
 * and 10 fair shares of the client's calls, which for a light client is
 * minutes (a cold trial of the package, 2026-12-06; docs/tuning-log.md
 * §54). Every new channel's first call does this, and the simulator, whose
 * first answers are as typical as any, could not see it.
 *
 * Only the balancer's first: a new endpoint's first answer, slowed by its
 * own warm-up (a server just started by a rolling update), is judged as
 * before. Made provisional too whenever it was over the gate's line, it
 * cost the simulator's 1 × 64 uneven fleet 7.2 ms of p99 [5.7, 8.8] over 30
 * paired seeds: there the slow pods are slow from their first answer, and
 * 64 light clients each gave every one of them a second call. A warm-up
 * the server pays is a trade-off between those two; the client's own is
 * not (§54).
 *
 * Off where M is not kept (no gate and no mean signal: the textbook rule,
 * in which the first answer replaces the prior and is judged as any).
 */
import { CallOutcome, EndpointLoad } from './endpoint-load';
import { FleetRtt } from './fleet-rtt';

/**
 * Whether the first sample of an endpoint, from a call that ended with
 * `outcome`, is provisional: an answer that is the balancer's first (no
 * fleet average yet), while M is kept (mean.ts `keepsMean`).
 */
export function opensProvisionally(outcome: CallOutcome, meanKept: boolean, fleet: FleetRtt): boolean {
  return outcome === CallOutcome.SUCCESS && meanKept && !fleet.hasSample;
}

/**
 * Whether a sample from a call that ended with `outcome` ends a provisional
 * first answer instead of settling it: anything but an answer (a failure,
 * a shed call, a lost hedge, a deadline) is evidence of its own, judged
 * against the first answer as against any estimate; a cancel, the client's
 * own decision, is none and leaves it. Any outcome ends it once M is no
 * longer kept (new settings).
 */
export function endsProvisional(outcome: CallOutcome, meanKept: boolean): boolean {
  return (outcome !== CallOutcome.SUCCESS && outcome !== CallOutcome.CANCELLED) || !meanKept;
}

/**
 * Ends `load`'s provisional first answer (`endsProvisional`): E stays the
 * first answer, for the sample to be judged against (a failure never
 * lowers it, a deadline under it is no news), and M forgets it, so that
 * the next answer or deadline starts it; read before then, M is no mean
 * (`hasMean`), not the first answer.
 */
export function endProvisional(load: EndpointLoad): void {
  load.provisional = false;
  load.meanSamples = 0;
  load.meanRttMs = 0;
}

/**
 * E or M once the endpoint's second answer `secondMs` settles its
 * provisional first answer `firstMs`: the lesser of the two.
 *
 * Why the lesser, not the second alone: the warm-up slows the first
 * answer, and the second often meets the queue of a fleet whose clients
 * have all just started. Taken alone (measured with every endpoint's first
 * answer provisional, a variant not kept), the second answer ejected more
 * pods at start-up than the first had: with 64 clients of one-slot backends
 * (the simulator's 1 × 64 identical fleet) those ejections and their probe
 * back-offs left the fleet's shares uneven (0.87–1.13 of fair) for 30 s,
 * and p99 rose 0.41 ms [0.25, 0.58] over 30 paired seeds (with the lesser,
 * −0.27). A pod slow on both answers is slow on the lesser.
 */
export function settledFirstMs(firstMs: number, secondMs: number): number {
  return firstMs < secondMs ? firstMs : secondMs;
}
