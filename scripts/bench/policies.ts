/**
 * The policies under test, each as the service config a client channel gets.
 * Names follow the reference's (`lr_od` = least_request inside
 * outlier_detection with the reference's settings, reference-load-test.md §1).
 */
import { PEAK_EWMA_DEFAULTS, PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';
import { loadPackage } from './package-under-test';

export const POLICY_IDS = [
  'round_robin',
  'least_request',
  'lr_od',
  'peak_ewma',
  'peak_ewma_od',
  'wrr_orca',
] as const;

export type PolicyId = (typeof POLICY_IDS)[number];

/** Policies that route on what the client sees alone (no server help). */
export const CLIENT_ONLY_POLICIES: readonly PolicyId[] = ['round_robin', 'least_request', 'lr_od', 'peak_ewma', 'peak_ewma_od'];

export const POLICY_LABELS: Readonly<Record<PolicyId, string>> = {
  round_robin: 'round_robin',
  least_request: 'least_request',
  lr_od: 'lr+od',
  peak_ewma: 'peak_ewma',
  peak_ewma_od: 'peak_ewma+od',
  wrr_orca: 'wrr (ORCA)',
};

/**
 * A client of the benchmarks: a policy by service config, or through xDS
 * (peak_ewma from Envoy's PeakEwma; round_robin, xDS's default, as the
 * baseline that pays the same xDS layers).
 */
export type XdsClientKind = 'peak_ewma_xds' | 'round_robin_xds';
/**
 * peak_ewma with the `callMarker` interceptor on the channel, as
 * per-method scoring asks (`methodScoring`, on by default): what the marker
 * (a Metadata copy per call) and the method lookup cost per call.
 */
export type MarkedClientKind = 'peak_ewma_marked';
export type ClientKind = PolicyId | XdsClientKind | MarkedClientKind;

export function isMarkedClient(kind: ClientKind): kind is MarkedClientKind {
  return kind === 'peak_ewma_marked';
}

/** The CDS cluster fixture each xDS client kind is served. */
export const XDS_CLUSTER_FIXTURES: Readonly<Record<XdsClientKind, string>> = {
  peak_ewma_xds: 'clusters/peak-ewma.yaml',
  round_robin_xds: 'clusters/round-robin.yaml',
};

export function isXdsClient(kind: ClientKind): kind is XdsClientKind {
  return kind in XDS_CLUSTER_FIXTURES;
}

/** The policy a client kind's channel runs (an xDS or marked client's own). */
export function basePolicyOf(kind: ClientKind): PolicyId {
  if (kind === 'peak_ewma_xds' || kind === 'peak_ewma_marked') return 'peak_ewma';
  if (kind === 'round_robin_xds') return 'round_robin';
  return kind;
}

export function clientLabel(kind: ClientKind): string {
  if (kind === 'peak_ewma_xds') return 'peak_ewma via xDS';
  if (kind === 'round_robin_xds') return 'round_robin via xDS';
  if (kind === 'peak_ewma_marked') return 'peak_ewma + callMarker';
  return POLICY_LABELS[kind];
}

/**
 * grpc-js's outlier_detection accepts durations only as `{seconds, nanos}`
 * objects (its `validatePositiveDuration` rejects proto3 JSON strings like
 * "10s"), so they are written that way here.
 */
function seconds(value: number): { seconds: number; nanos: number } {
  const whole = Math.floor(value);
  return { seconds: whole, nanos: Math.round((value - whole) * 1e9) };
}

/** A proto3 JSON duration ("2.5s"), as our policy and weighted_round_robin read them. */
function durationText(ms: number): string {
  return `${ms / 1000}s`;
}

/**
 * The reference's `lr_od` outlier-detection settings around `child`, its
 * intervals × `timeFactor` (a time-scaled run, scale.ts).
 */
export function outlierDetection(child: object, timeFactor = 1): object {
  return {
    outlier_detection: {
      interval: seconds(10 * timeFactor),
      base_ejection_time: seconds(30 * timeFactor),
      max_ejection_time: seconds(300 * timeFactor),
      max_ejection_percent: 20,
      success_rate_ejection: { stdev_factor: 1900, enforcement_percentage: 100, minimum_hosts: 5, request_volume: 100 },
      failure_percentage_ejection: { threshold: 50, enforcement_percentage: 100, minimum_hosts: 5, request_volume: 50 },
      child_policy: [child],
    },
  };
}

/**
 * A peak_ewma config beside the defaults (`--peak-ewma-config`), checked by
 * the product's parser so a typo fails before a run: the config's JSON, or
 * a RangeError naming the field.
 */
export function parsePeakEwmaOverrides(text: string): Readonly<Record<string, unknown>> {
  let overrides: unknown;
  try {
    overrides = JSON.parse(text);
  } catch (error) {
    throw new RangeError(`--peak-ewma-config: not JSON (${(error as Error).message})`);
  }
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new RangeError('--peak-ewma-config: expected a JSON object of peak_ewma_experimental fields');
  }
  try {
    PeakEwmaLoadBalancingConfig.parse(overrides as Record<string, unknown>);
  } catch (error) {
    throw new RangeError(`--peak-ewma-config: ${(error as Error).message}`);
  }
  return overrides as Record<string, unknown>;
}

