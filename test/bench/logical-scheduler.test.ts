import { LogicalClockScheduler } from '../../scripts/bench/logical-scheduler';
import { CallbackBackend, Scheduler, Task, TimerHandle } from '../../scripts/model';
import { seededRandom } from '../../src/core/random';

/**
 * A wall clock whose timers fire only when told, as a stalled event loop's
 * do: time moves on (`advance`) and the due timers run later (`fireDue`).
 */
class StallingClock implements Scheduler {
  private wallMs = 0;
  private readonly tasks: { atMs: number; task: Task; arg: number; handle: number }[] = [];
  private nextHandle = 0;

  nowMs(): number {
    return this.wallMs;
  }
  schedule(atMs: number, task: Task, arg = 0): TimerHandle {
    const handle = this.nextHandle++;
    this.tasks.push({ atMs, task, arg, handle });
    return handle;
  }
  cancel(handle: TimerHandle): void {
    const i = this.tasks.findIndex((t) => t.handle === handle);
    if (i >= 0) this.tasks.splice(i, 1);
  }
  stop(): void {
    this.tasks.length = 0;
  }
  advance(ms: number): void {
    this.wallMs += ms;
  }
  /** Runs every task due by now, in time order (bounded: tasks they schedule for later stay). */
  fireDue(): void {
    for (let guard = 0; guard < 1000; guard++) {
      const due = this.tasks.filter((t) => t.atMs <= this.wallMs).sort((a, b) => a.atMs - b.atMs)[0];
      if (!due) return;
      this.tasks.splice(this.tasks.indexOf(due), 1);
      due.task(due.arg);
    }
  }
}

describe('LogicalClockScheduler with the backend model', () => {
  it('never starts a call before it arrived, even when a late completion runs at an earlier logical time', () => {
    const wall = new StallingClock();
    const scheduler = new LogicalClockScheduler(wall);
    // One slot, σ = 0: every call takes exactly its 30 ms median.
    const backend = new CallbackBackend({ scheduler, random: seededRandom(1), behaviour: { slots: 1, sigma: 0 } });
    const answeredAt: Record<string, number> = {};
    backend.submit(30, Infinity, () => (answeredAt.first = scheduler.nowMs()));
    // The loop stalls from 0 to 50 ms; the first call's completion (due at 30) has not run yet when the
    // second call's handler runs at 50 and queues it behind the busy slot.
    wall.advance(50);
    backend.submit(30, Infinity, () => (answeredAt.second = scheduler.nowMs()));
    wall.fireDue();
    wall.advance(100);
    wall.fireDue();
    expect(answeredAt.first).toBe(30);
    // Service starts at its arrival (50), not at the slot's logical release (30): answered at 80, not 60.
    expect(answeredAt.second).toBe(80);
  });

  it('still frees a slot at its logical time for calls that were waiting before the stall', () => {
    const wall = new StallingClock();
    const scheduler = new LogicalClockScheduler(wall);
    const backend = new CallbackBackend({ scheduler, random: seededRandom(1), behaviour: { slots: 1, sigma: 0 } });
    const answeredAt: number[] = [];
    backend.submit(30, Infinity, () => answeredAt.push(scheduler.nowMs()));
    wall.advance(10);
    backend.submit(30, Infinity, () => answeredAt.push(scheduler.nowMs()));
    // Stall past both completions: the logical clock keeps the backend's capacity (30 + 30 = 60).
    wall.advance(100);
    wall.fireDue();
    wall.fireDue();
    expect(answeredAt).toEqual([30, 60]);
  });
});
