/**
 * The reference harness's backend, as a queueing model that runs in virtual
 * time (simulator) or under real timers (load test). See docs/simulation.md.
 *
 *   const scheduler = new RealTimeScheduler();          // or new VirtualScheduler()
 *   const backend = new CallbackBackend({ scheduler, random: seededRandom(1), behaviour: behaviourOf('noisy') });
 *   const id = backend.submit(10, scheduler.nowMs() + 500, (status) => ...);
 *   backend.cancel(id);                                  // caller's deadline passed / client cancelled
 *   backend.model.setBehaviour({ latencyFactor: 5 });    // fault phase
 */
export type { Scheduler, Task, TimerHandle } from './scheduler';
export { VirtualScheduler } from './virtual-scheduler';
export type { EventSource } from './virtual-scheduler';
export { RealTimeScheduler } from './real-time-scheduler';
export type { RealTimeSchedulerOptions } from './real-time-scheduler';
export type { Behaviour, BackendMode } from './behaviour';
export { DEFAULT_BEHAVIOUR, checkBehaviour } from './behaviour';
export type { Role, FleetKind } from './roles';
export { ROLE_OVERRIDES, behaviourAtSlots, behaviourOf, fleetRoles, halfSlots } from './roles';
export type { MethodSpec } from './methods';
export {
  MIN_DEADLINE_MS,
  deadlineForMedianMs,
  parseMethod,
  parseMethodMix,
  SINGLE_METHOD,
  FIVE_METHODS,
  meanMedianMs,
} from './methods';
export { meanServiceMs, servedRps, backendCapacityRps, fleetCapacityRps, ratePerClientRps, UNLIMITED_SLOTS_AS } from './capacity';
export { NormalSource, serviceTimeMs, SERVICE_CAP_MEDIANS } from './lognormal';
export type { BackendOptions, BackendCounters, ReplySink, ReplyStatus } from './backend';
export { BackendModel, STATUS_OK, STATUS_RESOURCE_EXHAUSTED, STATUS_UNAVAILABLE, UNAVAILABLE_DETAILS, GC_PHASE_RANGE_MS } from './backend';
export type { ReplyCallback } from './callback-backend';
export { CallbackBackend } from './callback-backend';
