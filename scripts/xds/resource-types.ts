/**
 * The four xDS resource types the fake control plane serves, and the proto
 * root it encodes them with: every message that may appear inside an Any in
 * our fixtures must be loaded here, or encoding refuses the "@type".
 */
import * as protobuf from 'protobufjs';
import { loadProtoRoot, PEAK_EWMA_PROTO } from '../../src/xds/proto-root';

export type ResourceKind = 'listener' | 'route' | 'cluster' | 'endpoint';

export const TYPE_URLS: Readonly<Record<ResourceKind, string>> = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
};

export const RESOURCE_KINDS = Object.keys(TYPE_URLS) as ResourceKind[];

export function kindOfTypeUrl(typeUrl: string): ResourceKind | null {
  return RESOURCE_KINDS.find((kind) => TYPE_URLS[kind] === typeUrl) ?? null;
}

/** The field that names a resource of this kind. */
export const NAME_FIELDS: Readonly<Record<ResourceKind, string>> = {
  listener: 'name',
  route: 'name',
  cluster: 'name',
  endpoint: 'cluster_name',
};

const LB_POLICIES = [
  'round_robin',
  'wrr_locality',
  'least_request',
  'ring_hash',
  'maglev',
  'pick_first',
  'client_side_weighted_round_robin',
];

export const CONTROL_PLANE_PROTOS = [
  'envoy/service/discovery/v3/ads.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  ...LB_POLICIES.map((name) => `envoy/extensions/load_balancing_policies/${name}/v3/${name}.proto`),
  'xds/type/v3/typed_struct.proto',
  'udpa/type/v1/typed_struct.proto',
  PEAK_EWMA_PROTO,
];

let sharedRoot: protobuf.Root | null = null;

/** Loaded once per process (it takes a while: Envoy's protos are large). */
export function controlPlaneRoot(): protobuf.Root {
  sharedRoot ??= loadProtoRoot(CONTROL_PLANE_PROTOS);
  return sharedRoot;
}
