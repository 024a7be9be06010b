/**
 * The engine end to end in virtual time: picks, calls, samples.
 */
import fc from 'fast-check';
import {
  CallOutcome,
  EndpointLoad,
  leastRequestModel,
  LoadBalancingEngine,
  ManualClock,
  PeakEwmaModel,
  PeakEwmaSettings,
  seededRandom,
} from '../../src/core';

const SETTINGS: PeakEwmaSettings = { decayMs: 1_000, defaultRttMs: 10, penaltyValue: 1e6, errorPenaltyFactor: 1 };

function makeEngine(settings = SETTINGS, seed = 1, choiceCount = 2) {
  const clock = new ManualClock();
  const engine = new LoadBalancingEngine({
    model: new PeakEwmaModel(settings),
    choiceCount,
    clock: clock.now,
    random: seededRandom(seed),
  });
  return { clock, engine };
}

/** Runs one call on `load` lasting `rttMs` of virtual time. */
function runCall(engine: LoadBalancingEngine, clock: ManualClock, load: EndpointLoad, rttMs: number) {
  const startedAt = engine.callStarted(load);
  clock.advance(rttMs);
  engine.callEnded(load, CallOutcome.SUCCESS, startedAt);
}

describe('LoadBalancingEngine with peak EWMA', () => {
  it('jumps to a slow sample at once and steers picks away from it', () => {
    const { clock, engine } = makeEngine();
    const loads = [new EndpointLoad(), new EndpointLoad()];
    runCall(engine, clock, loads[0], 5);
    runCall(engine, clock, loads[1], 5);
    runCall(engine, clock, loads[1], 200);
    expect(loads[1].rttMs).toBe(200);
    for (let i = 0; i < 100; i++) {
      expect(engine.pick(loads)).toBe(0);
    }
  });

  it('probes an endpoint it stopped picking once its estimate has decayed, and it recovers', () => {
    const { clock, engine } = makeEngine({ ...SETTINGS, decayMs: 1_000 });
    const fast = new EndpointLoad();
    const slow = new EndpointLoad();
    const loads = [fast, slow];
    runCall(engine, clock, slow, 200);
    runCall(engine, clock, fast, 10);
    // The slow endpoint is now fast again, but only a pick will find out.
    let slowPicks = 0;
    let firstProbeAtMs = -1;
    for (let t = 0; t < 10_000; t += 10) {
      const chosen = loads[engine.pick(loads)];
      if (chosen === slow) {
        slowPicks++;
        if (firstProbeAtMs < 0) firstProbeAtMs = clock.now();
      }
      runCall(engine, clock, chosen, 10);
    }
    // 200 ms decays below the fast endpoint's ~10 ms after about τ·ln(20) ≈ 3 s.
    expect(firstProbeAtMs).toBeGreaterThan(2_000);
    expect(firstProbeAtMs).toBeLessThan(4_500);
    expect(slowPicks).toBeGreaterThan(100);
  });

  it('gives the same estimates whether costs were read never or on every millisecond', () => {
    const samples = [12, 40, 8, 9, 300, 11, 10, 10, 55, 9];
    const run = (readsBetween: number) => {
      const { clock, engine } = makeEngine();
      const load = new EndpointLoad();
      for (const rtt of samples) {
        const startedAt = engine.callStarted(load);
        for (let i = 0; i < readsBetween; i++) {
          clock.advance(rtt / Math.max(readsBetween, 1));
          engine.costOf(load);
          engine.pick([load, new EndpointLoad()]);
        }
        if (readsBetween === 0) clock.advance(rtt);
        engine.callEnded(load, CallOutcome.SUCCESS, startedAt);
        clock.advance(37);
      }
      return [load.rttMs, load.sampledAtMs];
    };
    const never = run(0);
    expect(run(1)).toEqual(never.map((x) => expect.closeTo(x, 9)));
    expect(run(1_000)).toEqual(never.map((x) => expect.closeTo(x, 9)));
  });

  it('probes a new endpoint one call at a time: once a call is in flight it costs penaltyValue + outstanding', () => {
    const { engine } = makeEngine();
    const warm = new EndpointLoad();
    warm.hasSample = true;
    warm.rttMs = 50;
    const fresh = new EndpointLoad();
    const loads = [warm, fresh];
    expect(loads[engine.pick(loads)]).toBe(fresh); // 10 ms prior beats 50 ms
    engine.callStarted(fresh);
    for (let i = 0; i < 50; i++) {
      const chosen = loads[engine.pick(loads)];
      expect(chosen).toBe(warm);
      engine.callStarted(chosen);
    }
  });

  it('never lets outstanding go negative nor the estimate leave [0, ∞) (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            op: fc.constantFrom('start', 'end', 'pick', 'wait'),
            endpoint: fc.nat(3),
            ms: fc.double({ min: 0, max: 1e7, noNaN: true }),
            outcome: fc.constantFrom(
              CallOutcome.SUCCESS,
              CallOutcome.FAILURE,
              CallOutcome.DEADLINE_EXCEEDED,
              CallOutcome.CANCELLED,
            ),
          }),
          { maxLength: 200 },
        ),
        fc.double({ min: 1e-3, max: 3.6e6, noNaN: true }),
        fc.double({ min: 1, max: 1_000, noNaN: true }),
        (ops, decayMs, errorPenaltyFactor) => {
          const { clock, engine } = makeEngine({ ...SETTINGS, decayMs, errorPenaltyFactor });
          const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
          const starts: number[][] = [[], [], [], []];
          for (const { op, endpoint, ms, outcome } of ops) {
            const load = loads[endpoint];
            if (op === 'start') starts[endpoint].push(engine.callStarted(load));
            else if (op === 'end') engine.callEnded(load, outcome, starts[endpoint].pop() ?? clock.now() - ms);
            else if (op === 'pick') expect(engine.pick(loads)).toBeGreaterThanOrEqual(0);
            else clock.advance(ms);
            for (const l of loads) {
              expect(l.outstanding).toBeGreaterThanOrEqual(0);
              const cost = engine.costOf(l);
              expect(Number.isFinite(cost)).toBe(true);
              expect(cost).toBeGreaterThanOrEqual(0);
              expect(Number.isFinite(l.rttMs)).toBe(true);
              expect(l.rttMs).toBeGreaterThanOrEqual(0);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is deterministic: same seed, same picks', () => {
    const picks = (seed: number) => {
      const { engine } = makeEngine(SETTINGS, seed);
      const loads = Array.from({ length: 10 }, () => new EndpointLoad());
      return Array.from({ length: 100 }, () => engine.pick(loads));
    };
    expect(picks(5)).toEqual(picks(5));
    expect(picks(5)).not.toEqual(picks(6));
  });
});

