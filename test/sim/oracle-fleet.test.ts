import fc from 'fast-check';
import { BackendModel } from '../../scripts/model/backend';
import { meanServiceMs } from '../../scripts/model/capacity';
import { VirtualScheduler } from '../../scripts/model/virtual-scheduler';
import { OracleFleetView, sortAscending } from '../../scripts/sim/oracle-fleet';
import { seededRandom } from '../../src/core/random';

/** The oracle's start time computed from scratch, as before the view cached it. */
function naiveStartMs(backend: BackendModel, nowMs: number): number {
  const slots = backend.behaviour.slots;
  if (slots === 0 || (backend.inService < slots && backend.queueLength === 0)) {
    return nowMs;
  }
  const buffer = new Float64Array(4096);
  const count = backend.serviceEndTimes(buffer);
  const ends = buffer.subarray(0, count).sort();
  const free: number[] = [];
  for (let j = 0; j < slots; j++) {
    const at = count - slots + j;
    free.push(at < 0 ? nowMs : backend.gcPauseEndMs(ends[at]));
  }
  for (let q = 0; q < backend.queueLength; q++) {
    const slot = free.indexOf(Math.min(...free));
    if (backend.queuedDeadlineMs(q) > free[slot]) {
      free[slot] += meanServiceMs(backend.behaviour, backend.queuedMedianMs(q));
    }
  }
  return Math.min(...free);
}

describe('sortAscending', () => {
  it('sorts a prefix in place like TypedArray sort, leaving the rest', () => {
    const random = seededRandom(7);
    for (const count of [0, 1, 2, 8, 64, 65, 200]) {
      const values = Float64Array.from({ length: count + 3 }, () => Math.floor(random() * 50));
      const expected = Float64Array.from(values.subarray(0, count)).sort();
      const tail = Array.from(values.subarray(count));
      sortAscending(values, count);
      expect(Array.from(values.subarray(0, count))).toEqual(Array.from(expected));
      expect(Array.from(values.subarray(count))).toEqual(tail);
    }
  });
});

/** The oracle's cost from scratch: expected response time, Infinity when not serving. */
function naiveResponseCostMs(backend: BackendModel, nowMs: number, medianMs: number): number {
  const behaviour = backend.behaviour;
  if (behaviour.mode !== 'normal') {
    return Infinity;
  }
  const doneMs = backend.gcPauseEndMs(naiveStartMs(backend, nowMs) + meanServiceMs(behaviour, medianMs));
  return (doneMs - nowMs + behaviour.extraDelayMs) / (1 - behaviour.errorRate);
}

function naiveCapacityCost(backend: BackendModel, medianMs: number): number {
  const behaviour = backend.behaviour;
  if (behaviour.mode !== 'normal') {
    return Infinity;
  }
  const slots = behaviour.slots === 0 ? Infinity : behaviour.slots;
  let perMs = (slots / meanServiceMs(behaviour, medianMs)) * (1 - behaviour.errorRate);
  if (behaviour.gcPeriodMs > 0) {
    perMs *= 1 - behaviour.gcPauseMs / behaviour.gcPeriodMs;
  }
  return (backend.inService + backend.queueLength + 1) / perMs;
}

