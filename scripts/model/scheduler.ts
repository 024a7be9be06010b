/**
 * Time, as the backend model sees it. The same model code runs in the
 * simulator (virtual time, `VirtualScheduler`) and in the real-gRPC load test
 * (wall time, `RealTimeScheduler`): it only ever asks for the time and for a
 * task to run at a later time.
 *
 * A task takes one numeric argument so that a hot caller can schedule a
 * method it bound once, passing e.g. a slot index, instead of allocating a
 * closure per event (the simulator schedules about a million of these per
 * run). `setTimeout` takes extra arguments the same way.
 */
export type Task = (arg: number) => void;

/** Identifies one scheduled task, for `cancel`. Never reused while pending. */
export type TimerHandle = number;

export interface Scheduler {
  /** Monotonic time in milliseconds (fractional). */
  nowMs(): number;
  /**
   * Runs `task(arg)` at `atMs` (or as soon as possible after it, in real
   * time). Tasks due at the same time run in the order they were scheduled.
   * `atMs` in the past means "now, after the current task"; a time that is
   * not finite is a bug in the caller and throws a RangeError.
   */
  schedule(atMs: number, task: Task, arg?: number): TimerHandle;
  /** Cancels a pending task; a handle that already ran or was cancelled is ignored. */
  cancel(handle: TimerHandle): void;
}
