/**
 * An optional metrics hook: per-endpoint gauges and counters read from
 * `getLoadBalancerStats()` whenever the meter collects. Nothing is computed
 * on the pick path; a collection costs one stats snapshot.
 *
 *   import { metrics } from '@opentelemetry/api';
 *   const handle = registerLoadBalancerMetrics(metrics.getMeter('my-app'));
 *   // ... on shutdown:
 *   handle.unregister();
 */
import { BalancerStats, EndpointStats, getLoadBalancerStats } from '../policy/stats';
import { BatchCallback, MeterLike, MetricAttributes, ObservableInstrument } from './meter';
import { PICK_PATH_NAMES } from '../core/pick-paths';
import { BALANCER_METRIC_SPECS, METHOD_METRIC_SPECS, METRIC_ATTRIBUTES, METRIC_SPECS, MetricSpec, PICKS_METRIC, PICKS_POLICIES } from './metric-names';

/** Options of registerLoadBalancerMetrics. */
export interface LoadBalancerMetricsOptions {
  /** Report only the balancers this accepts (e.g. by `label`); default all. */
  readonly filter?: (stats: BalancerStats) => boolean;
}

/** Returned by registerLoadBalancerMetrics. */
export interface LoadBalancerMetricsHandle {
  /** Stops reporting (removes the meter callback). Idempotent. */
  unregister(): void;
}

interface Instrument<T = EndpointStats> {
  readonly spec: MetricSpec<T>;
  readonly observable: ObservableInstrument;
}

/**
 * Creates the `grpc.lb.peak_ewma.*` and `grpc.lb.least_request.*`
 * instruments on `meter` (an OpenTelemetry `Meter`, or anything shaped like
 * one) and reports every live balancer's endpoints at each collection, with
 * the attributes `grpc.lb.label`, `grpc.lb.endpoint`, `grpc.lb.policy` and
 * `grpc.lb.instance` (see METRIC_ATTRIBUTES). Give each channel its own
 * label (channel option `grpc-js-peak-ewma.stats_label`).
 */
export function registerLoadBalancerMetrics(
  meter: MeterLike,
  options: LoadBalancerMetricsOptions = {},
): LoadBalancerMetricsHandle {
  const create = <T>(spec: MetricSpec<T>): Instrument<T> => ({
    spec,
    observable:
      spec.kind === 'counter' ? meter.createObservableCounter(spec.name, spec.options) : meter.createObservableGauge(spec.name, spec.options),
  });
  const byPolicy = new Map<string, Instrument[]>();
  for (const [policy, specs] of Object.entries(METRIC_SPECS)) {
    byPolicy.set(policy, specs.map(create));
  }
  const methodInstruments = METHOD_METRIC_SPECS.map(create);
  const pickInstruments = [create(PICKS_METRIC)];
  const balancerInstruments = BALANCER_METRIC_SPECS.map(create);
  const observables = [...[...byPolicy.values()].flat(), ...methodInstruments, ...pickInstruments, ...balancerInstruments].map((instrument) => instrument.observable);
  const observeAll = <T>(result: Parameters<BatchCallback>[0], instruments: readonly Instrument<T>[], stats: T, attributes: MetricAttributes): void => {
    for (const { spec, observable } of instruments) {
      const value = spec.read(stats);
      // NaN: a balancer that has had no config yet has no cost.
      if (value !== null && Number.isFinite(value)) {
        result.observe(observable, value, attributes);
      }
    }
  };
  const callback: BatchCallback = (result) => {
    for (const stats of getLoadBalancerStats()) {
      const instruments = byPolicy.get(stats.policy);
      if (instruments === undefined || (options.filter && !options.filter(stats))) {
        continue;
      }
      const balancer: MetricAttributes = {
        [METRIC_ATTRIBUTES.label]: stats.label,
        [METRIC_ATTRIBUTES.policy]: stats.policy,
        [METRIC_ATTRIBUTES.instance]: stats.instanceId,
      };
      for (const endpoint of stats.endpoints) {
        observeAll(result, instruments, endpoint, { ...balancer, [METRIC_ATTRIBUTES.endpoint]: endpoint.address });
      }
      for (const method of stats.methods) {
        observeAll(result, methodInstruments, method, { ...balancer, [METRIC_ATTRIBUTES.method]: method.method });
      }
      if (!PICKS_POLICIES.has(stats.policy)) {
        continue;
      }
      observeAll(result, balancerInstruments, stats, balancer);
      const picks = stats.picks;
      if (picks !== null) {
        for (const path of PICK_PATH_NAMES) {
          observeAll(result, pickInstruments, { path, count: picks[path] }, { ...balancer, [METRIC_ATTRIBUTES.pickPath]: path });
        }
      }
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  let registered = true;
  return {
    unregister() {
      if (registered) {
        registered = false;
        meter.removeBatchObservableCallback(callback, observables);
      }
    },
  };
}