describe('OracleFleetView', () => {
  it('answers exactly as a fresh computation after every change, from its cache or not', () => {
    const scheduler = new VirtualScheduler();
    const random = seededRandom(3);
    const makeBackend = (id: number): BackendModel =>
      new BackendModel({
        scheduler,
        random: seededRandom(10 + id),
        behaviour: { slots: 2 + (id % 3), gcPeriodMs: id === 1 ? 50 : 0, gcPauseMs: id === 1 ? 5 : 0, extraDelayMs: id === 0 ? 2 : 0 },
        onReply: () => undefined,
      });
    const backends = [0, 1, 2].map(makeBackend);
    const view = new OracleFleetView(backends);
    let callId = 0;
    let checked = 0;
    // Checks made while a backend had calls waiting, and while every slot was busy (the cached "every slot busy" case).
    let queued = 0;
    let full = 0;
    const mismatches: string[] = [];
    for (let step = 0; step < 3000; step++) {
      const nowMs = step * 0.7;
      scheduler.runUntil(nowMs);
      if (random() < 0.6) {
        const id = Math.floor(random() * backends.length);
        backends[id].submit(callId++, 5 + 10 * random(), nowMs + 40 * random());
      }
      if (step === 1000) {
        // A backend the view has not seen yet (scenarios add backends mid-run).
        backends.push(makeBackend(3));
      }
      if (step === 1500) {
        backends[2].setBehaviour({ slots: 1, latencyFactor: 3, errorRate: 0.2 });
      }
      if (step === 2000) {
        backends[0].setBehaviour({ mode: 'unavailable' });
      }
      if (step === 2500) {
        backends[0].setBehaviour({ mode: 'normal' });
      }
      // Two methods, so the cache also has to follow the median.
      const medianMs = step % 3 === 0 ? 7 : 11;
      for (let id = 0; id < backends.length; id++) {
        const expected = [
          naiveResponseCostMs(backends[id], nowMs, medianMs),
          naiveCapacityCost(backends[id], medianMs),
          naiveStartMs(backends[id], nowMs),
        ];
        // Twice: the second answer comes from the cache.
        for (let twice = 0; twice < 2; twice++) {
          const actual = [view.responseCosts([id], nowMs, medianMs)[id], view.capacityCosts(medianMs)[id], view.startTimeMs(id, nowMs)];
          if (!actual.every((value, i) => Object.is(value, expected[i]))) {
            mismatches.push(`step ${step} backend ${id}: ${actual.join(' ')} vs ${expected.join(' ')}`);
          }
        }
        checked++;
        queued += backends[id].queueLength > 0 ? 1 : 0;
        full += backends[id].behaviour.slots > 0 && backends[id].inService >= backends[id].behaviour.slots ? 1 : 0;
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(checked).toBe(3 * 1000 + 4 * 2000);
    // The run exercised queues and full backends, not only idle ones: a call every 1.2 ms on average (0.6 per
    // 0.7 ms step) of ~10 ms over 3–4 backends of 2–4 slots is about full load. Of the 11,000 checks, 6,152
    // saw calls waiting and 7,780 every slot busy (seed 3); over a quarter each is the floor.
    expect(queued).toBeGreaterThan(checked / 4);
    expect(full).toBeGreaterThan(checked / 4);
    // And every backend dropped queued calls whose deadline passed (the start-time rule's deadline branch).
    expect(backends.map((b) => b.counters.skipped > 0)).toEqual([true, true, true, true]);
  });

  it('computes capacity from the behaviour and the median', () => {
    const scheduler = new VirtualScheduler();
    const backend = new BackendModel({ scheduler, random: seededRandom(1), behaviour: { slots: 4, sigma: 0 }, onReply: () => undefined });
    const view = new OracleFleetView([backend]);
    expect(view.capacityPerMs(0, 10)).toBeCloseTo(0.4, 12);
    expect(view.capacityPerMs(0, 20)).toBeCloseTo(0.2, 12);
    backend.setBehaviour({ errorRate: 0.5 });
    expect(view.capacityPerMs(0, 20)).toBeCloseTo(0.1, 12);
    backend.setBehaviour({ slots: 0 });
    expect(view.capacityPerMs(0, 20)).toBe(Infinity);
  });
});

describe('OracleFleetView GC pause ranges', () => {
  /** Times near the pause edges of a backend, where a cached range is most likely to be wrong. */
  const edgeTimesMs = (periodMs: number, pauseMs: number, phaseMs: number, cycles: number[]): number[] =>
    cycles.flatMap((k) => {
      const startMs = k * periodMs - phaseMs;
      return [startMs, startMs + pauseMs].flatMap((edgeMs) => [edgeMs, edgeMs * (1 - 1e-15), edgeMs * (1 + 1e-15), edgeMs - 1e-9, edgeMs + 1e-9]);
    });

  it('ends a pause exactly as the backend does, from the cached quiet range or not', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 20_000, noNaN: true }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0, max: 10_000, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 6 }),
        (gcPeriodMs, pauseShare, gcPhaseMs, randomTimesMs, cycles) => {
          const gcPauseMs = gcPeriodMs * pauseShare;
          fc.pre(gcPauseMs > 0 && gcPauseMs < gcPeriodMs);
          const backend = new BackendModel({
            scheduler: new VirtualScheduler(),
            random: seededRandom(1),
            behaviour: { gcPeriodMs, gcPauseMs },
            gcPhaseMs,
            onReply: () => undefined,
          });
          const view = new OracleFleetView([backend]);
          // Idle, so a call starts at once and is done at gcPauseEndMs(start + mean).
          const meanMs = view.meanServiceMs(0, 10);
          const timesMs = [...randomTimesMs, ...edgeTimesMs(gcPeriodMs, gcPauseMs, gcPhaseMs, cycles)].map((t) => t - meanMs);
          // In order and back again: the range is found going either way.
          for (const nowMs of [...timesMs, ...timesMs.slice().reverse(), ...timesMs.slice().sort((a, b) => a - b)]) {
            const expected = backend.gcPauseEndMs(nowMs + meanMs);
            expect(view.expectedDoneMs(0, nowMs, 10)).toBe(expected);
            expect(view.responseCosts([0], nowMs, 10)[0]).toBe(expected - nowMs);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
