/**
 * Slow start (src/core/slow-start.ts): an endpoint that joins a running
 * fleet is, for `slowStartWindow` after its first call ends, not ejected for
 * its latency and takes the turns the gate refuses it for its mean with
 * weight (F / S)², S the higher of its mean and its estimate; one still
 * slow when the window ends resumes the probe back-off where it would
 * stand without one; errors, load shedding, and everything about a joiner
 * that is fast, are judged as before. One client sends one call at a time on a manual clock, so every
 * pick is exact.
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, Refusal, seededRandom } from '../../src/core';
import { JOINER_AFTER_FAIR_SHARES, joinerAfterMs } from '../../src/core/slow-start';
import { probeIntervalMs } from '../../src/core/staleness';
import { PeakEwmaLoadBalancingConfig, PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

const DEFAULTS = new PeakEwmaLoadBalancingConfig().settings;
const OFF: PeakEwmaSettings = { ...DEFAULTS, slowStartMs: 0 };

/** What a call gets: an answer after `ms`, or another outcome after `ms`. */
interface Reply {
  readonly ms: number;
  readonly outcome?: CallOutcome;
}
type Replies = (endpoint: number, servedBefore: number) => Reply;

/** A client sending one call at a time to n endpoints; `run` sends calls among the first `ready` of them. */
function client(n: number, settings: PeakEwmaSettings = DEFAULTS) {
  const clock = new ManualClock(1_000);
  const model = new PeakEwmaModel(settings);
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(7) });
  const loads = Array.from({ length: n }, () => new EndpointLoad());
  const served = new Array<number>(n).fill(0);
  const picks: number[] = [];
  const run = (calls: number, ready: number, replies: Replies): void => {
    const candidates = loads.slice(0, ready);
    for (let k = 0; k < calls; k++) {
      const i = engine.pick(candidates);
      picks.push(i);
      const reply = replies(i, served[i]);
      served[i]++;
      const start = engine.callStarted(candidates[i]);
      clock.advance(reply.ms);
      engine.callEnded(candidates[i], reply.outcome ?? CallOutcome.SUCCESS, start);
    }
  };
  return { clock, model, engine, loads, served, picks, run };
}

const TEN_MS: Replies = () => ({ ms: 10 });
/** Endpoint 4 (the joiner of a fleet of four) replies `joiner`, the others answer in 10 ms. */
const withJoiner =
  (joiner: Reply | ((servedBefore: number) => Reply)): Replies =>
  (i, servedBefore) =>
    i < 4 ? { ms: 10 } : typeof joiner === 'function' ? joiner(servedBefore) : joiner;

/** Four endpoints serve 200 calls (2 s); then a fifth turns READY and `calls` more go out among the five. */
function joinAfterAFleet(settings: PeakEwmaSettings, replies: Replies, calls: number) {
  const c = client(5, settings);
  c.run(200, 4, TEN_MS);
  const before = c.served[4];
  c.run(calls, 5, replies);
  return { ...c, joinerServed: c.served[4] - before };
}

