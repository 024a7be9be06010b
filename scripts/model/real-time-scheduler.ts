/**
 * Wall time for the load test: `performance.now()` and one Node timer armed
 * for the earliest pending task. When it fires, every task already due runs
 * in (time, scheduling) order, so tasks due together keep their order as in
 * the simulator.
 *
 * Precision: libuv timers have 1 ms granularity and fire late rather than
 * early, so a task runs 0–~1 ms after its time (more under load). A
 * `spinBelowMs` > 0 makes the scheduler re-check with `setImmediate` instead
 * of a timer when the next task is that close, trading CPU for precision.
 */
import { CalendarQueue } from './calendar-queue';
import { Scheduler, Task, TimerHandle } from './scheduler';

export interface RealTimeSchedulerOptions {
  /** Poll with setImmediate when the next task is due within this many ms (0: never). */
  spinBelowMs?: number;
}

export class RealTimeScheduler implements Scheduler {
  private readonly events = new CalendarQueue();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private armedForMs = Infinity;
  private readonly spinBelowMs: number;
  private stopped = false;

  constructor(options: RealTimeSchedulerOptions = {}) {
    this.spinBelowMs = options.spinBelowMs ?? 0;
  }

  nowMs(): number {
    return performance.now();
  }

  schedule(atMs: number, task: Task, arg = 0): TimerHandle {
    const handle = this.events.push(atMs, task, arg);
    if (atMs < this.armedForMs) {
      this.arm();
    }
    return handle;
  }

  cancel(handle: TimerHandle): void {
    this.events.cancel(handle);
  }

  get pending(): number {
    return this.events.pending;
  }

  /** Drops every pending task and disarms the timer. */
  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private readonly fire = (): void => {
    this.timer = null;
    this.immediate = null;
    this.armedForMs = Infinity;
    const events = this.events;
    // Bounded: only tasks due by the time this pass started run now; tasks
    // they schedule for "now" run on the next pass, so a task that keeps
    // rescheduling itself cannot starve the event loop.
    const passMs = performance.now();
    while (!this.stopped && events.peekTimeMs() <= passMs) {
      const slot = events.popSlot();
      const task = events.taskOf(slot);
      const arg = events.argOf(slot);
      events.release(slot);
      task(arg);
    }
    this.arm();
  };

  private arm(): void {
    if (this.stopped) {
      return;
    }
    const nextMs = this.events.peekTimeMs();
    if (nextMs === Infinity || nextMs >= this.armedForMs) {
      return;
    }
    this.disarm();
    this.armedForMs = nextMs;
    const delayMs = nextMs - performance.now();
    if (delayMs <= 0 || delayMs < this.spinBelowMs) {
      this.immediate = setImmediate(this.fire);
    } else {
      this.timer = setTimeout(this.fire, delayMs);
    }
  }

  private disarm(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.immediate !== null) {
      clearImmediate(this.immediate);
      this.immediate = null;
    }
    this.armedForMs = Infinity;
  }
}
