/**
 * A peak_ewma model with a settled fleet average and endpoints whose mean
 * answers are given, all fresh at t = 0: what the ejection's unit tests
 * (the budget, the small fleet) judge.
 */
import { EndpointLoad, PeakEwmaModel, PeakEwmaSettings } from '../../src/core';

/** A model whose fleet average is `fleetMs`, and endpoints whose means (and estimates) are `meansMs`, each over a full window of answers. */
export function fleetWithMeans(settings: PeakEwmaSettings, meansMs: number[], fleetMs: number): { model: PeakEwmaModel; loads: EndpointLoad[] } {
  const model = new PeakEwmaModel(settings);
  model.fleet.record(fleetMs, 0, settings.decayMs);
  const loads = meansMs.map((meanMs) => {
    const load = new EndpointLoad();
    load.hasSample = true;
    load.rttMs = meanMs;
    load.meanRttMs = meanMs;
    load.meanSamples = 8;
    return load;
  });
  return { model, loads };
}

/** Whether `model` ejects each of `loads` at t = 0. */
export const ejectedOf = (model: PeakEwmaModel, loads: EndpointLoad[]): boolean[] => loads.map((load) => model.ejected(load, 0));
