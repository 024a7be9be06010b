/**
 * lr_od's outlier detection (scripts/sim/outlier-detection.ts, gRFC A50 as
 * grpc-js runs it) on a small virtual-time model: ten pods behind
 * round_robin, one client sending calls that end at once, each pod failing
 * a fixed share of its calls in a fixed pattern. With the reference's
 * settings (REFERENCE_OUTLIER_DETECTION: checks every 10 s; ejection 30 s ×
 * the multiplier, at most 300 s; at most 20 % of the pods ejected;
 * failure percentage > 50 % over ≥ 50 calls, success rate below
 * mean − 1.9 σ over ≥ 100 calls, each with ≥ 5 such pods), every number
 * below is worked out from those rules by hand.
 *
 * Then the simulator: a crash-looping pod (s04), which least_request keeps
 * feeding (a fast failure leaves no call outstanding), is ejected by lr_od.
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { seededRandom } from '../../src/core/random';
import { VirtualScheduler } from '../../scripts/model/virtual-scheduler';
import { executeRun } from '../../scripts/sim/execute';
import { OutlierDetectionPolicy, OutlierDetectionSettings, REFERENCE_OUTLIER_DETECTION } from '../../scripts/sim/outlier-detection';
import { RoundRobinPolicy } from '../../scripts/sim/round-robin';
import { Timeline } from '../../scripts/sim/timeline';

const PODS = 10;
const INTERVAL_MS = 10_000;

/** Whether a pod's n-th call (from 0) fails: `failing[pod]` of every 10, the first ones of each ten. */
type Failing = readonly number[];

class Model {
  readonly scheduler = new VirtualScheduler();
  readonly od: OutlierDetectionPolicy;
  /** Calls sent to each pod so far. */
  readonly sent = new Array<number>(PODS).fill(0);
  /** Which pods were ejected just after each check (index k: the check at (k + 1) × 10 s). */
  readonly ejectedAfterCheck: number[][] = [];

  constructor(
    private failing: Failing,
    settings: OutlierDetectionSettings = REFERENCE_OUTLIER_DETECTION,
  ) {
    this.od = new OutlierDetectionPolicy(new RoundRobinPolicy(seededRandom(1)), this.scheduler, seededRandom(2), settings);
    this.od.setReady(Array.from({ length: PODS }, (_, id) => id));
  }

  setFailing(failing: Failing): void {
    this.failing = failing;
  }

  /** `calls` calls over the interval [k × 10 s, (k + 1) × 10 s), evenly, none at a check's instant. */
  load(k: number, calls: number): void {
    const gapMs = INTERVAL_MS / calls;
    for (let i = 0; i < calls; i++) {
      this.scheduler.schedule(k * INTERVAL_MS + (i + 0.5) * gapMs, this.send);
    }
  }

  /** `calls` more calls to `pod` over interval k, as if the child had picked it (a client's other calls, say). */
  loadTo(k: number, pod: number, calls: number): void {
    const gapMs = INTERVAL_MS / calls;
    for (let i = 0; i < calls; i++) {
      this.scheduler.schedule(k * INTERVAL_MS + (i + 0.25) * gapMs, () => this.call(pod));
    }
  }

  /** Runs `intervals` intervals of `callsPerInterval` calls each, recording the ejected pods after each check. */
  run(intervals: number, callsPerInterval: number | ((k: number) => number)): void {
    const from = this.ejectedAfterCheck.length;
    for (let k = from; k < from + intervals; k++) {
      this.load(k, typeof callsPerInterval === 'number' ? callsPerInterval : callsPerInterval(k));
      // Just after the check at the interval's end (the check runs at that instant).
      this.scheduler.schedule((k + 1) * INTERVAL_MS + 1, () => this.ejectedAfterCheck.push(this.ejected()));
    }
    this.scheduler.runUntil((from + intervals) * INTERVAL_MS + 2);
  }

  ejected(): number[] {
    return Array.from({ length: PODS }, (_, id) => id).filter((id) => this.od.isEjected(id));
  }

  private readonly send = (): void => this.call(this.od.pick(0));

  private call(pod: number): void {
    const token = this.od.started(pod, 0);
    const n = this.sent[pod]++;
    const ok = n % 10 >= this.failing[pod];
    this.od.ended(pod, ok ? CallOutcome.SUCCESS : CallOutcome.FAILURE, ok, token);
  }
}

