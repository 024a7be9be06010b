/**
 * A run's timeline: warm-up, then the measured window in whole seconds,
 * with the fault phase [faultStartS, faultEndS) inside it. Phases: before
 * [0, faultStart), fault [faultStart, faultEnd), after [faultEnd, end) — the
 * reference's (0,20], (20,60], (60,90] by interval end.
 */
export interface Timeline {
  readonly warmupMs: number;
  readonly measureS: number;
  readonly faultStartS: number;
  readonly faultEndS: number;
}

/** The reference's: 20 s warm-up, 90 s measured, faults over 20–60 s. */
export const REFERENCE_TIMELINE: Timeline = { warmupMs: 20_000, measureS: 90, faultStartS: 20, faultEndS: 60 };

/** Half as long, for --quick and the test: 10 s warm-up, 45 s measured, faults over 10–30 s. */
export const QUICK_TIMELINE: Timeline = { warmupMs: 10_000, measureS: 45, faultStartS: 10, faultEndS: 30 };

/** The sensitivity grid's: 15 s warm-up + 45 s (no faults). */
export const GRID_TIMELINE: Timeline = { warmupMs: 15_000, measureS: 45, faultStartS: 15, faultEndS: 30 };

/** The scale run's: 10 s warm-up + 20 s. */
export const SCALE_TIMELINE: Timeline = { warmupMs: 10_000, measureS: 20, faultStartS: 5, faultEndS: 15 };