describe('who is a joiner', () => {
  it(`an endpoint first called ${JOINER_AFTER_FAIR_SHARES} fair shares and a probe interval after the balancer's first call; not the fleet it began with`, () => {
    const { loads, clock } = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 10 }), 20);
    for (const founder of loads.slice(0, 4)) {
      expect(founder.firstCallAtShares).toBeLessThan(JOINER_AFTER_FAIR_SHARES);
      expect(founder.slowStartEndsMs).toBe(-Infinity);
    }
    // 200 calls among 4 endpoints, 2 s, before its first call (a few calls after it turned READY).
    expect(loads[4].firstCallAtShares).toBeGreaterThanOrEqual(50);
    expect(loads[4].firstCallAtShares).toBeLessThan(52);
    expect(loads[4].firstCallAfterMs).toBeGreaterThanOrEqual(2_000);
    // 10 s from the end of its first call, which is over by now.
    expect(loads[4].slowStartEndsMs).toBeGreaterThan(clock.now());
    expect(loads[4].slowStartEndsMs).toBeLessThanOrEqual(clock.now() + PEAK_EWMA_DEFAULTS.slowStartMs);
  });

  it('the fleet a channel begins with is judged at once even when most of it turns READY after a first burst to one endpoint', () => {
    // The first READY endpoint takes 3 calls alone (3 fair shares of one), then the rest connect.
    const c = client(4, DEFAULTS);
    c.run(3, 1, TEN_MS);
    c.run(200, 4, (i) => ({ ms: i === 3 ? 60 : 10 }));
    expect(c.loads[3].firstCallAtShares).toBeGreaterThanOrEqual(JOINER_AFTER_FAIR_SHARES);
    expect(c.loads[3].firstCallAfterMs).toBeLessThan(joinerAfterMs(DEFAULTS));
    expect(c.loads[3].slowStartEndsMs).toBe(-Infinity);
    expect(c.model.ejected(c.loads[3], c.clock.now())).toBe(true);
  });

  it('nor an endpoint of a slow channel that turns up only after a probe interval but within its first fair shares', () => {
    // Three endpoints READY from the start, a call every 700 ms: the third's first call comes 1.4 s
    // after the channel's first, past maxEjectionTime, but at 2/3 of a fair share.
    const c = client(3, DEFAULTS);
    c.run(3, 3, () => ({ ms: 700 }));
    expect(c.served).toEqual([1, 1, 1]);
    // The one called third is 1.4 s into the channel's life.
    expect(c.loads.filter((load) => load.firstCallAfterMs >= joinerAfterMs(DEFAULTS))).toHaveLength(1);
    expect(c.loads.map((load) => load.slowStartEndsMs)).toEqual([-Infinity, -Infinity, -Infinity]);
  });

  it('with slowStartWindow 0s nobody is', () => {
    const { loads } = joinAfterAFleet(OFF, withJoiner({ ms: 10 }), 20);
    expect(loads[4].firstCallAtShares).toBeGreaterThanOrEqual(50);
    expect(loads[4].slowStartEndsMs).toBe(-Infinity);
  });
});