/** Pod 0 fails `tenths` of its calls, the rest none. */
const podZeroFailing = (tenths: number): Failing => [tenths, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const failurePercentageOnly: OutlierDetectionSettings = { ...REFERENCE_OUTLIER_DETECTION, successRate: null };
const successRateOnly: OutlierDetectionSettings = { ...REFERENCE_OUTLIER_DETECTION, failurePercentage: null };

describe('outlier detection (gRFC A50, the reference settings)', () => {
  it('ejects a pod failing 60 % of calls at the first check where every pod had the minimum 50 calls, not before', () => {
    // 490 calls in the first 10 s: 49 per pod, under failure_percentage's request_volume (50) and
    // success_rate's (100), so neither check runs; 500 in the next: 50 per pod, and 60 % > 50 %.
    const model = new Model(podZeroFailing(6));
    model.run(2, (k) => (k === 0 ? 490 : 500));
    expect(model.sent).toEqual([99, 99, 99, 99, 99, 99, 99, 99, 99, 99]);
    expect(model.ejectedAfterCheck).toEqual([[], [0]]);
    expect(model.od.ejections).toBe(1);
  });

  it('judges only the pods with the minimum calls, even when enough others have them for the check to run', () => {
    // 49 calls per pod by round_robin, and 10 more to each of pods 1–9: nine pods at 59 ≥ 50 run the
    // failure-percentage check, but pod 0, at 49 (60 % failed), is skipped; at 50 the next check ejects it.
    const model = new Model(podZeroFailing(6));
    for (let pod = 1; pod < PODS; pod++) model.loadTo(0, pod, 10);
    model.run(2, (k) => (k === 0 ? 490 : 500));
    expect(model.sent).toEqual([99, 109, 109, 109, 109, 109, 109, 109, 109, 109]);
    expect(model.ejectedAfterCheck).toEqual([[], [0]]);
  });

  it('runs a check only when at least 5 pods had the minimum calls: 4 are not enough', () => {
    // 49 calls per pod by round_robin and one more to each of the first `pods`: those reach 50.
    const ejectedWith = (pods: number) => {
      const model = new Model(podZeroFailing(6));
      for (let pod = 0; pod < pods; pod++) model.loadTo(0, pod, 1);
      model.run(1, 490);
      return model.ejectedAfterCheck[0];
    };
    expect(ejectedWith(4)).toEqual([]);
    expect(ejectedWith(5)).toEqual([0]);
  });

  it('success rate: ejects at 100 calls a pod, not at 99, below mean − 1.9 σ (pod 0 at 0.4, nine at 1: threshold 0.598)', () => {
    // mean = (0.4 + 9) / 10 = 0.94; σ = √((0.54² + 9 · 0.06²) / 10) = 0.18; 0.94 − 1.9 · 0.18 = 0.598 > 0.4.
    const model = new Model(podZeroFailing(6), successRateOnly);
    model.run(2, (k) => (k === 0 ? 990 : 1_000));
    expect(model.ejectedAfterCheck).toEqual([[], [0]]);
  });

  it('failure percentage: ejects a pod over 50 % and keeps one at exactly 50 %', () => {
    const atHalf = new Model(podZeroFailing(5), failurePercentageOnly);
    atHalf.run(3, 1_000);
    expect(atHalf.ejectedAfterCheck).toEqual([[], [], []]);
    const over = new Model(podZeroFailing(6), failurePercentageOnly);
    over.run(1, 1_000);
    expect(over.ejectedAfterCheck).toEqual([[0]]);
  });

  it('sends an ejected pod nothing and returns it at the first check 30 s × the multiplier after its ejection: 30 s, then 60 s', () => {
    // One check (failure percentage) so that one ejection bumps the multiplier once.
    const model = new Model(podZeroFailing(6), failurePercentageOnly);
    model.run(1, 1_000);
    expect(model.ejectedAfterCheck).toEqual([[0]]); // ejected at 10 s, multiplier 1
    const sentBefore = model.sent[0];
    model.run(3, 900);
    // 10 + 30 = 40 s is a check: back at 40 s; meanwhile round_robin spread 2,700 calls over the other nine.
    expect(model.ejectedAfterCheck).toEqual([[0], [0], [0], []]);
    expect(model.sent[0]).toBe(sentBefore);
    expect(model.sent.slice(1)).toEqual(new Array(9).fill(100 + 300));
    // Still failing 60 %: ejected again at 50 s with multiplier 2 (it did not fall while ejected), so back at 50 + 60 = 110 s.
    model.run(7, 1_000);
    expect(model.ejectedAfterCheck.slice(4)).toEqual([[0], [0], [0], [0], [0], [0], []]);
    expect(model.od.ejections).toBe(2);
  });

  it('a pod that recovers stays back, its multiplier falling by one per check out, so a later ejection lasts 30 s again', () => {
    const model = new Model(podZeroFailing(6), failurePercentageOnly);
    model.run(1, 1_000);
    model.setFailing(podZeroFailing(0));
    model.run(9, 1_000);
    // Ejected at 10 s, back at 40 s, never again.
    expect(model.ejectedAfterCheck).toEqual([[0], [0], [0], [], [], [], [], [], [], []]);
    // Failing again from 100 s: the multiplier fell from 1 to 0 at 50 s, so ejected at 110 s for 30 s (back at 140 s, not 170 s).
    model.setFailing(podZeroFailing(6));
    model.run(4, 1_000);
    expect(model.ejectedAfterCheck.slice(10)).toEqual([[0], [0], [0], []]);
    expect(model.od.ejections).toBe(2);
  });

  it('with both checks flagging a pod (the reference settings, 100 calls a pod), both eject it in one pass, as grpc-js does: multiplier 2, out 60 s', () => {
    const model = new Model(podZeroFailing(6));
    model.run(7, 1_000);
    expect(model.ejectedAfterCheck).toEqual([[0], [0], [0], [0], [0], [0], []]);
    expect(model.od.ejections).toBe(2);
  });

  it('ejects at most 20 % of the pods: 2 of 4 failing, the first in the address list, and no more while they are out', () => {
    // Four pods at 60 %: success rate does not flag them (mean 0.76, σ 0.294, threshold 0.20 < 0.4),
    // failure percentage flags all four, and the cap stops the pass at 2 of 10.
    const model = new Model([6, 0, 6, 0, 6, 0, 6, 0, 0, 0]);
    model.run(5, 1_000);
    // Out at 10 s; at 20 s and 30 s the cap is reached before any pod is looked at; at 40 s the checks
    // (cap still reached) run before 0 and 2 come back; at 50 s the pass starts over from pod 0.
    expect(model.ejectedAfterCheck).toEqual([[0, 2], [0, 2], [0, 2], [], [0, 2]]);
    expect(model.od.ejections).toBe(4);
  });

  it('ejects nothing from a healthy fleet, nor from one where every pod fails alike (10 %: σ 0)', () => {
    const healthy = new Model(new Array<number>(PODS).fill(0));
    healthy.run(10, 2_000);
    const alike = new Model(new Array<number>(PODS).fill(1));
    alike.run(10, 2_000);
    for (const model of [healthy, alike]) {
      expect(model.ejectedAfterCheck).toEqual(new Array(10).fill([]));
      expect(model.od.ejections).toBe(0);
      expect(model.sent).toEqual(new Array(PODS).fill(2_000));
    }
  });
});

describe('lr_od in the simulator', () => {
  // 5 s warm-up + 30 s; pod 0 crash-loops from 12 s to 32 s of virtual time (7–27 s of the measured window).
  const timeline: Timeline = { warmupMs: 5_000, measureS: 30, faultStartS: 7, faultEndS: 27 };
  const run = (policy: string) => executeRun({ scenario: 's04-crashloop', groups: [{ policy, clients: 8 }], seed: 1, timeline }).groups[0];

  it('s04 crash loop: least_request feeds the dead pod, lr_od ejects it at the first check that sees it fail and fails under half as many calls', () => {
    const leastRequest = run('least_request');
    const withOd = run('lr_od');
    const podZero = (result: typeof withOd) => result.shareBySecond.map((second) => second[0]);
    // Its failures end at once, so least_request sees it idle and sends it more than round_robin's 1/20.
    expect(leastRequest.errorRate).toBeGreaterThan(0.05);
    // The checks run at 10, 20, 30 s of virtual time; the one at 20 s (second 15 of the window) is the first to see
    // 8 s of failures, and ejects it for 60 s (both checks flag it: multiplier 2), past the run's end.
    // Until then lr_od is least_request, call for call; from then on pod 0 gets nothing.
    expect(podZero(withOd).slice(0, 15)).toEqual(podZero(leastRequest).slice(0, 15));
    expect(podZero(withOd).slice(15)).toEqual(new Array(15).fill(0));
    expect(podZero(leastRequest).slice(15, 27).every((share) => share > 0.05)).toBe(true);
    // So lr_od fails calls over 12–20 s of the 20 s fault: 8/20 = 0.4 of least_request's failures, give or take the load.
    expect(withOd.errorRate / leastRequest.errorRate).toBeGreaterThan(0.35);
    expect(withOd.errorRate / leastRequest.errorRate).toBeLessThan(0.45);
  });
});
