/**
 * grpc-js-peak-ewma: latency-aware load balancing for @grpc/grpc-js.
 *
 *   import { register } from 'grpc-js-peak-ewma';
 *   register();
 *   const client = new Client('dns:///my-service:50051', credentials, {
 *     'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ peak_ewma_experimental: {} }] }),
 *     interceptors: [callMarker], // streams out of latency; each call's method for per-method scoring
 *   });
 */
export { register } from './policy/register';
export type { GrpcJsChoice } from './policy/grpc-js-copies';
export { PEAK_EWMA_POLICY_NAME, PEAK_EWMA_DEFAULTS, PEAK_EWMA_LIMITS, PeakEwmaLoadBalancingConfig } from './policy/peak-ewma-config';
export { LEAST_REQUEST_POLICY_NAME, LeastRequestLoadBalancingConfig, SELECTION_METHODS } from './policy/least-request-config';
export type { SelectionMethod } from './policy/least-request-config';
export { ConfigError } from './policy/config-fields';
export type { EndpointPickingConfig } from './policy/endpoint-picking-config';
export { validateServiceConfig, validateLoadBalancingConfigList } from './policy/validate';
export { callMarker, streamingCallMarker, markUntimed, isUntimed } from './policy/streaming';
export { getLoadBalancerStats } from './policy/stats';
export { STATS_MAX_METHODS } from './policy/stats';
export type { BalancerStats, EndpointStats, MethodStatsView } from './policy/stats';
export { STATS_LABEL_OPTION } from './policy/stats-label';
export { PeakEwmaLoadBalancer } from './policy/peak-ewma';
export { LeastRequestLoadBalancer } from './policy/least-request';
export * as engine from './core';
export * from './observability';
