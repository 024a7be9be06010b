/**
 * The rotation (src/core/rotation.ts): the next endpoint in a per-balancer
 * rotation takes the call while it looks typical to this client — its mean
 * answer M at most g × the fleet average F, no call of this client in flight
 * to it, no failure in its last call nor within T — and otherwise the call
 * goes to the draw. A stale endpoint takes its turn as a probe. On by
 * default (g 1.45 with the margin 0.2: docs/tuning-log.md §14, §24, §25).
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';
import { PICK_PATH_NAMES, PickCounts, PickPath } from '../../src/core/pick-paths';
import { refusalOf, rotates } from '../../src/core/rotation';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

/** Whether the gate lets `load` take its turn: it gives no reason to refuse it. */
const takesTurn = (...args: Parameters<typeof refusalOf>): boolean => refusalOf(...args) === null;

const DEFAULTS: PeakEwmaSettings = { ...PEAK_EWMA_DEFAULTS };
/** The gate alone: no margin, so an incumbent that passes keeps its turn outright. */
const GATE_ONLY: PeakEwmaSettings = { ...DEFAULTS, rotationMargin: 0 };
const OFF: PeakEwmaSettings = { ...DEFAULTS, rotationGate: 0, rotationMargin: 0 };

/** A model whose fleet average is 10 ms, and an endpoint that has answered `meanMs` on average. */
function fleetAnd(settings: PeakEwmaSettings, meanMs: number): { model: PeakEwmaModel; load: EndpointLoad } {
  const model = new PeakEwmaModel(settings);
  model.fleet.record(10, 0, settings.decayMs);
  const load = Object.assign(new EndpointLoad(), { hasSample: true, rttMs: meanMs, meanRttMs: meanMs, meanSamples: 8, sampledAtMs: 0 });
  return { model, load };
}

describe('the gate', () => {
  it('is on with a gate or a margin, off with neither', () => {
    expect(rotates(DEFAULTS)).toBe(true);
    expect(rotates(GATE_ONLY)).toBe(true);
    expect(rotates({ ...DEFAULTS, rotationGate: 0 })).toBe(true);
    expect(rotates(OFF)).toBe(false);
  });

  it('lets a typical endpoint take its turn: mean at most g × F', () => {
    const typical = fleetAnd(DEFAULTS, 14.5);
    expect(takesTurn(typical.load, 1, DEFAULTS, typical.model.fleet)).toBe(true);
    const slow = fleetAnd(DEFAULTS, 14.6);
    expect(takesTurn(slow.load, 1, DEFAULTS, slow.model.fleet)).toBe(false);
  });

  it('not while a call of this client is in flight to it: then the draw, which sees that call, decides', () => {
    const { model, load } = fleetAnd(DEFAULTS, 10);
    load.outstanding = 1;
    expect(takesTurn(load, 1, DEFAULTS, model.fleet)).toBe(false);
  });

  it('not after a failure: its last call failed, or one failed within maxEjectionTime', () => {
    const { model, load } = fleetAnd(DEFAULTS, 10);
    load.consecutiveFailures = 1;
    expect(takesTurn(load, 1, DEFAULTS, model.fleet)).toBe(false);
    // A success since (its last sample, not stale), but the failure was 0.5 s ago (T = 1 s).
    load.consecutiveFailures = 0;
    load.failedAtMs = 500;
    load.sampledAtMs = 900;
    expect(takesTurn(load, 1_000, DEFAULTS, model.fleet)).toBe(false);
    expect(takesTurn(load, 1_500, DEFAULTS, model.fleet)).toBe(true);
  });

  it('a stale endpoint takes its turn while no probe is out, whatever it did before', () => {
    const { model, load } = fleetAnd(DEFAULTS, 50);
    load.consecutiveFailures = 3;
    // No traffic counted: stale after maxEjectionTime alone.
    const staleAt = PEAK_EWMA_DEFAULTS.maxEjectionMs;
    expect(takesTurn(load, staleAt - 1, DEFAULTS, model.fleet)).toBe(false);
    expect(takesTurn(load, staleAt, DEFAULTS, model.fleet)).toBe(true);
    load.outstanding = 1;
    expect(takesTurn(load, staleAt, DEFAULTS, model.fleet)).toBe(false);
  });

  it('lets every endpoint through with nothing to judge by: no answer yet, no fleet average, or no gate', () => {
    const model = new PeakEwmaModel(DEFAULTS);
    const fresh = new EndpointLoad();
    expect(takesTurn(fresh, 0, DEFAULTS, model.fleet)).toBe(true);
    const answered = Object.assign(new EndpointLoad(), { hasSample: true, meanRttMs: 1e6, meanSamples: 8 });
    expect(takesTurn(answered, 0, DEFAULTS, model.fleet)).toBe(true);
    const slow = fleetAnd(OFF, 1e6);
    expect(takesTurn(slow.load, 1, OFF, slow.model.fleet)).toBe(true);
  });
});

