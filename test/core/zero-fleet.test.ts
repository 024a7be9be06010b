/**
 * A fleet average of exactly 0 (every answer so far took 0 ms on the injected
 * clock) drew a NaN ejection line (Infinity × 0 through the budget's ranked
 * ratios): stats reported NaN and nothing could be out. A base of 0 now draws
 * no line (null), and ranks nothing.
 */
import { EndpointLoad, PeakEwmaModel } from '../../src/core';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

const settings = { ...new PeakEwmaLoadBalancingConfig().settings, ejectionSignal: 'peak' as const, maxEjectionPercent: 10 };

it('draws no ejection line when F is 0, and ejects nothing', () => {
  const model = new PeakEwmaModel(settings);
  model.fleet.record(0, 0, settings.decayMs);
  const loads = Array.from({ length: 4 }, (_, i) => {
    const load = new EndpointLoad();
    load.hasSample = true;
    load.rttMs = i === 0 ? 0 : 5;
    load.meanRttMs = load.rttMs;
    load.meanSamples = 8;
    return load;
  });
  model.beforePick(loads, 0);
  expect(model.ejectionLineMs).toBeNull();
  // The pods at 5 ms are infinitely many times F: a line on a base of 0 would put them out.
  expect(loads.map((load) => model.ejected(load, 0))).toEqual([false, false, false, false]);
});
