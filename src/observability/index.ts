/** Observability: a text view of the stats snapshot and an OpenTelemetry-style metrics hook. */
export { formatLoadBalancerStats } from './format';
export { registerLoadBalancerMetrics } from './metrics';
export type { LoadBalancerMetricsHandle, LoadBalancerMetricsOptions } from './metrics';
export { BALANCER_METRIC_SPECS, METHOD_METRIC_SPECS, METRIC_ATTRIBUTES, METRIC_SPECS, PICKS_METRIC } from './metric-names';
export type { MetricSpec, PickPathView } from './metric-names';
export type {
  BatchCallback,
  BatchObservation,
  InstrumentOptions,
  MeterLike,
  MetricAttributes,
  MetricAttributeValue,
  ObservableInstrument,
} from './meter';