/**
 * One client, `n` endpoints answering in `latencyOf(index, picksSoFar)` ms
 * (failing where `failsOf(index, k)` for the k-th call to that endpoint),
 * one call at a time: every `sendEveryMs` ms, or with `sendEveryMs` 0 as
 * soon as the last one answered (a caller that waits for each answer).
 * Returns the chosen endpoint of every call.
 */
function run(...args: Parameters<typeof runEngine>): number[] {
  return runEngine(...args).picks;
}

/** `run`, also returning the engine, whose pick paths the stats read. */
function runEngine(
  settings: PeakEwmaSettings,
  n: number,
  calls: number,
  latencyOf: (index: number, picksSoFar: number[]) => number,
  failsOf = (_index: number, _k: number) => false,
  sendEveryMs = 5,
): { picks: number[]; engine: LoadBalancingEngine } {
  const clock = new ManualClock();
  const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(settings), choiceCount: 2, clock: clock.now, random: seededRandom(5) });
  const loads = Array.from({ length: n }, () => new EndpointLoad());
  const picks: number[] = [];
  const callsTo = new Array<number>(n).fill(0);
  for (let call = 0; call < calls; call++) {
    if (sendEveryMs > 0) clock.set(call * sendEveryMs);
    const index = engine.pick(loads);
    const startedAt = engine.callStarted(loads[index]);
    clock.advance(latencyOf(index, picks));
    engine.callEnded(loads[index], failsOf(index, callsTo[index]++) ? CallOutcome.FAILURE : CallOutcome.SUCCESS, startedAt);
    picks.push(index);
  }
  return { picks, engine };
}

/** One client waiting for each answer before its next call, three endpoints, the defaults. */
const oneCallAtATime = (calls: number, latencyOf: (index: number, picksSoFar: number[]) => number): number[] =>
  run(DEFAULTS, 3, calls, latencyOf, undefined, 0);

/** The largest number of calls between two consecutive calls to the same endpoint, over all endpoints. */
function longestGap(picks: number[]): number {
  const last = new Map<number, number>();
  let longest = 0;
  picks.forEach((index, call) => {
    if (last.has(index)) longest = Math.max(longest, call - last.get(index)!);
    last.set(index, call);
  });
  return longest;
}

