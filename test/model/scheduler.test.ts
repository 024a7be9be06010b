import fc from 'fast-check';
import { CalendarQueue, CalendarQueueOptions } from '../../scripts/model/calendar-queue';
import { RealTimeScheduler } from '../../scripts/model/real-time-scheduler';
import { VirtualScheduler } from '../../scripts/model/virtual-scheduler';
import { seededRandom } from '../../src/core/random';

/**
 * Queue shapes that exercise every path: the default; a width that is not a
 * power of two; a tiny ring, so that most tasks start in the overflow and the
 * cursor often moves back over tasks a whole ring ahead (aliases).
 */
const QUEUE_SHAPES: ReadonlyArray<[string, CalendarQueueOptions]> = [
  ['default', {}],
  ['0.3 ms buckets', { bucketMs: 0.3, horizonMs: 64 }],
  ['a 4-bucket ring', { bucketMs: 1, horizonMs: 4 }],
];

/**
 * Replays a random mix of pushes, cancels, peeks and bounded pops on a queue
 * and on a sorted list, and returns the first difference ('ok' if none).
 */
function replayAgainstSortedList(shape: CalendarQueueOptions, seed: number, spreadMs: number): string {
  const queue = new CalendarQueue(shape);
  const random = seededRandom(seed);
  // The model: pending entries as [time, sequence, arg, handle], sorted on demand.
  const pending: Array<[number, number, number, number]> = [];
  let sequence = 0;
  let clockMs = 0;
  for (let step = 0; step < 600; step++) {
    const action = random();
    if (action < 0.45) {
      // Mostly at or after the clock, as schedulers push; sometimes before it.
      const atMs = Math.max(0, clockMs + Math.floor((random() - 0.1) * spreadMs * 8) / 8);
      const handle = queue.push(atMs, () => {}, step);
      pending.push([atMs, sequence++, step, handle]);
    } else if (action < 0.55 && pending.length > 0) {
      const [entry] = pending.splice(Math.floor(random() * pending.length), 1);
      queue.cancel(entry[3]);
    } else if (action < 0.65) {
      pending.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const peekedMs = queue.peekTimeMs();
      if (peekedMs !== (pending.length > 0 ? pending[0][0] : Infinity)) {
        return `step ${step}: peeked ${peekedMs}, expected ${pending[0]?.[0]}`;
      }
    } else {
      pending.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      // popDue with a bound: nothing after it comes out.
      const endMs = clockMs + random() * spreadMs;
      const slot = queue.popDue(endMs);
      const expected = pending.length > 0 && pending[0][0] <= endMs ? pending.shift() : undefined;
      const got = slot < 0 ? 'none' : `${queue.timeOf(slot)}/${queue.argOf(slot)}`;
      const wanted = expected === undefined ? 'none' : `${expected[0]}/${expected[2]}`;
      if (got !== wanted) {
        return `step ${step}: popped ${got}, expected ${wanted}`;
      }
      if (slot >= 0) {
        clockMs = queue.timeOf(slot);
        queue.release(slot);
      }
    }
    if (queue.pending !== pending.length) {
      return `step ${step}: ${queue.pending} pending, expected ${pending.length}`;
    }
  }
  return 'ok';
}

describe.each(QUEUE_SHAPES)('CalendarQueue (%s)', (_name, shape) => {
  it('pops in time order, equal times in scheduling order', () => {
    const queue = new CalendarQueue(shape);
    const random = seededRandom(7);
    const expected: Array<[number, number]> = [];
    for (let i = 0; i < 5000; i++) {
      const atMs = Math.floor(random() * 100); // many ties
      queue.push(atMs, () => {}, i);
      expected.push([atMs, i]);
    }
    expected.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const popped: Array<[number, number]> = [];
    for (let slot = queue.popSlot(); slot >= 0; slot = queue.popSlot()) {
      popped.push([queue.timeOf(slot), queue.argOf(slot)]);
      queue.release(slot);
    }
    expect(popped).toEqual(expected);
  });

  it('pops what a sorted list would, with pushes (also before tasks already popped), pops, peeks and cancels interleaved', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.double({ min: 0.01, max: 40, noNaN: true }), (seed, spreadMs) => {
        expect(replayAgainstSortedList(shape, seed, spreadMs)).toBe('ok');
      }),
      { numRuns: 60 },
    );
  });

  it('skips cancelled tasks, and a stale handle cannot cancel a reused slot', () => {
    const queue = new CalendarQueue(shape);
    const first = queue.push(5, () => {}, 1);
    queue.cancel(first);
    expect(queue.pending).toBe(0);
    expect(queue.popSlot()).toBe(-1);
    // The cancelled slot was released and is reused by the next push.
    queue.push(6, () => {}, 2);
    queue.cancel(first);
    expect(queue.pending).toBe(1);
    const slot = queue.popSlot();
    expect(queue.argOf(slot)).toBe(2);
  });

  it('reaches tasks far beyond the horizon, in order, and jumps the gaps', () => {
    const queue = new CalendarQueue(shape);
    const timesMs = [3e6, 5, 2e6 + 0.5, 2e6, 1e4, 2e6];
    timesMs.forEach((atMs, i) => queue.push(atMs, () => {}, i));
    expect(queue.popDue(4)).toBe(-1);
    const popped: number[] = [];
    for (let slot = queue.popSlot(); slot >= 0; slot = queue.popSlot()) {
      popped.push(queue.argOf(slot));
      queue.release(slot);
    }
    expect(popped).toEqual([1, 4, 3, 5, 2, 0]);
  });
});