describe('a joiner that is slow', () => {
  it('is not ejected, counts no failed probe, and takes (F / S)² of the turns its mean loses: a quarter at 2 x F', () => {
    const on = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 500);
    const off = joinAfterAFleet(OFF, withJoiner({ ms: 20 }), 500);
    expect(on.model.ejected(on.loads[4], on.clock.now())).toBe(false);
    expect(off.model.ejected(off.loads[4], off.clock.now())).toBe(true);
    expect(on.loads[4].consecutiveFailures).toBe(0);
    expect(off.loads[4].consecutiveFailures).toBeGreaterThan(0);
    // Its mean keeps the gate refusing it; slow start takes a quarter of those turns.
    expect(on.model.refusalOf(on.loads[4], on.clock.now())).toBe(Refusal.mean);
    // 500 calls among five: 100 turns each; about 100 × (10 / 20)² = 25 taken.
    expect(on.joinerServed).toBeGreaterThanOrEqual(21);
    expect(on.joinerServed).toBeLessThanOrEqual(29);
    // Counted as slow start's picks, not as typical turns; none without it.
    const slowStartPicks = on.engine.picks.snapshot().slowStart;
    expect(slowStartPicks).toBeGreaterThanOrEqual(20);
    expect(slowStartPicks).toBeLessThanOrEqual(on.joinerServed);
    expect(off.engine.picks.snapshot().slowStart).toBe(0);
    expect(off.joinerServed).toBeLessThan(8);
  });

  it('takes those turns evenly spaced, not in a burst', () => {
    const { picks } = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 500);
    const at = picks.slice(200).flatMap((endpoint, k) => (endpoint === 4 ? [k] : []));
    const gaps = at.slice(2).map((k, j) => k - at[j + 1]);
    // Every fourth turn of its own, a turn every 5 calls: about 20 calls apart.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(14);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(26);
  });

  it('at 10 x F takes hardly more than its probes would: its weight is not held up by the cap on the answers its mean takes', () => {
    const on = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 100 }), 500);
    const off = joinAfterAFleet(OFF, withJoiner({ ms: 100 }), 500);
    // M takes answers of at most 2 × the ejection line (3 F): the estimate is the higher.
    expect(on.loads[4].meanRttMs).toBeLessThan(40);
    // A hundredth of 100 turns, besides the calls that found it stale (its probes, which it gets either way).
    expect(on.joinerServed).toBeLessThanOrEqual(off.joinerServed + 2);
  });

  it('whose calls all time out, or all lose a hedge race (no mean at all), takes hardly more than its probes would', () => {
    const deadlines = (settings: PeakEwmaSettings) => joinAfterAFleet(settings, withJoiner({ ms: 1_000, outcome: CallOutcome.DEADLINE_EXCEEDED }), 300);
    const hedges = (settings: PeakEwmaSettings) => joinAfterAFleet(settings, withJoiner({ ms: 300, outcome: CallOutcome.OUTLASTED }), 300);
    expect(hedges(DEFAULTS).loads[4].hasMean).toBe(false);
    expect(deadlines(DEFAULTS).joinerServed).toBeLessThanOrEqual(deadlines(OFF).joinerServed + 1);
    expect(hedges(DEFAULTS).joinerServed).toBeLessThanOrEqual(hedges(OFF).joinerServed + 1);
  });

  it('that failed probes while slow start was off takes no slow-start turn when it is turned on again', () => {
    const c = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 100);
    // Off, its slow answers eject it and count as failed probes; on again, its window is still running.
    c.model.settings = OFF;
    c.run(200, 5, withJoiner({ ms: 20 }));
    c.model.settings = DEFAULTS;
    expect(c.loads[4].consecutiveFailures).toBeGreaterThan(0);
    expect(c.loads[4].slowStartEndsMs).toBeGreaterThan(c.clock.now());
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(true);
    const servedBefore = c.served[4];
    c.run(80, 5, withJoiner({ ms: 20 }));
    // Sixteen turns, a quarter of which slow start would take from a joiner not failing: none taken.
    expect(c.served[4] - servedBefore).toBeLessThanOrEqual(1);
  });

  it('warms up with the work: a pod 5 x slower at first, 1/e less with every 5 calls it serves, soon takes its share', () => {
    // One client is all its work here, so it warms fast per call; in s17 it is every client's calls.
    const warming = (servedBefore: number) => ({ ms: 10 * (1 + 4 * Math.exp(-servedBefore / 5)) });
    const on = joinAfterAFleet(DEFAULTS, withJoiner(warming), 800);
    const off = joinAfterAFleet(OFF, withJoiner(warming), 800);
    // A fair share is 160 of the 800; without slow start it stays out on its first answers.
    expect(on.joinerServed).toBeGreaterThan(40);
    expect(off.joinerServed).toBeLessThan(20);
    expect(on.loads[4].meanRttMs).toBeLessThan(1.45 * on.model.fleet.rttMs);
  });

  it('is judged as any endpoint once its slow start is over: a joiner still slow is then ejected', () => {
    const c = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 100);
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(false);
    const endsMs = c.loads[4].slowStartEndsMs;
    c.run(1_500, 5, withJoiner({ ms: 20 })); // ≥ 15 s of calls
    expect(c.clock.now()).toBeGreaterThan(endsMs);
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(true);
    const before = c.served[4];
    c.run(500, 5, withJoiner({ ms: 20 }));
    expect(c.served[4] - before).toBeLessThan(8); // probes only
  });

  it('still slow when its window ends, resumes the probe back-off where it would stand without one: its slow answers in the window count as the failed probes they were', () => {
    const slow = withJoiner({ ms: 20 });
    const on = joinAfterAFleet(DEFAULTS, slow, 100);
    const off = joinAfterAFleet(OFF, slow, 100);
    expect(on.loads[4].consecutiveFailures).toBe(0);
    expect(on.loads[4].slowStartSlowAnswers).toBeGreaterThan(3);
    const endsMs = on.loads[4].slowStartEndsMs;
    while (on.clock.now() <= endsMs) {
      on.run(1, 5, slow);
    }
    off.run(on.picks.length - off.picks.length, 5, slow);
    // The 100 fair shares after the window: without it the joiner has been out all along, at the longest
    // back-off (maxProbeBackoff 8: probes 80 fair shares apart); so is the joiner from its first answer
    // after the window. Begun afresh, the back-off would probe it after 10, 20 and 40 fair shares.
    const onBefore = on.served[4];
    const offBefore = off.served[4];
    for (const c of [on, off]) {
      c.run(500, 5, slow);
    }
    expect(on.loads[4].consecutiveFailures).toBeGreaterThanOrEqual(4);
    // Handed over once.
    expect(on.loads[4].slowStartSlowAnswers).toBe(0);
    expect(off.loads[4].consecutiveFailures).toBeGreaterThanOrEqual(4);
    expect(off.served[4] - offBefore).toBeLessThanOrEqual(2);
    expect(on.served[4] - onBefore).toBeLessThanOrEqual(2);
  });

  it('counts the answers that leave its mean over the line in a row: one that brings it under starts the count again', () => {
    // Slow, then ten typical answers (its mean falls under the line: (7/8)^10 of the way back), then slow again.
    const typical = (servedBefore: number) => servedBefore >= 20 && servedBefore < 30;
    const c = joinAfterAFleet(DEFAULTS, withJoiner((servedBefore) => ({ ms: typical(servedBefore) ? 10 : 20 })), 700);
    expect(c.clock.now()).toBeLessThan(c.loads[4].slowStartEndsMs);
    const slowSince = c.served[4] - 30;
    expect(slowSince).toBeGreaterThan(3);
    expect(c.loads[4].slowStartSlowAnswers).toBeGreaterThan(0);
    expect(c.loads[4].slowStartSlowAnswers).toBeLessThanOrEqual(slowSince);
  });

  it('is judged as any endpoint at once when slow start is turned off by a config update', () => {
    const c = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 100);
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(false);
    c.model.settings = OFF;
    expect(c.loads[4].slowStartEndsMs).toBeGreaterThan(c.clock.now());
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(true);
  });
});

