/**
 * Event-loop delay as the harness reports it: Node's `monitorEventLoopDelay`
 * arms a timer every `resolution` ms and records the whole interval between
 * two firings, so an idle loop reports about the resolution itself (p99 10.2
 * ms at resolution 10). The delay is the interval minus the resolution.
 */
import { IntervalHistogram, monitorEventLoopDelay } from 'perf_hooks';

export const LOOP_DELAY_RESOLUTION_MS = 10;

export interface LoopDelayMs {
  readonly p99: number;
  readonly max: number;
}

/** The monitor's histogram in ns read as delay beyond the resolution, ms, floored at 0. */
export function loopDelayOf(histogram: Pick<IntervalHistogram, 'percentile' | 'max'>, resolutionMs = LOOP_DELAY_RESOLUTION_MS): LoopDelayMs {
  const beyond = (ns: number): number => Math.max(0, ns / 1e6 - resolutionMs);
  return { p99: beyond(histogram.percentile(99)), max: beyond(histogram.max) };
}

export function newLoopDelayMonitor(): IntervalHistogram {
  return monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
}
