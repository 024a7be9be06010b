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
import { PEAK_EWMA_POLICY_NAME } from '../policy/peak-ewma-config';
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

/** Decodes, enforces PGV, maps, and checks grpc-js accepts the result; throws (→ NACK) otherwise. */
export function convertPeakEwma(typedConfig: EncodedAny): LoadBalancingConfig {
  return assertGrpcAccepts(peakEwmaToJson(decodeValidated<PeakEwma>(typedConfig, PEAK_EWMA_TYPE_URL)));
}
