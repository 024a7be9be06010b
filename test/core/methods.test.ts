/**
 * Per-method scoring (src/core/methods.ts) in virtual time: with one method
 * it changes nothing, to the bit; with methods of very different cost it
 * keeps a backend's speed visible; its state is bounded.
 */
import fc from 'fast-check';
import { CallOutcome, EndpointLoad, estimateMs, LoadBalancingEngine, ManualClock, PeakEwmaModel, seededRandom } from '../../src/core';
import { FleetRtt } from '../../src/core/fleet-rtt';
import { answerWeight, MAX_TRACKED_METHODS, METHOD_IDLE_MS, MethodKey, MethodStats, MethodTable, MIX_CHECK_CALLS, MIX_CHECK_MS, MIX_RATIO } from '../../src/core/methods';
import { MethodScoring } from '../../src/core/peak-ewma-settings';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

interface Workload {
  /** Method names and their service time in ms on a speed-1 endpoint. */
  methods: readonly { name: string; ms: number }[];
  /** Service-time factor per endpoint. */
  slowness: readonly number[];
  calls: number;
  gapMs: number;
  /** Every how many calls one fails (0: none). */
  failEvery: number;
  seed: number;
  /** false: every call takes exactly its method's ms × the endpoint's slowness (default: × U(0.5, 1.5)). */
  jitter?: boolean;
}

/** A call the tests have started on the engine, to end at `endsAtMs` (virtual). */
interface RunningCall {
  endsAtMs: number;
  load: EndpointLoad;
  startedAtMs: number;
  weight: number;
  method: ReturnType<LoadBalancingEngine['methodOf']>;
  outcome: CallOutcome;
}

/** Ends, in order of their end, the calls of `running` due by `ms`, moving `clock` to each end. */
function endCallsUntil(running: RunningCall[], ms: number, clock: ManualClock, engine: LoadBalancingEngine): void {
  running.sort((a, b) => a.endsAtMs - b.endsAtMs);
  while (running.length > 0 && running[0].endsAtMs <= ms) {
    const call = running.shift()!;
    clock.set(call.endsAtMs);
    engine.callEnded(call.load, call.outcome, call.startedAtMs, call.weight, call.method);
  }
}

interface Trace {
  picks: number[];
  loads: EndpointLoad[];
  /** Pick shares per method name, per endpoint. */
  sharesByMethod: Record<string, number[]>;
}

/**
 * Open-loop calls every `gapMs`, each of a random method, through the engine
 * configured from service-config JSON (the product's defaults plus
 * `methodScoring`), each ending after its method's time × the endpoint's
 * slowness × U(0.5, 1.5), as the picker would report them.
 */
function drive(workload: Workload, methodScoring: MethodScoring, lookUp: 'name' | 'key' = 'name'): Trace {
  const config = PeakEwmaLoadBalancingConfig.parse({ methodScoring });
  const clock = new ManualClock();
  const engine = new LoadBalancingEngine({
    model: config.createModel(),
    choiceCount: config.choiceCount,
    clock: clock.now,
    random: seededRandom(workload.seed),
  });
  const world = seededRandom(workload.seed + 1000);
  const loads = workload.slowness.map(() => new EndpointLoad());
  const running: RunningCall[] = [];
  // One key per method, as the interceptor hands the picker (streaming.ts).
  const keys = new Map(workload.methods.map(({ name }) => [name, new MethodKey(name)]));
  const picks: number[] = [];
  const counts: Record<string, number[]> = {};
  const finishUntil = (ms: number): void => {
    endCallsUntil(running, ms, clock, engine);
    clock.set(ms);
  };
  for (let i = 0; i < workload.calls; i++) {
    finishUntil(i * workload.gapMs);
    const spec = workload.methods[Math.floor(world() * workload.methods.length)];
    const method = lookUp === 'key' ? engine.methodOfKey(keys.get(spec.name)) : engine.methodOf(spec.name);
    const weight = engine.callWeight(method);
    const index = engine.pick(loads, weight);
    picks.push(index);
    (counts[spec.name] ??= workload.slowness.map(() => 0))[index]++;
    const startedAtMs = engine.callStarted(loads[index], weight, method);
    const outcome = workload.failEvery > 0 && i % workload.failEvery === 0 ? CallOutcome.FAILURE : CallOutcome.SUCCESS;
    const jitter = workload.jitter === false ? 1 : 0.5 + world();
    running.push({ endsAtMs: clock.now() + spec.ms * workload.slowness[index] * jitter, load: loads[index], startedAtMs, weight, method, outcome });
  }
  finishUntil(workload.calls * workload.gapMs + 1e6);
  const sharesByMethod = Object.fromEntries(
    Object.entries(counts).map(([name, perEndpoint]) => {
      const total = perEndpoint.reduce((a, b) => a + b, 0);
      return [name, perEndpoint.map((n) => n / total)];
    }),
  );
  return { picks, loads, sharesByMethod };
}