describe('clock reads on the call path', () => {
  function countingClock() {
    const counter = { reads: 0, nowMs: 0 };
    return { counter, clock: () => (counter.reads++, (counter.nowMs += 1)) };
  }

  function runCalls(engine: LoadBalancingEngine, calls: number) {
    const loads = [new EndpointLoad(), new EndpointLoad(), new EndpointLoad()];
    for (let i = 0; i < calls; i++) {
      const load = loads[engine.pick(loads)];
      engine.callEnded(load, CallOutcome.SUCCESS, engine.callStarted(load));
    }
    return loads;
  }

  it('peak EWMA reads the clock three times per call: pick, start, end', () => {
    const { counter, clock } = countingClock();
    const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(SETTINGS), choiceCount: 2, clock, random: seededRandom(1) });
    runCalls(engine, 100);
    expect(counter.reads).toBe(300);
  });

  it('least_request, whose cost ignores time, reads it never', () => {
    const { counter, clock } = countingClock();
    const engine = new LoadBalancingEngine({ model: leastRequestModel, choiceCount: 2, clock, random: seededRandom(1) });
    const loads = runCalls(engine, 100);
    expect(counter.reads).toBe(0);
    expect(loads.reduce((sum, load) => sum + load.callsStarted, 0)).toBe(100);
    expect(loads.every((load) => load.outstanding === 0)).toBe(true);
  });
});
