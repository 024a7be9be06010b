/**
 * Virtual time: tasks run in time order as fast as the CPU allows, and the
 * clock jumps to each task's time. Deterministic: same schedule, same order.
 */
import { CalendarQueue, CalendarQueueOptions } from './calendar-queue';
import { Scheduler, Task, TimerHandle } from './scheduler';

/**
 * A stream of events outside the heap (the simulator's open-loop arrivals,
 * one per call): the scheduler interleaves it with the heap by time, heap
 * first on ties. `fire` must advance `nextMs` (Infinity: exhausted).
 */
export interface EventSource {
  readonly nextMs: number;
  fire(): void;
}

export class VirtualScheduler implements Scheduler {
  private source: EventSource | null = null;
  private currentMs: number;
  private readonly events: CalendarQueue;
  /** Tasks run so far. */
  executed = 0;

  constructor(startMs = 0, queue: CalendarQueueOptions = {}) {
    this.currentMs = startMs;
    this.events = new CalendarQueue(queue);
  }

  /** The clock as a function, for injection (e.g. into the engine). */
  readonly now = (): number => this.currentMs;

  nowMs(): number {
    return this.currentMs;
  }

  schedule(atMs: number, task: Task, arg = 0): TimerHandle {
    // A finite time in the past means now; the queue rejects times that are not finite.
    return this.events.push(atMs >= this.currentMs || !Number.isFinite(atMs) ? atMs : this.currentMs, task, arg);
  }

  cancel(handle: TimerHandle): void {
    this.events.cancel(handle);
  }

  /** Interleaves `source`'s events with the scheduled tasks (null: none). */
  setSource(source: EventSource | null): void {
    this.source = source;
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
    const source = this.source;
    for (;;) {
      const sourceMs = source === null ? Infinity : source.nextMs;
      const slot = events.popDue(sourceMs < endMs ? sourceMs : endMs);
      if (slot < 0) {
        if (sourceMs <= endMs) {
          this.currentMs = sourceMs;
          this.executed++;
          source!.fire();
          continue;
        }
        break;
      }
      const task = events.taskOf(slot);
      const arg = events.argOf(slot);
      this.currentMs = events.timeOf(slot);
      events.release(slot);
      this.executed++;
      task(arg);
    }
    if (endMs > this.currentMs) {
      this.currentMs = endMs;
    }
  }
}
