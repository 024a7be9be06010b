/**
 * Envoy's PeakEwma (contrib, v3alpha) → `peak_ewma_experimental`.
 *
 *   decay_time           → decayTime   (time constant, not half-life; default 10s)
 *   default_rtt          → defaultRtt  (default 10ms)
 *   penalty_value        → penaltyValue, unchanged: both are ms × requests (default 1e6)
 *   aggregation_interval, max_samples_per_host: PGV-validated, otherwise unused
 *     (they batch samples across Envoy's worker threads; a grpc-js channel
 *     records every sample at once)
 *   choiceCount 2: Envoy always compares two hosts.
 *
 * errorPenaltyFactor is not emitted, so our policy's JSON default applies:
 * Envoy has no such field.
 */
import { LoadBalancingConfig } from '@grpc/grpc-js';
import type { PeakEwma } from '../generated/envoy/extensions/load_balancing_policies/peak_ewma/v3alpha/peak_ewma';
import { ConfigError } from '../policy/config-fields';
import { PEAK_EWMA_POLICY_NAME, PeakEwmaLoadBalancingConfig } from '../policy/peak-ewma-config';
import { durationToJson } from './duration';
import { assertGrpcAccepts } from './grpc-accepts';
import { decodeValidated, EncodedAny } from './policy-protos';
import { PEAK_EWMA_TYPE_URL } from './type-urls';

/** Envoy's defaults for omitted fields (contrib/peak_ewma config.cc), as proto3 JSON. */
export const ENVOY_PEAK_EWMA_DEFAULTS = {
  decayTime: '10s',
  aggregationInterval: '0.1s',
  maxSamplesPerHost: 1000,
  defaultRtt: '0.01s',
  penaltyValue: 1_000_000,
} as const;

/** Envoy's PeakEwma picks the cheaper of two random hosts. */
export const ENVOY_PEAK_EWMA_CHOICE_COUNT = 2;

export function peakEwmaToJson(message: PeakEwma): LoadBalancingConfig {
  return {
    [PEAK_EWMA_POLICY_NAME]: {
      choiceCount: ENVOY_PEAK_EWMA_CHOICE_COUNT,
      decayTime: message.decay_time ? durationToJson(message.decay_time) : ENVOY_PEAK_EWMA_DEFAULTS.decayTime,
      defaultRtt: message.default_rtt ? durationToJson(message.default_rtt) : ENVOY_PEAK_EWMA_DEFAULTS.defaultRtt,
      penaltyValue: message.penalty_value ?? ENVOY_PEAK_EWMA_DEFAULTS.penaltyValue,
    },
  };
}

/**
 * Envoy's PGV rules only ask decay_time, default_rtt and penalty_value to be
 * positive; our policy also caps them (PEAK_EWMA_LIMITS: 1 h, 60 s, 1e12).
 * A NACK for a cap says so, or an operator whose Envoys take the Cluster
 * would look for the error in the control plane.
 */
export const ABOVE_OUR_LIMIT_NOTE =
  ' (Envoy accepts any positive value here; grpc-js-peak-ewma caps it: docs/xds.md, "Limits beyond Envoy\'s")';

/** The PeakEwma field each field we emit comes from, to name it in a NACK as the Cluster spells it. */
const PROTO_FIELD_OF: Readonly<Record<string, string>> = {
  decayTime: 'PeakEwma.decay_time',
  defaultRtt: 'PeakEwma.default_rtt',
  penaltyValue: 'PeakEwma.penalty_value',
};

/** Decodes, enforces PGV, maps, and checks grpc-js accepts the result; throws (→ NACK) otherwise. */
export function convertPeakEwma(typedConfig: EncodedAny): LoadBalancingConfig {
  const config = peakEwmaToJson(decodeValidated<PeakEwma>(typedConfig, PEAK_EWMA_TYPE_URL));
  try {
    // Our own parser first, for an error that names the field and shows the value as given (the
    // JSON grpc-js's message quotes writes penalty_value +Infinity as null).
    PeakEwmaLoadBalancingConfig.parse(config[PEAK_EWMA_POLICY_NAME]);
  } catch (error) {
    if (!(error instanceof ConfigError) || !(error.field in PROTO_FIELD_OF)) throw error;
    // Every field we emit except choiceCount (a constant 2) is positive by PGV, so "at most" is one of
    // the caps, and "finite" is penalty_value +Infinity, which PGV's gt: 0 takes (NaN it does not).
    const aboveOurLimit = error.rule.includes('at most') || error.rule.includes('must be a finite number');
    throw new Error(`${PROTO_FIELD_OF[error.field]}: ${error.rule}${aboveOurLimit ? ABOVE_OUR_LIMIT_NOTE : ''}`);
  }
  return assertGrpcAccepts(config);
}
