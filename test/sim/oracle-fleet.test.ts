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

describe('OracleFleetView', () => {
  it('answers as a fresh computation after every change, cached or not', () => {
    const scheduler = new VirtualScheduler();
    const random = seededRandom(3);
    const backends = [0, 1, 2].map(
      (id) =>
        new BackendModel({
          scheduler,
          random: seededRandom(10 + id),
          behaviour: { slots: 2 + id, gcPeriodMs: id === 1 ? 50 : 0, gcPauseMs: id === 1 ? 5 : 0 },
          onReply: () => undefined,
        }),
    );
    const view = new OracleFleetView(backends);
    let callId = 0;
    let checked = 0;
    for (let step = 0; step < 3000; step++) {
      const nowMs = step * 0.7;
      scheduler.runUntil(nowMs);
      if (random() < 0.6) {
        const id = Math.floor(random() * backends.length);
        backends[id].submit(callId++, 5 + 10 * random(), nowMs + 40 * random());
      }
      if (step === 1500) {
        backends[2].setBehaviour({ slots: 1, latencyFactor: 3 });
      }
      for (let id = 0; id < backends.length; id++) {
        // Twice: the second answer comes from the cache when the backend is busy.
        expect(view.startTimeMs(id, nowMs)).toBe(naiveStartMs(backends[id], nowMs));
        expect(view.startTimeMs(id, nowMs)).toBe(naiveStartMs(backends[id], nowMs));
        expect(view.meanServiceMs(id, 7)).toBe(meanServiceMs(backends[id].behaviour, 7));
        const doneMs = backends[id].gcPauseEndMs(naiveStartMs(backends[id], nowMs) + meanServiceMs(backends[id].behaviour, 7));
        expect(view.expectedDoneMs(id, nowMs, 7)).toBe(doneMs);
        expect(view.expectedDoneMs(id, nowMs, 7)).toBe(doneMs);
        checked++;
      }
    }
    expect(checked).toBe(9000);
    expect(backends.some((b) => b.queueLength > 0) || callId > 1000).toBe(true);
  });

  it('recomputes capacity when the behaviour or the median changes', () => {
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