describe('CalendarQueue options', () => {
  it('rejects a bad width or horizon, and a task time that is not finite, naming the rule', () => {
    expect(() => new CalendarQueue({ bucketMs: 0 })).toThrow('bucketMs must be a finite number > 0, got 0');
    expect(() => new CalendarQueue({ bucketMs: 1, horizonMs: 0.5 })).toThrow('horizonMs must be finite and at least bucketMs, got 0.5');
    expect(() => new CalendarQueue().push(NaN, () => {}, 0)).toThrow("a task's time must be finite, got NaN");
  });
});

describe('VirtualScheduler', () => {
  it('jumps the clock to each task and runs tasks scheduled by tasks', () => {
    const scheduler = new VirtualScheduler();
    const seen: Array<[number, number]> = [];
    const task = (arg: number): void => {
      seen.push([scheduler.nowMs(), arg]);
      if (arg < 3) {
        scheduler.schedule(scheduler.nowMs() + 10, task, arg + 1);
      }
    };
    scheduler.schedule(5, task, 0);
    scheduler.runUntil(30);
    expect(seen).toEqual([
      [5, 0],
      [15, 1],
      [25, 2],
    ]);
    expect(scheduler.nowMs()).toBe(30);
    scheduler.runUntil(100);
    expect(seen[3]).toEqual([35, 3]);
  });

  it('runs a task scheduled in the past now, after the current one', () => {
    const scheduler = new VirtualScheduler(50);
    const order: string[] = [];
    scheduler.schedule(10, () => order.push(`late@${scheduler.nowMs()}`));
    scheduler.runUntil(60);
    expect(order).toEqual(['late@50']);
  });
});

describe('RealTimeScheduler', () => {
  it('runs tasks in (time, scheduling) order and skips cancelled ones', async () => {
    const scheduler = new RealTimeScheduler();
    const order: number[] = [];
    const start = scheduler.nowMs();
    await new Promise<void>((resolve) => {
      scheduler.schedule(start + 6, (arg) => order.push(arg), 3);
      scheduler.schedule(start + 2, (arg) => order.push(arg), 1);
      const cancelled = scheduler.schedule(start + 4, (arg) => order.push(arg), 99);
      scheduler.schedule(start + 2, (arg) => order.push(arg), 2);
      scheduler.schedule(start + 8, () => resolve());
      scheduler.cancel(cancelled);
    });
    expect(order).toEqual([1, 2, 3]);
    expect(scheduler.pending).toBe(0);
  });

  it('never runs a task before its time', async () => {
    const scheduler = new RealTimeScheduler({ spinBelowMs: 1 });
    const lateness: number[] = [];
    await new Promise<void>((resolve) => {
      let left = 20;
      for (let i = 0; i < 20; i++) {
        const atMs = scheduler.nowMs() + (i % 5) * 0.7;
        scheduler.schedule(atMs, () => {
          lateness.push(scheduler.nowMs() - atMs);
          if (--left === 0) {
            resolve();
          }
        });
      }
    });
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    scheduler.stop();
  });
});

describe('VirtualScheduler with an event source', () => {
  it('interleaves the source with scheduled tasks by time, tasks first on ties', () => {
    const scheduler = new VirtualScheduler();
    const seen: string[] = [];
    const source = {
      nextMs: 0,
      fire(): void {
        seen.push(`s@${scheduler.nowMs()}`);
        this.nextMs = this.nextMs + 10 < 40 ? this.nextMs + 10 : Infinity;
      },
    };
    scheduler.setSource(source);
    scheduler.schedule(10, () => seen.push(`t@${scheduler.nowMs()}`));
    scheduler.schedule(25, () => seen.push(`t@${scheduler.nowMs()}`));
    scheduler.runUntil(100);
    expect(seen).toEqual(['s@0', 't@10', 's@10', 's@20', 't@25', 's@30']);
  });
});

describe('Scheduler contract: task times', () => {
  it('a time that is not finite throws, in both schedulers, instead of running the task never or now', () => {
    const virtual = new VirtualScheduler();
    const realTime = new RealTimeScheduler();
    for (const atMs of [NaN, Infinity, -Infinity]) {
      expect(() => virtual.schedule(atMs, () => {})).toThrow(/must be finite/);
      expect(() => realTime.schedule(atMs, () => {})).toThrow(/must be finite/);
    }
    realTime.stop();
  });
});
