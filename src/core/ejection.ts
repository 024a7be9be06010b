/**
 * Bounded latency ejection (`ejectionRatio` R): with two choices both draws
 * land on slow backends k(k−1)/(n(n−1)) of the time whatever the estimate
 * says, so an endpoint estimated above R × the fleet average is skipped by
 * the chooser (PowerOfChoices redraws) while it can draw others. The bound
 * in time is staleness.ts (docs/tuning.md §2).
 */
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';

export function exceedsEjectionRatio(estimateMs: number, settings: PeakEwmaSettings, fleet: FleetRtt): boolean {
  const ratio = settings.ejectionRatio;
  return !!ratio && fleet.hasSample && estimateMs > ratio * fleet.rttMs;
}
