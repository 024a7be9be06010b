import { BackendModel, ReplyStatus, STATUS_OK, STATUS_RESOURCE_EXHAUSTED, STATUS_UNAVAILABLE } from '../../scripts/model/backend';
import { Behaviour, checkBehaviour, DEFAULT_BEHAVIOUR } from '../../scripts/model/behaviour';
import { behaviourAtSlots } from '../../scripts/model/roles';
import { CallbackBackend } from '../../scripts/model/callback-backend';
import { VirtualScheduler } from '../../scripts/model/virtual-scheduler';
import { seededRandom } from '../../src/core/random';

/** A backend with fixed service times (σ = 0) that records who answered when. */
function harness(behaviour: Partial<Behaviour>, gcPhaseMs = 0) {
  const scheduler = new VirtualScheduler();
  const replies: Array<{ callId: number; status: ReplyStatus; atMs: number }> = [];
  const backend = new BackendModel({
    scheduler,
    random: seededRandom(1),
    behaviour: { sigma: 0, ...behaviour },
    gcPhaseMs,
    onReply: (callId, status) => replies.push({ callId, status, atMs: scheduler.nowMs() }),
  });
  return { scheduler, backend, replies };
}

describe('BackendModel', () => {
  it('serves `slots` calls at once and queues the rest FIFO', () => {
    const { scheduler, backend, replies } = harness({ slots: 2 });
    for (let id = 0; id < 5; id++) {
      backend.submit(id, 10, Infinity);
    }
    expect(backend.inService).toBe(2);
    expect(backend.queueLength).toBe(3);
    scheduler.runUntil(1000);
    expect(replies.map((r) => [r.callId, r.atMs])).toEqual([
      [0, 10],
      [1, 10],
      [2, 20],
      [3, 20],
      [4, 30],
    ]);
    expect(backend.counters).toMatchObject({ arrivals: 5, served: 5, failed: 0, skipped: 0 });
  });

  it('skips a queued call whose deadline passed before it reached a slot, with no reply', () => {
    const { scheduler, backend, replies } = harness({ slots: 1 });
    backend.submit(0, 10, Infinity);
    backend.submit(1, 10, 5); // gives up at 5 ms, slot frees at 10 ms
    backend.submit(2, 10, 100);
    scheduler.runUntil(1000);
    expect(replies.map((r) => [r.callId, r.atMs])).toEqual([
      [0, 10],
      [2, 20],
    ]);
    expect(backend.counters.skipped).toBe(1);
  });

  it('lets a call in service finish after its deadline, holding the slot', () => {
    const { scheduler, backend, replies } = harness({ slots: 1 });
    backend.submit(0, 10, 3);
    backend.submit(1, 10, Infinity);
    scheduler.runUntil(1000);
    expect(replies.map((r) => [r.callId, r.atMs])).toEqual([
      [0, 10],
      [1, 20],
    ]);
  });

  it('answers errors at once, before queueing and without a slot', () => {
    const { scheduler, backend, replies } = harness({ slots: 1, errorRate: 1 });
    backend.submit(0, 10, Infinity);
    backend.submit(1, 10, Infinity);
    expect(replies).toEqual([
      { callId: 0, status: STATUS_UNAVAILABLE, atMs: 0 },
      { callId: 1, status: STATUS_UNAVAILABLE, atMs: 0 },
    ]);
    expect(backend.inService).toBe(0);
    backend.setBehaviour({ errorRate: 0, mode: 'unavailable' });
    backend.submit(2, 10, Infinity);
    expect(replies[2]).toEqual({ callId: 2, status: STATUS_UNAVAILABLE, atMs: 0 });
    scheduler.runUntil(100);
    expect(backend.counters.failed).toBe(3);
  });

  it('fails about errorRate of the calls', () => {
    const { scheduler, backend, replies } = harness({ slots: 0, errorRate: 0.05 });
    for (let id = 0; id < 20_000; id++) {
      backend.submit(id, 1, Infinity);
    }
    scheduler.runUntil(100);
    const failed = replies.filter((r) => r.status === STATUS_UNAVAILABLE).length;
    expect(failed / 20_000).toBeCloseTo(0.05, 2);
  });

  it('black hole: accepts, takes no slot, never answers; healed, it serves again', () => {
    const { scheduler, backend, replies } = harness({ slots: 1, mode: 'blackhole' });
    backend.submit(0, 10, Infinity);
    backend.submit(1, 10, Infinity);
    expect(backend.inService).toBe(0);
    expect(backend.queueLength).toBe(0);
    backend.setBehaviour({ mode: 'normal' });
    backend.submit(2, 10, Infinity);
    scheduler.runUntil(1000);
    expect(replies).toEqual([{ callId: 2, status: STATUS_OK, atMs: 10 }]);
    expect(backend.counters.blackholed).toBe(2);
  });

  it('GC gate: a call ending inside a pause completes when the pause ends; arrivals still start', () => {
    // period 1000, pause 100, phase 0: paused in [0,100), [1000,1100), ...
    const { scheduler, backend, replies } = harness({ slots: 2, gcPeriodMs: 1000, gcPauseMs: 100 });
    scheduler.runUntil(990);
    backend.submit(0, 20, Infinity); // service ends at 1010, inside the pause
    scheduler.runUntil(1050);
    backend.submit(1, 10, Infinity); // a slot is free: starts now, ends 1060, held to 1100
    backend.submit(2, 10, Infinity); // both slots busy: queued
    expect(backend.queueLength).toBe(1);
    scheduler.runUntil(5000);
    expect(replies.map((r) => [r.callId, r.atMs])).toEqual([
      [0, 1100],
      [1, 1100],
      [2, 1110],
    ]);
    expect(backend.gcPauseEndMs(2050)).toBe(2100);
    expect(backend.gcPauseEndMs(2150)).toBe(2150);
  });

  it('draws the GC phase in [0, 10 s) when not given', () => {
    const scheduler = new VirtualScheduler();
    const phases = Array.from({ length: 50 }, (_, seed) =>
      new BackendModel({ scheduler, random: seededRandom(seed), onReply: () => {} }).gcPhaseMs,
    );
    expect(Math.min(...phases)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...phases)).toBeLessThan(10_000);
    expect(new Set(phases).size).toBeGreaterThan(40);
  });

  it('delays the answer by extraDelayMs after the slot is released', () => {
    const { scheduler, backend, replies } = harness({ slots: 1, extraDelayMs: 2 });
    backend.submit(0, 10, Infinity);
    backend.submit(1, 10, Infinity);
    scheduler.runUntil(1000);
    // The slot frees at 10 ms (call 1 starts then) but call 0's answer arrives at 12 ms.
    expect(replies.map((r) => [r.callId, r.atMs])).toEqual([
      [0, 12],
      [1, 22],
    ]);
  });

  it('warms up with the calls it serves: the k-th is 1 + (factor − 1) · exp(−k / warmupCalls) times slower', () => {
    const { scheduler, backend, replies } = harness({ slots: 1, warmupFactor: 5, warmupCalls: 2 });
    for (let id = 0; id < 4; id++) {
      backend.submit(id, 10, Infinity);
    }
    scheduler.runUntil(10_000);
    const durations = replies.map((r, i) => r.atMs - (i === 0 ? 0 : replies[i - 1].atMs));
    [0, 1, 2, 3].forEach((k) => expect(durations[k]).toBeCloseTo(10 * (1 + 4 * Math.exp(-k / 2)), 9));
  });

  it('draws the same service times with or without a warm-up that is off (factor 1)', () => {
    const serviceTimes = (behaviour: Partial<Behaviour>) => {
      const scheduler = new VirtualScheduler();
      const at: number[] = [];
      const backend = new BackendModel({ scheduler, random: seededRandom(3), behaviour: { slots: 1, ...behaviour }, onReply: () => at.push(scheduler.nowMs()) });
      for (let id = 0; id < 50; id++) backend.submit(id, 10, Infinity);
      scheduler.runUntil(1e6);
      return at;
    };
    expect(serviceTimes({ warmupFactor: 1, warmupCalls: 100 })).toEqual(serviceTimes({}));
    expect(serviceTimes({ warmupFactor: 3, warmupCalls: 0 })).toEqual(serviceTimes({}));
  });

  it('refuses a warm-up below 1 x or a negative number of calls, naming the field', () => {
    expect(() => checkBehaviour({ ...DEFAULT_BEHAVIOUR, warmupFactor: 0.5 })).toThrow(/warmupFactor/);
    expect(() => checkBehaviour({ ...DEFAULT_BEHAVIOUR, warmupCalls: -1 })).toThrow(/warmupCalls/);
  });

  it('applies latencyFactor and slot changes at run time (throttling)', () => {
    const { scheduler, backend, replies } = harness({ slots: 2 });
    backend.setBehaviour({ latencyFactor: 2, slots: 1 });
    backend.submit(0, 10, Infinity);
    backend.submit(1, 10, Infinity);
    expect(backend.inService).toBe(1);
    backend.setBehaviour({ slots: 2 }); // a freed slot takes the queued call at once
    expect(backend.inService).toBe(2);
    scheduler.runUntil(1000);
    expect(replies.map((r) => r.atMs)).toEqual([20, 20]);
    expect(() => backend.setBehaviour({ slots: -1 })).toThrow(/Behaviour.slots/);
  });

  it('grows past its initial storage (unlimited slots, long queues)', () => {
    const { scheduler, backend, replies } = harness({ slots: 0 });
    for (let id = 0; id < 100; id++) {
      backend.submit(id, 10, Infinity);
    }
    expect(backend.inService).toBe(100);
    const out = new Float64Array(200);
    expect(backend.serviceEndTimes(out)).toBe(100);
    scheduler.runUntil(100);
    expect(replies).toHaveLength(100);
    const queued = harness({ slots: 1 });
    for (let id = 0; id < 300; id++) {
      queued.backend.submit(id, 1, Infinity);
    }
    expect(queued.backend.queuedMedianMs(0)).toBe(1);
    queued.scheduler.runUntil(1000);
    expect(queued.replies.map((r) => r.callId)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('holds the utilisation the capacity formula predicts', () => {
    // 8 slots, 10 ms median, σ 0.3: capacity 764.8 rps; offer 70 % of it.
    const scheduler = new VirtualScheduler();
    let served = 0;
    let busySum = 0;
    let samples = 0;
    const backend = new BackendModel({ scheduler, random: seededRandom(5), onReply: () => served++ });
    const periodMs = 1000 / (0.7 * 764.8);
    let id = 0;
    const arrive = (): void => {
      backend.submit(id++, 10, scheduler.nowMs() + 500);
      scheduler.schedule(scheduler.nowMs() + periodMs, arrive);
    };
    // Time average of the busy slots, sampled at Poisson times (PASTA).
    const sampleRandom = seededRandom(9);
    const sample = (): void => {
      busySum += backend.inService;
      samples++;
      scheduler.schedule(scheduler.nowMs() - 2 * Math.log(1 - sampleRandom()), sample);
    };
    scheduler.schedule(0, arrive);
    scheduler.schedule(0, sample);
    scheduler.runUntil(60_000);
    expect(busySum / samples / 8).toBeCloseTo(0.7, 1);
    expect(served).toBeGreaterThan(id - 20);
  });
});

describe('BackendModel load shedding (queueLimit)', () => {
  it('queueLimit 0: a call that finds every slot busy is refused at once with RESOURCE_EXHAUSTED (8), no slot, no queue', () => {
    const { scheduler, backend, replies } = harness({ slots: 1, queueLimit: 0 });
    backend.submit(0, 10, Infinity);
    expect(backend.full).toBe(true);
    backend.submit(1, 10, Infinity);
    expect(STATUS_RESOURCE_EXHAUSTED).toBe(8);
    expect(replies).toEqual([{ callId: 1, status: STATUS_RESOURCE_EXHAUSTED, atMs: 0 }]);
    expect(backend.inService).toBe(1);
    expect(backend.queueLength).toBe(0);
    scheduler.runUntil(10);
    // The slot is free again: the next call is served.
    expect(backend.full).toBe(false);
    backend.submit(2, 10, Infinity);
    scheduler.runUntil(100);
    expect(replies.map((r) => [r.callId, r.status, r.atMs])).toEqual([
      [1, STATUS_RESOURCE_EXHAUSTED, 0],
      [0, STATUS_OK, 10],
      [2, STATUS_OK, 20],
    ]);
    expect(backend.counters).toMatchObject({ arrivals: 3, served: 2, failed: 0, refused: 1, skipped: 0 });
  });

  it('queueLimit 1: one call waits for the slot, the next is refused', () => {
    const { scheduler, backend, replies } = harness({ slots: 1, queueLimit: 1 });
    backend.submit(0, 10, Infinity);
    backend.submit(1, 10, Infinity);
    expect(backend.queueLength).toBe(1);
    backend.submit(2, 10, Infinity);
    scheduler.runUntil(1000);
    expect(replies.map((r) => [r.callId, r.status, r.atMs])).toEqual([
      [2, STATUS_RESOURCE_EXHAUSTED, 0],
      [0, STATUS_OK, 10],
      [1, STATUS_OK, 20],
    ]);
    expect(backend.counters).toMatchObject({ served: 2, refused: 1 });
  });

  it('unbounded (absent or Infinity) queues every call as before; unlimited slots never refuse', () => {
    for (const patch of [{}, { queueLimit: Infinity }, { slots: 0, queueLimit: 0 }]) {
      const { scheduler, backend, replies } = harness({ slots: 1, ...patch });
      for (let id = 0; id < 5; id++) {
        backend.submit(id, 10, Infinity);
      }
      expect(backend.full).toBe(false);
      scheduler.runUntil(1000);
      expect(replies.every((r) => r.status === STATUS_OK)).toBe(true);
      expect(backend.counters).toMatchObject({ served: 5, refused: 0 });
    }
    // The default behaviour has no limit.
    expect(DEFAULT_BEHAVIOUR.queueLimit).toBeUndefined();
  });

  it("a flaky pod's errors stay UNAVAILABLE (the coin flip comes first)", () => {
    const { backend, replies } = harness({ slots: 1, queueLimit: 0, errorRate: 1 });
    backend.submit(0, 10, Infinity);
    expect(replies).toEqual([{ callId: 0, status: STATUS_UNAVAILABLE, atMs: 0 }]);
  });

  it('checkBehaviour names the field and the rule', () => {
    for (const bad of [-1, 0.5, NaN]) {
      expect(() => checkBehaviour({ ...DEFAULT_BEHAVIOUR, queueLimit: bad })).toThrow(
        `Behaviour.queueLimit must be an integer >= 0 or Infinity (absent = unbounded; 0 = refuse whenever every slot is busy), got ${bad}`,
      );
    }
    expect(() => harness({ slots: 1 }).backend.setBehaviour({ queueLimit: -1 })).toThrow(/Behaviour.queueLimit/);
    expect(checkBehaviour({ ...DEFAULT_BEHAVIOUR, queueLimit: 0 }).queueLimit).toBe(0);
  });

  it("the shedding role: one slot, queueLimit 0, whatever the default backend's slots", () => {
    expect(behaviourAtSlots('shedding', 8)).toMatchObject({ slots: 1, queueLimit: 0 });
    expect(behaviourAtSlots('shedding', 2)).toMatchObject({ slots: 1, queueLimit: 0 });
  });
});

describe('CallbackBackend', () => {
  it('delivers one reply per call and none after cancel', () => {
    const scheduler = new VirtualScheduler();
    const backend = new CallbackBackend({ scheduler, random: seededRandom(2), behaviour: { slots: 1, sigma: 0 } });
    const got: string[] = [];
    backend.submit(10, Infinity, (status) => got.push(`a${status}`));
    const b = backend.submit(10, Infinity, (status) => got.push(`b${status}`));
    backend.submit(10, Infinity, (status) => got.push(`c${status}@${scheduler.nowMs()}`));
    backend.cancel(b); // queued: skipped when it reaches the slot
    scheduler.runUntil(100);
    expect(got).toEqual(['a0', 'c0@20']);
    expect(backend.model.counters.skipped).toBe(1);
    expect(backend.outstanding).toBe(0);
  });
});
