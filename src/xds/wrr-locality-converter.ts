/**
 * WrrLocality → `xds_wrr_locality`, with its child checked the way grpc-js
 * will use it.
 *
 * grpc-js-xds's own converter (load-balancer-xds-wrr-locality.ts) builds
 * `{xds_wrr_locality: {child_policy: [child]}}`, and CDS validation parses
 * only that top level, whose createFromJson checks that child_policy is an
 * array. The child is parsed when endpoints arrive, by weighted_target inside
 * XdsWrrLocalityLoadBalancer.updateAddressList, where a throw is uncaught and
 * ends the process. Our converters and TypedStruct check their own output;
 * grpc-js-xds's do not: a RingHash with `minimum_ring_size` set converts to
 * `min_ring_size` as a string (its UInt64Value decoded with longs as
 * strings), which ring_hash's config then rejects, so a Cluster with
 * WrrLocality → RingHash was ACKed and crashed every client (found by a cold
 * review, 2026-12-07). This converter, registered over grpc-js-xds's, builds
 * the same config and checks that grpc-js accepts the child under
 * weighted_target, the parse that would have thrown; a child it would
 * reject NACKs the Cluster.
 */
import { LoadBalancingConfig } from '@grpc/grpc-js';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import { assertGrpcAccepts } from './grpc-accepts';
import { decodeUnvalidated, EncodedAny } from './policy-protos';
import { WRR_LOCALITY_TYPE_URL } from './type-urls';

interface WrrLocalityView {
  endpoint_picking_policy?: LoadBalancingPolicy__Output;
}

export function convertWrrLocality(
  typedConfig: EncodedAny,
  selectChildPolicy: (childPolicy: LoadBalancingPolicy__Output) => LoadBalancingConfig,
): LoadBalancingConfig {
  // Not PGV-checked, as grpc-js-xds does not: its only rule is the one below.
  const message = decodeUnvalidated<WrrLocalityView>(typedConfig, WRR_LOCALITY_TYPE_URL);
  if (!message.endpoint_picking_policy) {
    throw new Error('WrrLocality.endpoint_picking_policy: must be set');
  }
  // weighted_target parses the one-entry child list with selectLbConfigFromList: it fails exactly when this throws.
  const childPolicy = [assertGrpcAccepts(selectChildPolicy(message.endpoint_picking_policy))];
  return assertGrpcAccepts({ xds_wrr_locality: { child_policy: childPolicy } });
}
