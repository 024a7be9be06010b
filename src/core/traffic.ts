/**
 * What this balancer has sent: the clock the probe interval and the memory
 * count in (`probeFairShares`, `decayFairShares`): fair shares of its calls,
 * a fair share being 1/n of them with n endpoints READY. The engine keeps
 * it: `pick` records how many endpoints were READY, `callStarted` counts
 * the call. Pure state, like `FleetRtt`: reading it changes nothing.
 *
 * Why shares are summed as they pass, not worked out from the calls since
 * a sample with today's n: n changes (a pod restarts, a fleet scales) and
 * the calls sent before the change were shares of the old n. Divided by
 * the new n, 18 endpoints turning READY made an estimate 1.5 s old with no
 * sample since count as ten times fresher: it climbed back toward its old
 * peak and an endpoint due for a probe was ejected again. Within a run of
 * one n the shares are the calls ÷ n, worked out as before.
 */
import type { EndpointLoad } from './endpoint-load';
import { SharedRecovery } from './shared-recovery';

export class BalancerTraffic {
  /** Calls this balancer started, over its lifetime. */
  callsStarted = 0;
  /** When its first call started (monotonic ms; NaN before): the clock of who joined later (slow-start.ts). */
  firstCallAtMs = NaN;
  /** Its endpoints' latest return from a fault shared with others (shared-recovery.ts). */
  readonly recovery = new SharedRecovery();
  private ready = 0;
  /** `callsStarted` when `readyEndpoints` last changed. */
  private callsAtReadyChange = 0;
  /** Fair shares (calls ÷ the n they were sent among) started before `callsAtReadyChange`. */
  private sharesAtReadyChange = 0;

  /** READY endpoints at the last pick: each gets a fair share of 1 / this of the calls. */
  get readyEndpoints(): number {
    return this.ready;
  }

  /** Records the READY count of a pick. */
  setReadyEndpoints(count: number): void {
    if (count === this.ready) {
      return;
    }
    this.sharesAtReadyChange = this.sharesNow();
    this.callsAtReadyChange = this.callsStarted;
    this.ready = count;
  }

  /** Fair shares of this balancer's calls started over its lifetime: what an endpoint's sample records. */
  sharesNow(): number {
    // Calls sent while nothing was READY (only a test can) are no endpoint's shares.
    const sinceChange = this.ready > 0 ? this.callsStarted - this.callsAtReadyChange : 0;
    return this.sharesAtReadyChange + sinceChange / Math.max(1, this.ready);
  }

  /** Stamps `load`'s sample with where this balancer's calls and shares stand now, for `sharesSince`, and the returns it has seen. */
  stampSample(load: EndpointLoad): void {
    load.sampledAtCall = this.callsStarted;
    load.sampledAtShares = this.sharesNow();
    this.recovery.seenBy(load);
  }

  /**
   * Fair shares started since `load`'s last sample (`stampSample`), divided
   * by `per`: in the current run of one READY count, the calls since ÷
   * (per · n), exactly as this was computed before shares were summed (so
   * a fleet whose READY count holds still decides bit for bit as before);
   * across a change, the shares summed since. Infinity while no endpoint is
   * READY (every share is then overdue), and for a stamp ahead of this
   * balancer's count: another's, over the same endpoints (a model replaced),
   * which says nothing here. Negative, it made memory.ts's retained share
   * exceed 1 and an estimate below the fleet's go far below zero.
   */
  sharesSince(load: EndpointLoad, per = 1): number {
    if (this.ready === 0) {
      return Infinity;
    }
    const shares =
      load.sampledAtCall >= this.callsAtReadyChange
        ? (this.callsStarted - load.sampledAtCall) / (per * this.ready)
        : (this.sharesNow() - load.sampledAtShares) / per;
    return shares >= 0 ? shares : Infinity;
  }
}
