/**
 * A deadline leaves the failures in a row as they were (probe-backoff.ts):
 * after two errors the probe interval is K·2^2 = 40 fair shares, and the gate
 * refuses the endpoint for its failures. Until 2026-12-05 "the run ends in an
 * error" was read off the timestamps, so a deadline after the errors (not
 * a failure) halved the interval and relabelled the refusal as
 * the mean's. `EndpointLoad.lastFailureWasError` keeps it.
 *
 * Nor does a deadline count as an answer that leaves the endpoint ejected by
 * its mean (mean.ts `recordMeanSample`): only a success is a failed probe so.
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, Refusal, seededRandom } from '../../src/core';
import { isStale } from '../../src/core/staleness';
import { probeFairSharesOf } from '../../src/core/probe-backoff';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

// Defaults (K 10, cap 8, T 1 s) but for slow start: c's first call comes after 10 fair
// shares of a's, so it would be a joiner (slow-start.ts), which is never ejected for its latency.
const settings = { ...new PeakEwmaLoadBalancingConfig().settings, slowStartMs: 0 };

/** Two endpoints under the defaults; `a` has answered 10 ms twenty times. */
function twoEndpoints() {
  const clock = new ManualClock(1_000);
  const model = new PeakEwmaModel(settings);
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
  const [a, c] = [new EndpointLoad(), new EndpointLoad()];
  const call = (load: EndpointLoad, ms: number, outcome = CallOutcome.SUCCESS) => {
    const start = engine.callStarted(load);
    clock.advance(ms);
    engine.callEnded(load, outcome, start);
  };
  engine.pick([a, c]);
  for (let i = 0; i < 20; i++) call(a, 10);
  return { clock, model, a, c, call };
}

function run(withDeadline: boolean, calls = 60, eachMs = 20) {
  const { clock, model, a, c, call } = twoEndpoints();
  call(c, 10);
  call(c, 1, CallOutcome.FAILURE);
  call(c, 1, CallOutcome.FAILURE);
  if (withDeadline) {
    call(c, 20, CallOutcome.DEADLINE_EXCEEDED); // counts no failure: the count stays 2
  }
  const countAfter = c.consecutiveFailures;
  const interval = probeFairSharesOf(c, settings);
  // 60 calls (30 fair shares of 2 endpoints) over 1.2 s: past T, under K·2^2 = 40 fair shares
  for (let i = 0; i < calls; i++) call(a, eachMs);
  return { countAfter, interval, stale: isStale(c, clock.now(), settings, model.fleet, model.traffic), refusal: model.refusalOf(c, clock.now()), mean: c.meanRttMs };
}

describe('a deadline after errors', () => {
  it('leaves the failures in a row and their probe interval as they were', () => {
    const errorsOnly = run(false);
    const thenDeadline = run(true);
    expect(errorsOnly.countAfter).toBe(2);
    expect(thenDeadline.countAfter).toBe(2); // the count is left, as documented
    expect(errorsOnly.interval).toBe(40); // K·2^j, j = 2, the last an error
    expect(errorsOnly.stale).toBe(false);
    expect(thenDeadline.interval).toBe(40); // the last of the 2 failures is still an error
    expect(thenDeadline.stale).toBe(false);
  });

  it('is still refused as a failure (its failures in a row end in an error)', () => {
    // 30 calls over 1.2 s: past T (no failure within it), 15 fair shares: not stale either way
    const thenDeadline = run(true, 30, 40);
    expect(thenDeadline.stale).toBe(false);
    expect(run(false, 30, 40).refusal).toBe(Refusal.failure);
    expect(thenDeadline.mean).toBeLessThan(1.45 * 10);
    // The errors' doing, not its mean's: M = 10 ms, under the gate 1.45 × F (the 20 ms deadline is
    // below the estimate the errors left and, a lower bound, teaches nothing; until 2026-12-06 it
    // was a sample and M read 11.25).
    expect(thenDeadline.refusal).toBe(Refusal.failure);
  });
});

describe('a deadline that leaves the endpoint ejected by its mean', () => {
  it('raises no failure count, where an answer that leaves it ejected raises it by one', () => {
    const { clock, model, c, call } = twoEndpoints();
    for (let i = 0; i < 8; i++) call(c, 16);
    // M = 16 ms, under the line 1.5 × F (F ≈ 11.8 ms): in.
    expect(model.ejected(c, clock.now())).toBe(false);
    call(c, 100, CallOutcome.DEADLINE_EXCEEDED);
    // The deadline's sample moves M to ≈ 18.4 ms, over the line ≈ 17.7 ms: out, and still no failure.
    expect(c.meanRttMs).toBeGreaterThan(model.ejectionLineMs!);
    expect(model.ejected(c, clock.now())).toBe(true);
    expect(c.consecutiveFailures).toBe(0);
    // An answer that leaves it ejected is a failed probe: the count is 1.
    call(c, 16);
    expect(model.ejected(c, clock.now())).toBe(true);
    expect(c.consecutiveFailures).toBe(1);
  });
});
