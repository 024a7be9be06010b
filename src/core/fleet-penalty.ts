/**
 * The steeper cost far above the fleet (`fleetPenaltyExponent` s): the
 * textbook cost grows only linearly with the estimate, so a backend just
 * under the ejection ratio can still win on its queue alone; above the fleet
 * average F the cost is multiplied by (E/F)^s (docs/tuning-log.md §4).
 */
import { FleetRtt } from './fleet-rtt';
import { PeakEwmaSettings } from './peak-ewma-settings';

/** The factor on the cost of an endpoint estimated at `rttMs`: 1 at or below the fleet average, or with s off. */
export function fleetPenaltyFactor(rttMs: number, settings: PeakEwmaSettings, fleet?: FleetRtt): number {
  const exponent = settings.fleetPenaltyExponent;
  // F is 0 while every answer so far took 0 ms on the clock: no ratio to it (ejection.ts lineBaseMs).
  if (!exponent || fleet === undefined || !fleet.hasSample || !(fleet.rttMs > 0) || !(rttMs > fleet.rttMs)) {
    return 1;
  }
  // The default exponent, 1, spares the pick path a pow call (pow(x, 1) is x exactly).
  const ratio = rttMs / fleet.rttMs;
  return exponent === 1 ? ratio : Math.pow(ratio, exponent);
}
