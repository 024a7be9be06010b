/**
 * The pending-aware estimate (`pendingAware`): the textbook estimate learns
 * only when a call ends, so a backend that stops answering (GC pause, black
 * hole) looks healthy until its first answer. With calls in flight and no
 * answer for Δ ms the endpoint is at least Δ slow (`busySinceMs` bounds the
 * oldest call's age from below), so the estimate is at least Δ
 * (docs/tuning-log.md §3).
 */
import { EndpointLoad } from './endpoint-load';
import { PeakEwmaSettings } from './peak-ewma-settings';

/**
 * `rttMs`, raised to the wait of the calls in flight when that is longer.
 * With per-method scoring the estimate is in units of an average call
 * (methods.ts), so the wait is too: divided by the mean weight of the calls
 * in flight (1 with one method, so then unchanged) — a Report running for
 * 500 ms is not a stalled backend.
 */
export function withPendingWaitMs(load: EndpointLoad, rttMs: number, nowMs: number, settings: PeakEwmaSettings): number {
  if (!settings.pendingAware || load.outstanding === 0) {
    return rttMs;
  }
  let waitMs = nowMs - load.busySinceMs;
  if (settings.methodScoring !== undefined && settings.methodScoring !== 'off' && load.outstandingWork > 0) {
    waitMs /= load.outstandingWork / load.outstanding;
  }
  return waitMs > rttMs ? waitMs : rttMs;
}