/**
 * Defaults (`{}`) or `overrides` on top; in a time-scaled run every
 * duration — the defaults' and the overrides' alike, both in the
 * reference's units — × `timeFactor`, as the product's parser reads them.
 */
function peakEwma(timeFactor: number, overrides: Readonly<Record<string, unknown>> = {}): object {
  if (timeFactor === 1) return { peak_ewma_experimental: { ...overrides } };
  const { decayMs, defaultRttMs, maxEjectionMs, slowStartMs } = PeakEwmaLoadBalancingConfig.parse({ ...overrides }).settings;
  return {
    peak_ewma_experimental: {
      ...overrides,
      decayTime: durationText(decayMs * timeFactor),
      defaultRtt: durationText(defaultRttMs * timeFactor),
      maxEjectionTime: durationText((maxEjectionMs ?? PEAK_EWMA_DEFAULTS.maxEjectionMs) * timeFactor),
      slowStartWindow: durationText((slowStartMs ?? PEAK_EWMA_DEFAULTS.slowStartMs) * timeFactor),
    },
  };
}
const LEAST_REQUEST = { least_request_experimental: { choiceCount: 2 } };

/**
 * weighted_round_robin fed by ORCA out-of-band reports every second (the
 * backends report `application_utilization`, `rps_fractional` and `eps`;
 * probe-backend.ts says why not per-call trailers). Short blackout and update
 * periods so weights take hold within the warm-up.
 */
function wrrOrca(timeFactor: number): object {
  return {
    weighted_round_robin: {
      enable_oob_load_report: true,
      oob_load_reporting_period: durationText(1000 * timeFactor),
      blackout_period: durationText(1000 * timeFactor),
      weight_update_period: durationText(500 * timeFactor),
      weight_expiration_period: durationText(10_000 * timeFactor),
      error_utilization_penalty: 1,
    },
  };
}

/**
 * `timeFactor`: the run's (scale.ts); every time constant of the policy is
 * multiplied by it. `peakEwmaOverrides`: fields set on peak_ewma's config
 * (also inside peak_ewma_od), `--peak-ewma-config`.
 */
export function loadBalancingConfig(policy: PolicyId, timeFactor = 1, peakEwmaOverrides?: Readonly<Record<string, unknown>>): object {
  switch (policy) {
    case 'round_robin':
      return { round_robin: {} };
    case 'least_request':
      return LEAST_REQUEST;
    case 'lr_od':
      return outlierDetection(LEAST_REQUEST, timeFactor);
    case 'peak_ewma':
      return peakEwma(timeFactor, peakEwmaOverrides);
    case 'peak_ewma_od':
      return outlierDetection(peakEwma(timeFactor, peakEwmaOverrides), timeFactor);
    case 'wrr_orca':
      return wrrOrca(timeFactor);
  }
}

/**
 * The channel's service config: the policy, and with `retryAttempts` a
 * retry policy for every method (gRFC A6) that retries UNAVAILABLE, the
 * code of a backend's fast errors; each attempt is picked afresh, so it is
 * the balancer that decides where the retry goes.
 */
export function serviceConfigJson(policy: PolicyId, timeFactor = 1, peakEwmaOverrides?: Readonly<Record<string, unknown>>, retryAttempts?: number): string {
  const config: Record<string, unknown> = { loadBalancingConfig: [loadBalancingConfig(policy, timeFactor, peakEwmaOverrides)] };
  if (retryAttempts !== undefined) {
    config.methodConfig = [
      {
        name: [{}],
        retryPolicy: { maxAttempts: retryAttempts, initialBackoff: '0.001s', maxBackoff: '0.010s', backoffMultiplier: 2, retryableStatusCodes: ['UNAVAILABLE'] },
      },
    ];
  }
  return JSON.stringify(config);
}

export function parsePolicyId(text: string): PolicyId {
  const id = POLICY_IDS.find((p) => p === text);
  if (id === undefined) {
    throw new RangeError(`unknown policy "${text}"; expected one of ${POLICY_IDS.join(', ')}`);
  }
  return id;
}

/** Registers our policies (the compiled package) with grpc-js; call before any channel is made. */
export function registerPolicies(): void {
  loadPackage().register();
}