describe('a pod restarted in place (its address kept): a joiner again when it was away a probe interval', () => {
  /** Five endpoints typical for 3 s; endpoint 4 leaves READY for `awayMs` and comes back; then `calls` more. */
  function restartInPlace(settings: PeakEwmaSettings, awayMs: number, replies: Replies, calls: number) {
    const c = client(5, settings);
    c.run(300, 5, TEN_MS);
    expect(c.loads[4].slowStartEndsMs).toBe(-Infinity);
    c.run(Math.ceil(awayMs / 10), 4, TEN_MS); // ten-ms calls among the other four while it is away
    c.engine.endpointReturned(c.loads[4], awayMs);
    const before = c.served[4];
    c.run(calls, 5, replies);
    return { ...c, returnedServed: c.served[4] - before };
  }
  const cold = withJoiner((servedBefore) => ({ ms: 10 * (1 + 4 * Math.exp(-(servedBefore - 60) / 5)) }));

  it('away a probe interval or more, its next call starts a window; its cold answers are spared and it warms', () => {
    const on = restartInPlace(DEFAULTS, probeIntervalMs(DEFAULTS), cold, 800);
    const off = restartInPlace(OFF, probeIntervalMs(DEFAULTS), cold, 800);
    expect(on.loads[4].slowStartEndsMs).toBeGreaterThan(on.clock.now());
    expect(on.engine.picks.snapshot().slowStart).toBeGreaterThan(0);
    // A fair share is 160 of the 800; without slow start its first cold answers put it out.
    expect(on.returnedServed).toBeGreaterThan(40);
    expect(off.returnedServed).toBeLessThan(20);
  });

  it('takes F / S of the turns its mean loses, where a newcomer takes (F / S)²: half at 2 x F, not a quarter', () => {
    const slow = withJoiner({ ms: 20 });
    const returned = restartInPlace(DEFAULTS, probeIntervalMs(DEFAULTS), slow, 500);
    const newcomer = joinAfterAFleet(DEFAULTS, slow, 500);
    expect(returned.loads[4].restartedInPlace).toBe(true);
    expect(newcomer.loads[4].restartedInPlace).toBe(false);
    for (const c of [returned, newcomer]) {
      expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(false);
      expect(c.model.refusalOf(c.loads[4], c.clock.now())).toBe(Refusal.mean);
    }
    // 500 calls among five: 100 turns each; about 100 × 10 / 20 = 50 taken, and 100 × (10 / 20)² = 25 by a newcomer.
    expect(returned.returnedServed).toBeGreaterThanOrEqual(45);
    expect(returned.returnedServed).toBeLessThanOrEqual(62);
    expect(newcomer.joinerServed).toBeLessThanOrEqual(29);
    expect(returned.engine.picks.snapshot().slowStart).toBeGreaterThanOrEqual(40);
  });

  it('away for less (a reconnect after a GOAWAY, a blip): nothing changes, a slow pod is not spared anew', () => {
    const slow = withJoiner({ ms: 30 });
    const blip = restartInPlace(DEFAULTS, probeIntervalMs(DEFAULTS) - 1, slow, 400);
    const off = restartInPlace(OFF, probeIntervalMs(DEFAULTS) - 1, slow, 400);
    expect(blip.loads[4].slowStartEndsMs).toBe(-Infinity);
    expect(blip.picks).toEqual(off.picks);
  });

  it('a call still out from before it left ends on the old process and starts no window; the next call after the return does', () => {
    const c = client(5, DEFAULTS);
    c.run(300, 5, TEN_MS);
    const oldCall = c.engine.callStarted(c.loads[4]);
    c.clock.advance(1_500);
    c.engine.endpointReturned(c.loads[4], 1_500);
    c.engine.callEnded(c.loads[4], CallOutcome.FAILURE, oldCall);
    expect(c.loads[4].slowStartEndsMs).toBe(-Infinity);
    const newCall = c.engine.callStarted(c.loads[4]);
    c.clock.advance(50);
    c.engine.callEnded(c.loads[4], CallOutcome.SUCCESS, newCall);
    expect(c.loads[4].slowStartEndsMs).toBe(c.clock.now() + PEAK_EWMA_DEFAULTS.slowStartMs);
  });

  it('an endpoint never called is left to its first call: it is a founder or a joiner by that', () => {
    const c = client(5, DEFAULTS);
    c.engine.endpointReturned(c.loads[4], 60_000);
    expect(c.loads[4].returned).toBe(false);
  });
});

