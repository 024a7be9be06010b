/**
 * Virtual time: tasks run in time order as fast as the CPU allows, and the
 * clock jumps to each task's time. Deterministic: same schedule, same order.
 */
import { EventHeap } from './event-heap';
import { Scheduler, Task, TimerHandle } from './scheduler';

export class VirtualScheduler implements Scheduler {
  private currentMs: number;
  private readonly events = new EventHeap();
  /** Tasks run so far. */
  executed = 0;

  constructor(startMs = 0) {
    this.currentMs = startMs;
  }

  /** The clock as a function, for injection (e.g. into the engine). */
  readonly now = (): number => this.currentMs;

  nowMs(): number {
    return this.currentMs;
  }

  schedule(atMs: number, task: Task, arg = 0): TimerHandle {
    return this.events.push(atMs > this.currentMs ? atMs : this.currentMs, task, arg);
  }

  cancel(handle: TimerHandle): void {
    this.events.cancel(handle);
  }

  get pending(): number {
    return this.events.pending;
  }

  /**
   * Runs every task due at or before `endMs`, then leaves the clock at
   * `endMs`. Tasks scheduled while running are run too if they are due.
   */
  runUntil(endMs: number): void {
    const events = this.events;
    for (;;) {
      const atMs = events.peekTimeMs();
      if (atMs > endMs) {
        break;
      }
      const slot = events.popSlot();
      const task = events.taskOf(slot);
      const arg = events.argOf(slot);
      events.release(slot);
      this.currentMs = atMs;
      this.executed++;
      task(arg);
    }
    if (endMs > this.currentMs) {
      this.currentMs = endMs;
    }
  }
}