describe('the engine with the rotation', () => {
  it('identical endpoints: each gets one of every n calls, as round_robin spaces them; two random draws do not', () => {
    const jitter = seededRandom(9);
    const latencyOf = () => 1 + 0.2 * jitter();
    const rotated = run(DEFAULTS, 10, 2_000, latencyOf);
    for (let start = 100; start + 10 <= rotated.length; start += 10) {
      // Windows aligned with the rotation's cycle hold every endpoint once.
      expect(new Set(rotated.slice(start, start + 10)).size).toBe(10);
    }
    expect(longestGap(rotated.slice(100))).toBeLessThanOrEqual(19);
    // Two random draws let an endpoint wait several cycles for a call.
    expect(longestGap(run(OFF, 10, 2_000, latencyOf).slice(100))).toBeGreaterThan(30);
  });

  it('an endpoint whose answers are 2× the fleet loses its turns and gets only what draws give it', () => {
    // Ejection off on both sides, so that only the gate tells them apart.
    const latencyOf = (index: number) => (index === 0 ? 2 : 1);
    const slowShare = (settings: PeakEwmaSettings) => run({ ...settings, ejectionRatio: 0 }, 10, 4_000, latencyOf).slice(200).filter((i) => i === 0).length / 3_800;
    // The margin alone (the incumbent rule of docs/tuning-log.md §9) lets it keep its turns until it costs 4× a challenger.
    expect(slowShare({ ...DEFAULTS, rotationGate: 0 })).toBeGreaterThan(0.08);
    expect(slowShare(DEFAULTS)).toBeLessThan(0.02);
  });

  it('a caller that waits for each answer: an endpoint 2× its two peers loses its turns, even when it answered first', () => {
    // Each call is sent when the last one answered, so the gap before each
    // answer is its own latency; the first answer is the slow endpoint's
    // (40 ms, its peers 20). The fleet average weighs calls, not the time
    // they took (fleet-rtt.ts): F leaves that first sample within a few
    // dozen calls and settles at the peers' 20 ms, and the slow one fails
    // the gate. Weighed by time, F moved 1 − e^(−20/2000) ≈ 1 % per fast
    // answer and twice that per slow one: it stayed near 40, then at
    // (2 × 20² + 40²) / (2 × 20 + 40) = 30 ms with the slow one in the
    // rotation, which passed the gate (40 ≤ 1.4 × 30, the gate then) and
    // kept its third.
    const picks = oneCallAtATime(3_000, (index, picks) => (index === picks[0] || picks.length === 0 ? 40 : 20));
    const slowShare = picks.slice(300).filter((i) => i === picks[0]).length / 2_700;
    expect(slowShare).toBeLessThan(0.1);
    expect(slowShare).toBeGreaterThan(0); // still probed
  });

  it('a caller that waits for each answer: an endpoint that slows from 20 to 40 ms over 1,000 calls loses its turns', () => {
    // The slowdown comes gradually (GC pressure building, a cache going
    // cold): M follows it 1/8 per answer and the time-weighted F followed
    // the slow endpoint's own answers, so it kept its third (33.3 %, F 30 ms).
    const slowMs = (call: number) => 20 + 20 * Math.min(1, Math.max(0, (call - 1_000) / 1_000));
    const picks = oneCallAtATime(5_000, (index, picks) => (index === 0 ? slowMs(picks.length) : 20));
    const shareOf0 = (from: number, to: number) => picks.slice(from, to).filter((i) => i === 0).length / (to - from);
    expect(shareOf0(300, 1_000)).toBeGreaterThan(0.3); // its third while it was as fast
    expect(shareOf0(2_500, 5_000)).toBeLessThan(0.1);
  });

  it('an endpoint failing 1 call in 10 gets under half its fair share; a healthy one gets its share', () => {
    const latencyOf = () => 1;
    const failsOf = (index: number, k: number) => index === 0 && k % 10 === 9;
    // The gate alone: no margin rule to hand its turn to a cheaper challenger.
    const picks = run(GATE_ONLY, 10, 4_000, latencyOf, failsOf).slice(200);
    const shareOf = (endpoint: number) => picks.filter((i) => i === endpoint).length / picks.length;
    // Its mean leaves failures to the error penalty, so the failure rule is what keeps it out of the rotation.
    expect(shareOf(0)).toBeLessThan(0.05);
    expect(shareOf(1)).toBeGreaterThan(0.09);
  });
});