describe('a joiner whose calls run out their deadline', () => {
  it('is not spared for a probe interval after: it is drowning, not warming up', () => {
    const c = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 100);
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(false);
    const call = c.engine.callStarted(c.loads[4]);
    c.clock.advance(500);
    c.engine.callEnded(c.loads[4], CallOutcome.DEADLINE_EXCEEDED, call);
    expect(c.clock.now()).toBeLessThan(c.loads[4].slowStartEndsMs);
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(true);
    expect(c.model.takesSlowStartTurn(c.loads[4], c.clock.now())).toBe(false);
    // A deadline spent before the call reached it (elapsed 1 ms: a queued pick, a retry) says nothing of it.
    const other = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 20 }), 100);
    const early = other.engine.callStarted(other.loads[4]);
    other.clock.advance(1);
    other.engine.callEnded(other.loads[4], CallOutcome.DEADLINE_EXCEEDED, early);
    expect(other.model.ejected(other.loads[4], other.clock.now())).toBe(false);
    // A probe interval later, still in the window and not timing out, it is spared again.
    c.clock.advance(probeIntervalMs(DEFAULTS));
    expect(c.clock.now()).toBeLessThan(c.loads[4].slowStartEndsMs);
    expect(c.model.ejected(c.loads[4], c.clock.now())).toBe(false);
  });
});

describe('what slow start leaves as it was', () => {
  it('a joiner that fails every call: the same picks as without it', () => {
    const on = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 1, outcome: CallOutcome.FAILURE }), 400);
    const off = joinAfterAFleet(OFF, withJoiner({ ms: 1, outcome: CallOutcome.FAILURE }), 400);
    expect(on.loads[4].slowStartEndsMs).toBeGreaterThan(on.clock.now());
    expect(on.model.refusalOf(on.loads[4], on.clock.now())).toBe(Refusal.failure);
    expect(on.picks).toEqual(off.picks);
  });

  it('a joiner whose calls fail is ejected by its errors under the peak signal, slow start or not', () => {
    const peak: PeakEwmaSettings = { ...DEFAULTS, ejectionSignal: 'peak' };
    const on = joinAfterAFleet(peak, withJoiner({ ms: 1, outcome: CallOutcome.FAILURE }), 100);
    expect(on.loads[4].slowStartEndsMs).toBeGreaterThan(on.clock.now());
    expect(on.model.ejected(on.loads[4], on.clock.now())).toBe(true);
  });

  it('a joiner that shed a call is out, and takes no slow-start turn, even once an older call of it has succeeded', () => {
    // maxEjectionTime 25 ms, so that the call below can outlast it with an answer as long as its others.
    const c = joinAfterAFleet({ ...DEFAULTS, maxEjectionMs: 25 }, withJoiner({ ms: 20 }), 100);
    const joiner = c.loads[4];
    // Two calls out at once: the later one is shed; the earlier one answers 26 ms later, past
    // maxEjectionTime, so no failure is recent and the count is back at 0 (shed.ts keeps the shed:
    // that call was sent before it).
    const first = c.engine.callStarted(joiner);
    const second = c.engine.callStarted(joiner);
    c.clock.advance(1);
    c.engine.callEnded(joiner, CallOutcome.SHED, second);
    c.clock.advance(26);
    c.engine.callEnded(joiner, CallOutcome.SUCCESS, first);
    expect(joiner.consecutiveFailures).toBe(0);
    expect(c.model.refusalOf(joiner, c.clock.now())).toBe(Refusal.mean);
    expect(c.model.ejected(joiner, c.clock.now())).toBe(true);
    const before = c.served[4];
    c.run(40, 5, withJoiner({ ms: 20 })); // under its probe interval of 10 fair shares
    expect(c.served[4] - before).toBe(0);
  });

  it('a joiner as fast as the fleet: the same picks as without it', () => {
    const on = joinAfterAFleet(DEFAULTS, withJoiner({ ms: 10 }), 400);
    const off = joinAfterAFleet(OFF, withJoiner({ ms: 10 }), 400);
    expect(on.loads[4].slowStartEndsMs).toBeGreaterThan(on.clock.now());
    expect(on.picks).toEqual(off.picks);
    expect(on.joinerServed).toBeGreaterThanOrEqual(70);
  });

  it('the ejection budget is not spent on a joiner: a slow founder stays out', () => {
    // Ten endpoints, at most one out at a time (10 %); founder 0 answers 20 ms, the rest 10.
    const settings = { ...DEFAULTS, maxEjectionPercent: 10 };
    const replies = (i: number): Reply => ({ ms: i === 0 ? 20 : i === 9 ? 60 : 10 });
    const c = client(10, settings);
    c.run(900, 9, replies);
    expect(c.model.ejected(c.loads[0], c.clock.now())).toBe(true);
    // Joiner 9 answers 60 ms (its mean takes at most 3 F of it): slower than founder 0, but in its slow start it is not ranked.
    c.run(300, 10, replies);
    expect(c.loads[9].slowStartEndsMs).toBeGreaterThan(c.clock.now());
    expect(c.model.ejected(c.loads[9], c.clock.now())).toBe(false);
    expect(c.model.ejected(c.loads[0], c.clock.now())).toBe(true);
    // Only the founder is over R × F for the budget, so the line stays at R (1.5); ranked, the
    // joiner would have raised it onto the founder's ratio, 2, which puts it out half the time.
    expect(c.model.ejectionLineMs! / c.model.fleet.rttMs).toBeCloseTo(1.5, 6);
  });
});

