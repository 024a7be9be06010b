/** The engine: pure TypeScript, no gRPC. Clock and randomness are injected. */
export type { MonotonicClock } from './clock';
export { ManualClock, systemClock } from './clock';
export type { RandomSource } from './random';
export { seededRandom, systemRandom } from './random';
export { retainedFraction, decayedRttMs, nextRttMs, blendRttMs } from './peak-ewma';
export { FleetRtt } from './fleet-rtt';
export { BalancerTraffic } from './traffic';
export { CallOutcome, EndpointLoad } from './endpoint-load';
export type { LoadModel, PeakEwmaSettings } from './cost';
export { CandidateRating, PeakEwmaModel, leastRequestModel, peakEwmaCost, currentRttMs, estimateMs, sampleForOutcome } from './cost';
export type { CostOf, EjectedOf } from './choice';
export { PowerOfChoices } from './choice';
export type { EngineOptions } from './engine';
export { LoadBalancingEngine } from './engine';
export { MethodKey } from './methods';
export type { PickCounts, PickPathName, RefusalCounts, RefusalName } from './pick-paths';
export { PICK_PATH_NAMES, PickPath, PickPaths, Refusal, REFUSAL_NAMES } from './pick-paths';