describe('how each pick was made (pick-paths.ts: what getLoadBalancerStats().picks reports)', () => {
  const total = (counts: PickCounts) => PICK_PATH_NAMES.reduce((sum, path) => sum + counts[path], 0);

  it('counts every pick once; on identical endpoints nearly all are rotation turns', () => {
    const jitter = seededRandom(9);
    const { engine } = runEngine(DEFAULTS, 10, 2_000, () => 1 + 0.2 * jitter());
    const counts = engine.picks.snapshot();
    expect(total(counts)).toBe(2_000);
    expect(counts.turn).toBeGreaterThan(1_960);
    expect(counts.drawn).toBe(0);
  });

  it('an endpoint 2× the fleet: its turns are refused by the gate, about one pick in ten', () => {
    const { engine } = runEngine({ ...DEFAULTS, ejectionRatio: 0 }, 10, 4_000, (index) => (index === 0 ? 2 : 1));
    const counts = engine.picks.snapshot();
    expect(total(counts)).toBe(4_000);
    expect(counts.refused / 4_000).toBeGreaterThan(0.08);
    expect(counts.refused / 4_000).toBeLessThan(0.11);
    expect(counts.turn + counts.challenged).toBe(4_000 - counts.refused);
  });

  it('without a rotation every pick is drawn; a pick with no candidate is not counted', () => {
    const { engine } = runEngine(OFF, 4, 500, () => 1);
    expect(engine.picks.last).toBe(PickPath.drawn);
    expect(engine.picks.snapshot()).toEqual({ turn: 0, challenged: 0, refused: 0, ejected: 0, drawn: 500, slowStart: 0 });
    expect(engine.pick([])).toBe(-1);
    expect(total(engine.picks.snapshot())).toBe(500);
  });

  /** Two endpoints, both answering 10 ms on average (the gate lets both through), the first with a 60 ms peak now. */
  function onePeak(settings: PeakEwmaSettings): { engine: LoadBalancingEngine; loads: EndpointLoad[] } {
    const model = new PeakEwmaModel(settings);
    model.fleet.record(10, 0, settings.decayMs);
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: () => 0, random: seededRandom(3) });
    const answered = (peakMs: number) => Object.assign(new EndpointLoad(), { hasSample: true, rttMs: peakMs, meanRttMs: 10, meanSamples: 8, sampledAtMs: 0 });
    return { engine, loads: [answered(60), answered(10)] };
  }

  it('a refused turn is counted by why the gate refused it: a call in flight, a failure, the mean over the line', () => {
    const settings = { ...DEFAULTS, ejectionRatio: 0 };
    // Both endpoints in the same state, so every incumbent is refused for the same reason.
    const refusedFor = (state: Partial<EndpointLoad>) => {
      const { engine, loads } = onePeak(settings);
      for (const load of loads) Object.assign(load, { rttMs: 10 }, state);
      for (let i = 0; i < 8; i++) engine.pick(loads);
      return { picks: engine.picks.snapshot(), refusals: engine.picks.refusals() };
    };
    expect(refusedFor({ outstanding: 1 })).toEqual({
      picks: { turn: 0, challenged: 0, refused: 8, ejected: 0, drawn: 0, slowStart: 0 },
      refusals: { inFlight: 8, failure: 0, mean: 0 },
    });
    // Its latest answer failed (the failure stamped at the latest sample's time or after).
    expect(refusedFor({ consecutiveFailures: 1, failedAtMs: 0 }).refusals).toEqual({ inFlight: 0, failure: 8, mean: 0 });
    // A failure within maxEjectionTime counts as one, though the last call succeeded.
    expect(refusedFor({ failedAtMs: -1 }).refusals).toEqual({ inFlight: 0, failure: 8, mean: 0 });
    // Answers that left it ejected count as failed probes (probe-backoff.ts) but are slowness: `mean`.
    expect(refusedFor({ consecutiveFailures: 1 }).refusals).toEqual({ inFlight: 0, failure: 0, mean: 8 });
    // The gate asks in this order: a call in flight first, then failures, then the mean.
    expect(refusedFor({ outstanding: 1, consecutiveFailures: 1, failedAtMs: 0, meanRttMs: 30 }).refusals).toEqual({ inFlight: 8, failure: 0, mean: 0 });
    expect(refusedFor({ consecutiveFailures: 1, failedAtMs: 0, meanRttMs: 30 }).refusals).toEqual({ inFlight: 0, failure: 8, mean: 0 });
    expect(refusedFor({ meanRttMs: 30 }).refusals).toEqual({ inFlight: 0, failure: 0, mean: 8 });
    // Under the line (1.45 × F = 14.5 ms) nothing is refused.
    expect(refusedFor({ meanRttMs: 14 })).toEqual({
      picks: { turn: 8, challenged: 0, refused: 0, ejected: 0, drawn: 0, slowStart: 0 },
      refusals: { inFlight: 0, failure: 0, mean: 0 },
    });
  });

  it('the refusals of an endpoint 2× the fleet are all for its mean, and add up to the refused picks', () => {
    const { engine } = runEngine({ ...DEFAULTS, ejectionRatio: 0 }, 10, 4_000, (index) => (index === 0 ? 2 : 1));
    const refusals = engine.picks.refusals();
    expect(refusals.mean).toBe(engine.picks.snapshot().refused);
    expect(refusals.mean).toBeGreaterThan(300);
    expect(refusals.inFlight + refusals.failure).toBe(0);
  });

  it('challenged: the incumbent passed the gate, and a challenger under the margin × its cost took the call', () => {
    // The peaked one's cost is 60; the other's 10 < 0.2 × 60 takes its turns, while the other keeps its own.
    const { engine, loads } = onePeak({ ...DEFAULTS, ejectionRatio: 0 });
    const chosen = Array.from({ length: 10 }, () => engine.pick(loads));
    expect(chosen).toEqual(new Array(10).fill(1));
    expect(engine.picks.snapshot()).toMatchObject({ turn: 5, challenged: 5, refused: 0 });
    // The latest pick's path (what the simulator's tally attributes each call by): the rotation alternates.
    const before = engine.picks.last;
    engine.pick(loads);
    expect(new Set([before, engine.picks.last])).toEqual(new Set([PickPath.turn, PickPath.challenged]));
  });

  it('ejected: with the gate alone, an incumbent judged over R × F on its peak gives its turn to the draw', () => {
    const { engine, loads } = onePeak({ ...GATE_ONLY, ejectionSignal: 'peak', ejectionRatio: 2.5 });
    for (let i = 0; i < 10; i++) expect(engine.pick(loads)).toBe(1);
    expect(engine.picks.snapshot()).toMatchObject({ turn: 5, ejected: 5 });
    const before = engine.picks.last;
    engine.pick(loads);
    expect(new Set([before, engine.picks.last])).toEqual(new Set([PickPath.turn, PickPath.ejected]));
  });
});