/**
 * An engine configured from service-config JSON `config`, whose two
 * endpoints of equal speed took turns serving a 1 ms ping and a 200 ms
 * report, 40 of each: both methods have baselines and both endpoints alike
 * estimates (about 100 ms, in units of an average call).
 */
function taughtPingsAndReports(config: object) {
  const parsed = PeakEwmaLoadBalancingConfig.parse(config);
  const model = parsed.createModel() as PeakEwmaModel;
  const clock = new ManualClock();
  const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
  const loads = [new EndpointLoad(), new EndpointLoad()];
  for (let i = 0; i < 40; i++) {
    for (const [name, ms] of [
      ['ping', 1],
      ['report', 200],
    ] as const) {
      const method = engine.methodOf(name);
      const weight = engine.callWeight(method);
      const load = loads[i % 2];
      const startedAt = engine.callStarted(load, weight, method);
      clock.advance(ms);
      engine.callEnded(load, CallOutcome.SUCCESS, startedAt, weight, method);
    }
  }
  return { model, engine, clock, loads, ping: engine.methodOf('ping'), report: engine.methodOf('report') };
}

/** Per-method scoring, "latency" and "work", makes the picks and leaves every endpoint number that "off" does. */
function expectScoringChangesNothing(workload: Workload): void {
  const off = drive(workload, 'off');
  for (const scoring of ['latency', 'work'] as const) {
    const on = drive(workload, scoring);
    expect(on.picks).toEqual(off.picks);
    // toEqual compares numbers with Object.is: bit for bit (and -0 vs 0).
    expect(on.loads).toEqual(off.loads);
  }
}

