/**
 * What this balancer has sent: the clock the probe interval counts in
 * (`PeakEwmaSettings.probeFairShares`). The engine keeps it: `pick` records
 * how many endpoints were READY, `callStarted` counts the call. Pure state,
 * like `FleetRtt`: reading it changes nothing.
 */
export class BalancerTraffic {
  /** Calls this balancer started, over its lifetime. */
  callsStarted = 0;
  /** READY endpoints at the last pick: each gets a fair share of 1 / this of the calls. */
  readyEndpoints = 0;
}