describe('slowStartWindow in the service config', () => {
  const parse = (fields: object) => PeakEwmaLoadBalancingConfig.parse(fields);
  it('is a duration, 10 s by default, "0s" off; written back only when not the default', () => {
    expect(parse({}).settings.slowStartMs).toBe(10_000);
    expect(parse({ slowStartWindow: '90s' }).settings.slowStartMs).toBe(90_000);
    expect(parse({ slow_start_window: '90s' }).settings.slowStartMs).toBe(90_000);
    expect(parse({ slowStartWindow: '0s' }).settings.slowStartMs).toBe(0);
    expect(parse({ slowStartWindow: '3600s' }).settings.slowStartMs).toBe(3_600_000);
    expect(JSON.stringify(parse({}).toJsonObject())).not.toContain('slowStartWindow');
    expect(parse({ slowStartWindow: '0s' }).toJsonObject()).toMatchObject({ peak_ewma_experimental: { slowStartWindow: '0s' } });
    expect(parse({ slowStartWindow: '90s' }).toJsonObject()).toMatchObject({ peak_ewma_experimental: { slowStartWindow: '90s' } });
  });

  it('refuses what is not a duration within [0, 1 h], naming the field', () => {
    expect(() => parse({ slowStartWindow: '-1s' })).toThrow(/slowStartWindow/);
    expect(() => parse({ slowStartWindow: '3601s' })).toThrow(/slowStartWindow/);
    expect(() => parse({ slowStartWindow: 30 })).toThrow(/slowStartWindow/);
  });
});

describe("a deadline's length is judged in its method's units", () => {
  it('a ping that ran 18 times its usual time timed out on the endpoint; a report at 0.8 of its usual did not', () => {
    // noteTimeout compared the raw ms with R × F, where F averages pings and reports alike (review, 2026-12-07).
    const clock = new ManualClock(1_000);
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel({ ...PEAK_EWMA_DEFAULTS }), choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
    const call = (name: string, ms: number, outcome = CallOutcome.SUCCESS, k?: number) => {
      const method = engine.methodOf(name);
      const weight = engine.callWeight(method);
      const i = k ?? engine.pick(loads, weight);
      const started = engine.callStarted(loads[i], weight, method);
      clock.advance(ms);
      engine.callEnded(loads[i], outcome, started, weight, method);
    };
    for (let i = 0; i < 300; i++) {
      call('ping', 1);
      call('report', 40);
    }
    call('ping', 18, CallOutcome.DEADLINE_EXCEEDED, 0);
    call('report', 32, CallOutcome.DEADLINE_EXCEEDED, 1);
    expect(loads[0].timedOutAtMs).toBe(clock.now() - 32);
    expect(loads[1].timedOutAtMs).toBe(-Infinity);
  });
});