describe('per-method scoring', () => {
  it('with one method, picks and every endpoint number are bit-identical to methodScoring "off" (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          ms: fc.double({ min: 0.1, max: 2_000, noNaN: true }),
          slowness: fc.array(fc.double({ min: 0.2, max: 20, noNaN: true }), { minLength: 1, maxLength: 6 }),
          gapMs: fc.double({ min: 0.05, max: 500, noNaN: true }),
          failEvery: fc.constantFrom(0, 3, 17),
          seed: fc.nat(1_000),
        }),
        ({ ms, slowness, gapMs, failEvery, seed }) => {
          expectScoringChangesNothing({ methods: [{ name: '/svc.S/Get', ms }], slowness, calls: 400, gapMs, failEvery, seed });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('with several methods that all take the same time on alike endpoints, picks are bit-identical to "off" (property): what method-pick.ts --stepped-clock measures', () => {
    fc.assert(
      fc.property(
        fc.record({
          // Quarter milliseconds: sums of them are exact in floating point, so every call's elapsed time is exactly its ms.
          quarters: fc.integer({ min: 1, max: 8_000 }),
          gapQuarters: fc.integer({ min: 1, max: 2_000 }),
          endpoints: fc.integer({ min: 1, max: 6 }),
          methodCount: fc.integer({ min: 2, max: 5 }),
          failEvery: fc.constantFrom(0, 3, 17),
          seed: fc.nat(1_000),
        }),
        ({ quarters, gapQuarters, endpoints, methodCount, failEvery, seed }) => {
          const ms = quarters / 4;
          const methods = ['Ping', 'Get', 'List', 'Search', 'Report'].slice(0, methodCount).map((name) => ({ name: `/svc.S/${name}`, ms }));
          expectScoringChangesNothing({ methods, slowness: new Array<number>(endpoints).fill(1), calls: 400, gapMs: gapQuarters / 4, failEvery, seed, jitter: false });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps the faster endpoint visible through a 0.2 ms / 20 ms method mix', () => {
    // Endpoint 1 is 2× slower for every method; a call every 40 ms, so
    // there is rarely more than one call in flight and the pick is the
    // estimates' comparison.
    const workload: Workload = {
      methods: [
        { name: 'ping', ms: 0.2 },
        { name: 'report', ms: 20 },
      ],
      slowness: [1, 2],
      calls: 4_000,
      gapMs: 40,
      failEvery: 0,
      seed: 1,
    };
    // One seed's share swings from 3 % to 18 % (4,000 calls, two endpoints): judge ten together.
    const seeds = Array.from({ length: 10 }, (_, i) => i + 1);
    const slowShare = (scoring: MethodScoring, method: string): number =>
      seeds.reduce((sum, seed) => sum + drive({ ...workload, seed }, scoring).sharesByMethod[method][1], 0) / seeds.length;
    // Without methods a report's peak makes whichever endpoint served it
    // look slow, so the slow endpoint wins calls it should not; scored per
    // method, it keeps little more than its probes (1 in 10 fair shares:
    // 5 %). Measured over seeds 1–10: off ping 12.1 %, report 12.1 %;
    // latency 6.5 %, 6.3 %.
    for (const method of ['ping', 'report']) {
      const off = slowShare('off', method);
      const latency = slowShare('latency', method);
      expect({ method, latencyUnderOff: latency < 0.75 * off, nearTheProbes: latency < 0.08 }).toEqual({ method, latencyUnderOff: true, nearTheProbes: true });
    }
  });

  it('"work": a ping avoids the endpoint busy with a report, whichever endpoint that is', () => {
    /** The picks of 20 pings, with a report in flight on `reportOn` and a ping on the other endpoint. */
    const pingPicks = (reportOn: 0 | 1): number[] => {
      // Both methods' baselines taught on both endpoints (same speed).
      const { engine, loads, ping, report } = taughtPingsAndReports({ methodScoring: 'work' });
      expect(engine.callWeight(report) / engine.callWeight(ping)).toBeGreaterThan(100);
      engine.callStarted(loads[reportOn], engine.callWeight(report), report);
      engine.callStarted(loads[1 - reportOn], engine.callWeight(ping), ping);
      return Array.from({ length: 20 }, () => engine.pick(loads, engine.callWeight(ping)));
    };
    // One call in flight on each: counted in calls, the two cost the same
    // but for their estimates (endpoint 1's is 0.3 % lower after this
    // training), so only counting the work in flight sends every ping away
    // from the report in both orientations.
    expect(pingPicks(0)).toEqual(new Array(20).fill(1));
    expect(pingPicks(1)).toEqual(new Array(20).fill(0));
  });

  it('"work": the weight of the call being placed counts with the work in flight, so a ping and a report part ways', () => {
    // A answers in 10 ms and has a ping in flight; B answers in 1 ms and has
    // a report of weight 2 in flight. Cost = estimate × (work in flight + the
    // call's weight): a ping (0.01) costs 10 × 0.02 = 0.2 on A and 1 × 2.01 on
    // B; a report (2) 10 × 2.01 = 20.1 on A and 1 × 4 on B. Counted as one
    // call whatever its weight, both would cost 10.1 on A and 3 on B: every
    // call, pings too, would queue behind B's report.
    const model = new PeakEwmaModel({ decayMs: 1_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 1, methodScoring: 'work' });
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const [a, b] = [new EndpointLoad(), new EndpointLoad()];
    for (const [load, rttMs] of [
      [a, 10],
      [b, 1],
    ] as const) {
      load.rttMs = rttMs;
      load.sampledAtMs = clock.now();
      load.hasSample = true;
    }
    const [pingWeight, reportWeight] = [0.01, 2];
    engine.callStarted(a, pingWeight);
    engine.callStarted(b, reportWeight);
    expect(Array.from({ length: 20 }, () => engine.pick([a, b], pingWeight))).toEqual(new Array(20).fill(0));
    expect(Array.from({ length: 20 }, () => engine.pick([a, b], reportWeight))).toEqual(new Array(20).fill(1));
  });

  it('"latency", pending-aware: a call in flight waits in units of its weight, so a long report is not read as a stall and a stuck one still is', () => {
    /** Endpoint 0's estimate, and whether it is ejected, `waitedMs` into a report (its only call in flight). */
    const duringReport = (config: object, waitedMs: number) => {
      const { model, engine, clock, loads, report } = taughtPingsAndReports(config);
      const reportWeight = engine.callWeight(report);
      engine.callStarted(loads[0], reportWeight, report);
      clock.advance(waitedMs);
      return {
        reportWeight,
        estimateMs: estimateMs(loads[0], clock.now(), model.settings, model.fleet, model.traffic),
        ejected: model.ejected(loads[0], clock.now()),
        lineMs: model.ejectionLineMs!,
      };
    };
    // The defaults: a report weighs about 1.92 average calls (200 ms against F ≈ 104 ms).
    const at150 = duringReport({}, 150);
    expect(at150.reportWeight).toBeCloseTo(1.92, 2);
    // 150 ms of a report is 78 average-call ms, under the endpoint's own
    // estimate (≈ 100 ms), which stands; read as 150 ms it would be half again
    // the estimate of a peer that is no slower.
    expect(at150.estimateMs).toBeLessThan(101);
    // 250 ms in, the wait is above the estimate: it is the wait divided by the weight (130.5 ms, not 250).
    const at250 = duringReport({}, 250);
    expect(at250.estimateMs).toBeCloseTo(250 / at250.reportWeight, 9);
    // Where the estimate is what ejects ("peak"), the line is 1.5 × F ≈ 156.6 ms:
    // 250 ms into a report it is in, 600 ms into one (313 average-call ms) it is out.
    const peak250 = duringReport({ ejectionSignal: 'peak' }, 250);
    expect(peak250.lineMs).toBeCloseTo(156.6, 1);
    expect(peak250.ejected).toBe(false);
    expect(duringReport({ ejectionSignal: 'peak' }, 600).ejected).toBe(true);
  });

  it('counts in-flight work back to exactly 0 when an endpoint goes idle', () => {
    const model = new PeakEwmaModel({ decayMs: 1_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 1, methodScoring: 'work' });
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model, choiceCount: 2, clock: clock.now, random: seededRandom(1) });
    const load = new EndpointLoad();
    const weights = [0.1, 0.7, 1 / 3];
    const starts = weights.map((w) => engine.callStarted(load, w));
    expect(load.outstandingWork).toBeCloseTo(0.1 + 0.7 + 1 / 3, 12);
    weights.forEach((w, i) => engine.callEnded(load, CallOutcome.SUCCESS, starts[i], w));
    expect(load.outstandingWork).toBe(0);
  });

  it('without a method (no interceptor) or with scoring off, methodOf is undefined and the weight 1', () => {
    const off = new LoadBalancingEngine({
      model: PeakEwmaLoadBalancingConfig.parse({ methodScoring: 'off' }).createModel(),
      choiceCount: 2,
      clock: new ManualClock().now,
      random: seededRandom(1),
    });
    expect(off.methodOf('ping')).toBeUndefined();
    const on = new LoadBalancingEngine({
      model: PeakEwmaLoadBalancingConfig.parse({ methodScoring: 'latency' }).createModel(),
      choiceCount: 2,
      clock: new ManualClock().now,
      random: seededRandom(1),
    });
    expect(on.methodOf(undefined)).toBeUndefined();
    // First seen: no baseline yet, weight 1 (scored as without methods).
    expect(on.callWeight(on.methodOf('ping'))).toBe(1);
  });

  it('resolving a method by its key (the picker\'s way) makes the picks and endpoint numbers that resolving it by name makes (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          slowness: fc.array(fc.double({ min: 0.2, max: 20, noNaN: true }), { minLength: 1, maxLength: 6 }),
          gapMs: fc.double({ min: 0.05, max: 50, noNaN: true }),
          seed: fc.nat(1_000),
        }),
        ({ slowness, gapMs, seed }) => {
          const workload: Workload = { methods: [{ name: 'ping', ms: 0.3 }, { name: 'get', ms: 10 }, { name: 'report', ms: 400 }], slowness, calls: 400, gapMs, failEvery: 7, seed };
          for (const scoring of ['latency', 'work'] as const) {
            const byName = drive(workload, scoring, 'name');
            const byKey = drive(workload, scoring, 'key');
            expect(byKey.picks).toEqual(byName.picks);
            expect(byKey.loads).toEqual(byName.loads);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('a MethodKey', () => {
  const engineWith = (methodScoring: MethodScoring, clock = new ManualClock()) =>
    new LoadBalancingEngine({
      model: PeakEwmaLoadBalancingConfig.parse({ methodScoring }).createModel(),
      choiceCount: 2,
      clock: clock.now,
      random: seededRandom(1),
    });

  it("answers with its balancer's own state, also when two balancers take turns with one key", () => {
    const key = new MethodKey('/svc.S/Get');
    const a = engineWith('latency');
    const b = engineWith('latency');
    const inA = a.methodOfKey(key)!;
    expect(inA).toBe(a.methodOf('/svc.S/Get'));
    const inB = b.methodOfKey(key)!;
    expect(inB).toBe(b.methodOf('/svc.S/Get'));
    expect(inB).not.toBe(inA);
    expect(a.methodOfKey(key)).toBe(inA);
    expect(b.methodOfKey(key)).toBe(inB);
  });

  it('is looked up again once its table dropped the method, and then answers with the new state', () => {
    const clock = new ManualClock();
    const engine = engineWith('latency', clock);
    const key = new MethodKey('/svc.S/Get');
    const first = engine.methodOfKey(key)!;
    expect(engine.methodOfKey(key)).toBe(first);
    engine.model.methods!.dropIdle(METHOD_IDLE_MS);
    expect(first.tracked).toBe(false);
    const second = engine.methodOfKey(key)!;
    expect(second).not.toBe(first);
    expect(second).toBe(engine.methodOf('/svc.S/Get'));
    expect(engine.methodOfKey(key)).toBe(second);
  });

  it('gives nothing with scoring off, and keeps asking while the table is full', () => {
    expect(engineWith('off').methodOfKey(new MethodKey('/svc.S/Get'))).toBeUndefined();
    const engine = engineWith('latency');
    for (let i = 0; i < MAX_TRACKED_METHODS; i++) {
      engine.methodOf(`m${i}`);
    }
    const late = new MethodKey('late');
    expect(engine.methodOfKey(late)).toBeUndefined();
    expect(late.stats).toBeUndefined();
    engine.model.methods!.dropIdle(METHOD_IDLE_MS);
    expect(engine.methodOfKey(late)).toBe(engine.methodOf('late'));
  });
});

/**
 * Four endpoints of equal speed that have served a 1 ms ping and a 50 ms
 * List alike, through the product's defaults with methodScoring "latency".
 * `round` runs 240 ms of traffic in virtual time: endpoint i's calls start
 * at 60·i ms (each ends after its time), so answers arrive spread out and
 * the fleet averages see steady traffic.
 */
function taughtFleet() {
  const config = PeakEwmaLoadBalancingConfig.parse({});
  const model = config.createModel() as PeakEwmaModel;
  const clock = new ManualClock();
  const engine = new LoadBalancingEngine({ model, choiceCount: config.choiceCount, clock: clock.now, random: seededRandom(1) });
  const loads = [0, 1, 2, 3].map(() => new EndpointLoad());
  /** `calls(i)`: the [method, ms] calls endpoint i serves this round. */
  const round = (calls: (i: number) => [string, number][]): void => {
    const roundStartMs = clock.now();
    const running: RunningCall[] = [];
    loads.forEach((load, i) => {
      endCallsUntil(running, roundStartMs + 60 * i, clock, engine);
      clock.set(Math.max(clock.now(), roundStartMs + 60 * i));
      for (const [name, ms] of calls(i)) {
        const method = engine.methodOf(name);
        const weight = engine.callWeight(method);
        running.push({ load, method, weight, startedAtMs: engine.callStarted(load, weight, method), endsAtMs: clock.now() + ms, outcome: CallOutcome.SUCCESS });
      }
    });
    endCallsUntil(running, Infinity, clock, engine);
    clock.set(Math.max(clock.now(), roundStartMs + 240));
  };
  const healthy: [string, number][] = [
    ['ping', 1],
    ['list', 50],
  ];
  // 24 s: the fleet averages have settled (τ = 2 s).
  for (let i = 0; i < 100; i++) {
    round(() => healthy);
  }
  return { model, engine, clock, loads, round, healthy };
}

describe("an answer's evidence: min(1, w)² of an average call's", () => {
  it('weighs 1 without a method or for a method at or above the average call, w² below it', () => {
    const { model, engine } = taughtFleet();
    const ping = engine.methodOf('ping')!;
    const list = engine.methodOf('list')!;
    expect(answerWeight(undefined, model.fleet)).toBe(1);
    expect(model.weightOf(list)).toBeGreaterThan(1);
    expect(answerWeight(list, model.fleet)).toBe(1);
    expect(model.weightOf(ping)).toBeLessThan(0.1);
    expect(answerWeight(ping, model.fleet)).toBe(model.weightOf(ping) ** 2);
    // A method without a baseline yet is scored as an average call.
    expect(answerWeight(new MethodStats('new'), model.fleet)).toBe(1);
  });

  it('a healthy backend whose pings wait 40 ms behind long calls is neither ejected nor priced as slow', () => {
    const { model, clock, loads, round, healthy } = taughtFleet();
    // Normalised, each of these pings is tens of average calls: weighed
    // whole, eight of them would eject the endpoint and leave its peak
    // estimate ten times its peers'. Weighed min(1, w)², they leave it
    // about 2.1 × (1.7 × while the fleet average was weighed by time and
    // sat at 40 ms instead of the 26 ms an average call takes here).
    for (let i = 0; i < 8; i++) {
      round((e) => (e === 0 ? [['ping', 40]] : healthy));
    }
    expect(model.ejected(loads[0], clock.now())).toBe(false);
    expect(loads[0].meanRttMs).toBeLessThan(1.25 * loads[2].meanRttMs);
    expect(loads[0].rttMs).toBeLessThan(2.5 * loads[2].rttMs);
  });

  it('a backend slow for every method is still ejected, on its substantial answers', () => {
    const { model, clock, loads, round, healthy } = taughtFleet();
    for (let i = 0; i < 24; i++) {
      round((e) => (e === 1 ? [['ping', 4], ['list', 200]] : healthy));
    }
    expect(model.ejected(loads[1], clock.now())).toBe(true);
  });

  it("a cheap probe re-admits an ejected backend, and its next whole answer outweighs the probe's", () => {
    const { model, clock, loads, round, healthy } = taughtFleet();
    for (let i = 0; i < 24; i++) {
      round((e) => (e === 1 ? [['list', 200]] : healthy));
    }
    expect(model.ejected(loads[1], clock.now())).toBe(true);
    // Its estimate goes stale while the others serve (1 s and 10 fair shares).
    for (let i = 0; i < 20; i++) {
      round((e) => (e === 1 ? [] : healthy));
    }
    expect(model.ejected(loads[1], clock.now())).toBe(false);
    // The probe is a ping, a lucky one: the endpoint is back in...
    round((e) => (e === 1 ? [['ping', 1]] : []));
    expect(model.ejected(loads[1], clock.now())).toBe(false);
    // ...until its next List, 4× slow as before, which weighs as a whole
    // answer against the ping's w²: M is back above 1.8 × F at once. Were
    // the probe a whole answer, M would be halfway between the two, under
    // the line, and the endpoint in for more.
    round((e) => (e === 1 ? [['list', 200]] : []));
    expect(model.ejected(loads[1], clock.now())).toBe(true);
  });
});

describe("a method's baseline", () => {
  it('reuses the fleet average\'s decay when it steps alike, and stays bit-identical to computing its own (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 400 }), sampleMs: fc.double({ min: 0.01, max: 2_000, noNaN: true }), ofMethod: fc.boolean() }), { maxLength: 60 }), fc.integer({ min: 100, max: 10_000 }), (steps, decayMs) => {
        const fleet = new FleetRtt();
        const alike = new FleetRtt();
        const own = new FleetRtt();
        let nowMs = 0;
        for (const { gapMs, sampleMs, ofMethod } of steps) {
          nowMs += gapMs;
          fleet.record(sampleMs, nowMs, decayMs);
          // The method's baseline takes only its own calls, so its steps are sometimes the fleet's, sometimes longer.
          if (ofMethod) {
            alike.record(sampleMs, nowMs, decayMs, fleet);
            own.record(sampleMs, nowMs, decayMs);
          }
        }
        expect(alike.rttMs).toBe(own.rttMs);
        expect(alike.sampledAtMs).toBe(own.sampledAtMs);
      }),
    );
  });
});

