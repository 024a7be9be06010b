/**
 * Real timers with a logical clock: while a scheduled task runs, "now" is the
 * time the task was scheduled for, not the (later) time its timer fired.
 *
 * Why: on a busy 2-core machine a backend host's timers fire late, sometimes
 * by many ms. Under the plain RealTimeScheduler the model then frees a slot
 * late and starts the next queued call late, so every late timer also costs
 * the backend capacity, and a 70 %-utilised backend drifts into overload the
 * reference's backends never saw. With the logical clock a completion frees
 * its slot at its scheduled time and the next service starts then: lateness
 * delays answers (as a descheduled real server would) but does not compound
 * into lost capacity. Arrivals (gRPC handlers, outside any task) see the wall
 * clock, so a late task can run at a logical time before an arrival the host
 * has already handled; the model starts a queued call at the later of the two
 * (scripts/model/backend.ts), so no call is served from before it arrived.
 */
import { RealTimeScheduler, Scheduler, Task, TimerHandle } from '../model';

export class LogicalClockScheduler implements Scheduler {
  private runningAtMs: number | null = null;

  /** `inner`: the wall-clock scheduler whose timers fire (late, under load); injectable for tests. */
  constructor(private readonly inner: Scheduler & { stop(): void } = new RealTimeScheduler()) {}

  nowMs(): number {
    return this.runningAtMs ?? this.inner.nowMs();
  }

  schedule(atMs: number, task: Task, arg = 0): TimerHandle {
    // A task scheduled for "now" from inside a late task keeps the logical time.
    const dueMs = this.runningAtMs !== null && atMs < this.runningAtMs ? this.runningAtMs : atMs;
    return this.inner.schedule(dueMs, () => {
      const outer = this.runningAtMs;
      this.runningAtMs = dueMs;
      try {
        task(arg);
      } finally {
        this.runningAtMs = outer;
      }
    });
  }

  cancel(handle: TimerHandle): void {
    this.inner.cancel(handle);
  }

  stop(): void {
    this.inner.stop();
  }
}
