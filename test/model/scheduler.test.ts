import { EventHeap } from '../../scripts/model/event-heap';
import { RealTimeScheduler } from '../../scripts/model/real-time-scheduler';
import { VirtualScheduler } from '../../scripts/model/virtual-scheduler';
import { seededRandom } from '../../src/core/random';

describe('EventHeap', () => {
  it('pops in time order, equal times in scheduling order', () => {
    const heap = new EventHeap();
    const random = seededRandom(7);
    const expected: Array<[number, number]> = [];
    for (let i = 0; i < 5000; i++) {
      const atMs = Math.floor(random() * 100); // many ties
      heap.push(atMs, () => {}, i);
      expected.push([atMs, i]);
    }
    expected.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const popped: Array<[number, number]> = [];
    for (let slot = heap.popSlot(); slot >= 0; slot = heap.popSlot()) {
      popped.push([heap.timeOf(slot), heap.argOf(slot)]);
      heap.release(slot);
    }
    expect(popped).toEqual(expected);
  });

  it('pops what a sorted list would, with pushes, pops and cancels interleaved', () => {
    const heap = new EventHeap();
    const random = seededRandom(11);
    // The model: pending entries as [time, sequence, arg, handle], sorted on demand.
    const pending: Array<[number, number, number, number]> = [];
    let sequence = 0;
    let popped = 0;
    const mismatches: string[] = [];
    for (let step = 0; step < 20000; step++) {
      const action = random();
      if (action < 0.5) {
        const atMs = Math.floor(random() * 200) / 4; // ties are common
        const handle = heap.push(atMs, () => {}, step);
        pending.push([atMs, sequence++, step, handle]);
      } else if (action < 0.6 && pending.length > 0) {
        const [entry] = pending.splice(Math.floor(random() * pending.length), 1);
        heap.cancel(entry[3]);
      } else {
        pending.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        const slot = heap.popSlot();
        const expected = pending.shift();
        const got = slot < 0 ? 'none' : `${heap.timeOf(slot)}/${heap.argOf(slot)}`;
        const wanted = expected === undefined ? 'none' : `${expected[0]}/${expected[2]}`;
        if (got !== wanted) {
          mismatches.push(`step ${step}: popped ${got}, expected ${wanted}`);
        }
        if (slot >= 0) {
          heap.release(slot);
          popped++;
        }
      }
      if (heap.pending !== pending.length) {
        mismatches.push(`step ${step}: ${heap.pending} pending, expected ${pending.length}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(popped).toBeGreaterThan(5000);
  });

  it('skips cancelled tasks, and a stale handle cannot cancel a reused slot', () => {
    const heap = new EventHeap();
    const first = heap.push(5, () => {}, 1);
    heap.cancel(first);
    expect(heap.pending).toBe(0);
    expect(heap.popSlot()).toBe(-1);
    // The cancelled slot was released and is reused by the next push.
    heap.push(6, () => {}, 2);
    heap.cancel(first);
    expect(heap.pending).toBe(1);
    const slot = heap.popSlot();
    expect(heap.argOf(slot)).toBe(2);
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