describe('MethodTable bounds', () => {
  it(`tracks at most ${MAX_TRACKED_METHODS} methods; further ones are untracked until idle ones are dropped`, () => {
    const table = new MethodTable();
    for (let i = 0; i < MAX_TRACKED_METHODS; i++) {
      expect(table.add(`m${i}`, 0)).toBeDefined();
    }
    expect(table.add('one-too-many', 1_000)).toBeUndefined();
    expect(table.size).toBe(MAX_TRACKED_METHODS);
    // m0 stays in use; the others go idle.
    table.get('m0')!.lastSeenMs = METHOD_IDLE_MS;
    expect(table.add('late', METHOD_IDLE_MS + 1)).toBeDefined();
    // Full again soon after: no sweep before idleMs / 4 has passed since the last.
    for (let i = 0; table.size < MAX_TRACKED_METHODS; i++) {
      table.add(`again${i}`, METHOD_IDLE_MS + 2);
    }
    table.get('late')!.lastSeenMs = 0;
    expect(table.add('too-soon', METHOD_IDLE_MS + 3)).toBeUndefined();
    expect(table.get('late')).toBeDefined();
    expect(table.get('m0')).toBeDefined();
    expect(table.get('m1')).toBeUndefined();
  });

  it('never answers from its last-looked-up cache for a method it has dropped', () => {
    const table = new MethodTable();
    table.add('cached', 0);
    expect(table.get('cached')).toBeDefined();
    expect(table.get('cached')).toBe(table.get('cached'));
    table.dropIdle(METHOD_IDLE_MS);
    expect(table.size).toBe(0);
    expect(table.get('cached')).toBeUndefined();
    // Re-added: the new state, not the dropped one.
    const fresh = table.add('cached', METHOD_IDLE_MS + 1);
    expect(table.get('cached')).toBe(fresh);
  });

  it('top(n) lists the most called methods first, at most n', () => {
    const table = new MethodTable();
    ['a', 'b', 'c'].forEach((name, i) => {
      table.add(name, 0)!.calls = i;
    });
    expect(table.top(2).map((m) => m.name)).toEqual(['c', 'b']);
  });
});

