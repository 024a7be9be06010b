/**
 * One answer far outside the fleet's does not move the fleet average F by
 * more than FLEET_SAMPLE_CAP times F weighs (src/core/fleet-rtt.ts). Before
 * the cap, a call stuck for 30 s on a channel of 5 ms calls lifted F from 5
 * to about 80 ms, and with it the ejection line and the rotation's gate:
 * a pod that turned 10 × slower then kept its rotation turns for a while,
 * four times the calls it gets otherwise (a cold review, 2026-12-07;
 * docs/tuning-log.md §62, §64).
 */
import { CallOutcome, EndpointLoad, FleetRtt, LoadBalancingEngine, ManualClock, PeakEwmaModel, seededRandom } from '../../src/core';
import { FLEET_SAMPLE_CAP } from '../../src/core/fleet-rtt';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

describe('FleetRtt: one sample counts at most FLEET_SAMPLE_CAP times the average', () => {
  it('takes a sample above 256 × F as 256 × F, and every sample below it as it is', () => {
    const steady = () => {
      const fleet = new FleetRtt();
      for (let t = 0; t <= 40_000; t += 5) fleet.record(5, t, 2_000); // W settled at ≈ 400 calls, F = 5 ms
      return fleet;
    };
    expect(FLEET_SAMPLE_CAP).toBe(256);
    const [stuck, atCap, under] = [steady(), steady(), steady()];
    const W = 1 / (1 - Math.exp(-5 / 2_000)); // the settled count at one call per 5 ms
    stuck.record(30_000, 40_005, 2_000);
    atCap.record(256 * 5, 40_005, 2_000);
    under.record(1_200, 40_005, 2_000);
    expect(stuck.rttMs).toBeCloseTo(atCap.rttMs, 9); // a 30 s answer moves F as a 1.28 s one does
    expect(stuck.rttMs).toBeCloseTo(5 + (1_280 - 5) / W, 2); // about 8.2 ms (it was 5 + 29,995 / W: about 80)
    expect(under.rttMs).toBeCloseTo(5 + (1_200 - 5) / W, 2);
  });
});

describe('a stuck call does not open the gate to a slow pod', () => {
  /**
   * 20 endpoints answering in 5 ms, one call at a time. If `stuckMs`, a
   * call on endpoint 1 is started and ends after that long of traffic.
   * Then endpoint 0 turns 10 × slower (50 ms): how many of the next 2,000
   * calls it gets.
   */
  function slowPodCallsAfter(stuckMs: number | null): number {
    const clock = new ManualClock(1_000);
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel({ ...PEAK_EWMA_DEFAULTS }), choiceCount: 2, clock: clock.now, random: seededRandom(3) });
    const loads = Array.from({ length: 20 }, () => new EndpointLoad());
    let slowFromMs = Infinity;
    const call = (): number => {
      const i = engine.pick(loads);
      const started = engine.callStarted(loads[i]);
      clock.advance(i === 0 && clock.now() >= slowFromMs ? 50 : 5);
      engine.callEnded(loads[i], CallOutcome.SUCCESS, started);
      return i;
    };
    for (let k = 0; k < 4_000; k++) call();
    if (stuckMs !== null) {
      const started = engine.callStarted(loads[1]);
      const until = clock.now() + stuckMs;
      while (clock.now() < until) call();
      engine.callEnded(loads[1], CallOutcome.SUCCESS, started);
    }
    slowFromMs = clock.now();
    let slow = 0;
    for (let k = 0; k < 2_000; k++) if (call() === 0) slow++;
    return slow;
  }

  it('gives a pod that turns 10 × slower what it gets without the stuck call (5 of 2,000; before the cap, 22)', () => {
    const without = slowPodCallsAfter(null);
    const withStuck = slowPodCallsAfter(30_000);
    expect(without).toBeLessThanOrEqual(10);
    expect(withStuck).toBeLessThanOrEqual(without + 3);
  });
});
