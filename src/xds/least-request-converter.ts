/**
 * Envoy's LeastRequest (v3) → `least_request_experimental` (gRFC A48).
 *
 *   choice_count     → choiceCount (default 2; PGV gte 2 from Envoy's proto;
 *                      above 10 our policy clamps to 10, as A48 says)
 *   selection_method → selectionMethod ("N_CHOICES" default, "FULL_SCAN")
 *   active_request_bias: ignored; it only matters with unequal host weights,
 *     and endpoint weights don't reach our policy.
 *   slow_start_config: ignored (no slow start in grpc-js).
 *   locality_lb_config: ignored; locality weighting is done by the parent
 *     policies (xds_wrr_locality), not by the endpoint picker.
 *   enable_full_scan: deprecated and not implemented in Envoy; ignored.
 */
import { LoadBalancingConfig } from '@grpc/grpc-js';
import { LEAST_REQUEST_POLICY_NAME } from '../policy/least-request-config';
import { assertGrpcAccepts } from './grpc-accepts';
import { decodeValidated, EncodedAny } from './policy-protos';
import { LEAST_REQUEST_TYPE_URL } from './type-urls';

/** The fields we read, as decodeValidated returns them (no ts-proto types for Envoy's own protos). */
export interface LeastRequestView {
  choice_count?: number | undefined;
  /** Enum by name; PGV's defined_only guarantees it is one of these. */
  selection_method?: 'N_CHOICES' | 'FULL_SCAN' | undefined;
}

export function leastRequestToJson(message: LeastRequestView): LoadBalancingConfig {
  return {
    [LEAST_REQUEST_POLICY_NAME]: {
      choiceCount: message.choice_count ?? 2,
      selectionMethod: message.selection_method ?? 'N_CHOICES',
    },
  };
}

export function convertLeastRequest(typedConfig: EncodedAny): LoadBalancingConfig {
  return assertGrpcAccepts(leastRequestToJson(decodeValidated<LeastRequestView>(typedConfig, LEAST_REQUEST_TYPE_URL)));
}