describe('a method mix widens the choice (mixedChoiceCount)', () => {
  /** A table whose methods have learnt fleet averages of `typicalMs`. */
  function tableOf(typicalMs: readonly number[]): MethodTable {
    const table = new MethodTable();
    typicalMs.forEach((ms, i) => table.add(`m${i}`, 0)!.fleet.record(ms, 0, 2_000));
    return table;
  }

  it(`is a mix when the tracked methods' averages are ${MIX_RATIO}× apart or more, judged every ${MIX_CHECK_CALLS} calls or ${MIX_CHECK_MS} ms`, () => {
    expect(tableOf([10]).mixed(0)).toBe(false);
    expect(tableOf([10, 39]).mixed(0)).toBe(false);
    expect(tableOf([10, 40]).mixed(0)).toBe(true);
    expect(tableOf([1, 10, 50, 200, 1_000]).mixed(0)).toBe(true);
    // A method without a baseline yet says nothing.
    const table = tableOf([10]);
    table.add('new', 0);
    expect(table.mixed(0)).toBe(false);
    // Learnt later, it counts at the next judgement, not before: after MIX_CHECK_CALLS calls...
    table.get('new')!.fleet.record(100, 0, 2_000);
    for (let i = 1; i < MIX_CHECK_CALLS; i++) {
      expect(table.mixed(1)).toBe(false);
    }
    expect(table.mixed(1)).toBe(true);
    expect(table.judgedMixed).toBe(true);
    // ...or MIX_CHECK_MS, for a service that places fewer calls.
    const slow = tableOf([10]);
    expect(slow.mixed(0)).toBe(false);
    slow.add('report', 0)!.fleet.record(1_000, 0, 2_000);
    expect(slow.mixed(MIX_CHECK_MS - 1)).toBe(false);
    expect(slow.mixed(MIX_CHECK_MS)).toBe(true);
  });

  /** An engine over ten endpoints with `overrides`, and a call of `name` taking `ms`, started and ended at once. */
  function methodEngine(overrides: Record<string, unknown> = {}) {
    const config = PeakEwmaLoadBalancingConfig.parse(overrides);
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: config.createModel(), choiceCount: config.choiceCount, clock: clock.now, random: seededRandom(3) });
    const loads = Array.from({ length: 10 }, () => new EndpointLoad());
    const call = (name: string, ms: number): void => {
      const method = engine.methodOf(name);
      const weight = engine.callWeight(method);
      const load = loads[engine.pick(loads, weight)];
      const startedAt = engine.callStarted(load, weight, method);
      clock.advance(ms);
      engine.callEnded(load, CallOutcome.SUCCESS, startedAt, weight, method);
    };
    return { engine, clock, loads, call };
  }

  it(`stops being a mix once the method that made it has been idle for ${METHOD_IDLE_MS / 1_000} s, with no new method to sweep it`, () => {
    // One slow report at start-up, then only pings: the report's table entry
    // must not keep ten candidates per pick for the channel's life.
    const { engine, clock, call } = methodEngine();
    const config = PeakEwmaLoadBalancingConfig.parse({});
    for (let i = 0; i < 50; i++) {
      call('/s/Ping', 5);
    }
    call('/s/Report', 200);
    for (let i = 0; i < 300; i++) {
      call('/s/Ping', 5);
    }
    const mixedCount = engine.model.mixedChoiceCount!;
    expect(mixedCount).toBeGreaterThan(config.choiceCount);
    expect(engine.candidatesPerPick).toBe(mixedCount);
    // Pings every 100 ms until just before the report has been idle for METHOD_IDLE_MS: still a mix...
    const reportSeenMs = engine.model.methods!.get('/s/Report')!.lastSeenMs;
    while (clock.now() + 100 < reportSeenMs + METHOD_IDLE_MS) {
      clock.advance(95);
      call('/s/Ping', 5);
    }
    expect(engine.candidatesPerPick).toBe(mixedCount);
    expect(engine.model.methods!.get('/s/Report')).toBeDefined();
    // ...and within a sweep interval (idleMs / 4) and a judgement after it, not.
    const deadlineMs = reportSeenMs + METHOD_IDLE_MS * 1.25 + MIX_CHECK_MS;
    while (clock.now() < deadlineMs) {
      clock.advance(95);
      call('/s/Ping', 5);
    }
    expect(engine.model.methods!.get('/s/Report')).toBeUndefined();
    expect(engine.model.methods!.top(10).map((m) => m.name)).toEqual(['/s/Ping']);
    expect(engine.candidatesPerPick).toBe(config.choiceCount);
  });

  it('keeps a method whose one call runs longer than the idle time, and its answer makes the mix', () => {
    // Pings every 100 ms beside a 150 s export: the export must not be dropped mid-call.
    const { engine, clock, loads, call } = methodEngine();
    call('/s/Ping', 5);
    const exportMethod = engine.methodOf('/s/Export')!;
    const exportLoad = loads[engine.pick(loads, engine.callWeight(exportMethod))];
    const exportStart = engine.callStarted(exportLoad, engine.callWeight(exportMethod), exportMethod);
    while (clock.now() - exportStart < 150_000) {
      clock.advance(95);
      call('/s/Ping', 5);
    }
    engine.callEnded(exportLoad, CallOutcome.SUCCESS, exportStart, engine.callWeight(exportMethod), exportMethod);
    expect(engine.model.methods!.get('/s/Export')).toBe(exportMethod);
    expect(exportMethod.fleet.hasSample).toBe(true);
    for (let i = 0; i < 20; i++) {
      clock.advance(95);
      call('/s/Ping', 5);
    }
    expect(engine.candidatesPerPick).toBe(engine.model.mixedChoiceCount);
  });

  it('drops an idle method from the stats also where no mix can widen the choice (mixedChoiceCount 2)', () => {
    const { engine, clock, call } = methodEngine({ mixedChoiceCount: 2 });
    call('/s/Report', 200);
    while (clock.now() < METHOD_IDLE_MS * 1.25 + 1_000) {
      clock.advance(95);
      call('/s/Ping', 5);
    }
    expect(engine.model.methods!.top(10).map((m) => m.name)).toEqual(['/s/Ping']);
  });

  /**
   * Share of picks that go to the one idle endpoint of 20 alike ones (the
   * others have one call in flight each), plain draws (no rotation): 2/20
   * with two candidates, 10/20 with ten.
   */
  function idleShare(methodsMs: readonly number[], mixedChoiceCount: number): number {
    const config = PeakEwmaLoadBalancingConfig.parse({ rotationGate: 0, rotationMargin: 0, mixedChoiceCount });
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: config.createModel(), choiceCount: config.choiceCount, clock: clock.now, random: seededRandom(7) });
    const loads = Array.from({ length: 20 }, () => new EndpointLoad());
    // Every endpoint answers each method twice (a first answer alone is provisional: first-answer.ts), in the
    // method's time: alike estimates, and the methods' baselines.
    for (const load of [...loads, ...loads]) {
      methodsMs.forEach((ms, i) => {
        const method = engine.methodOf(`m${i}`);
        const startedAt = engine.callStarted(load, engine.callWeight(method), method);
        clock.advance(ms);
        engine.callEnded(load, CallOutcome.SUCCESS, startedAt, engine.callWeight(method), method);
      });
    }
    loads.slice(1).forEach((load) => engine.callStarted(load));
    let idle = 0;
    const picks = 4_000;
    for (let i = 0; i < picks; i++) {
      idle += engine.pick(loads) === 0 ? 1 : 0;
    }
    return idle / picks;
  }

  it('compares mixedChoiceCount candidates per pick while the methods are a mix, choiceCount otherwise', () => {
    // Pick shares at seed 7 (4,000 picks): 0.10 expected with 2 candidates, 0.50 with 10.
    expect(idleShare([1, 200], 10)).toBeGreaterThan(0.45);
    expect(idleShare([1, 200], 2)).toBeLessThan(0.13);
    expect(idleShare([10, 12], 10)).toBeLessThan(0.13);
    expect(idleShare([10], 10)).toBeLessThan(0.13);
  });
});
