/** The engine: pure TypeScript, no gRPC. Clock and randomness are injected. */
export type { MonotonicClock } from './clock';
export { ManualClock, systemClock } from './clock';
export type { RandomSource } from './random';
export { seededRandom, systemRandom } from './random';
export { retainedFraction, decayedRttMs, nextRttMs } from './peak-ewma';
export { CallOutcome, EndpointLoad } from './endpoint-load';
export type { LoadModel, PeakEwmaSettings } from './cost';
export { PeakEwmaModel, leastRequestModel, peakEwmaCost, currentRttMs, sampleForOutcome } from './cost';
export type { CostOf } from './choice';
export { PowerOfChoices } from './choice';
export type { EngineOptions } from './engine';
export { LoadBalancingEngine } from './engine';
