/**
 * The ADS service (envoy.service.discovery.v3.AggregatedDiscoveryService,
 * StreamAggregatedResources) as a grpc-js ServiceDefinition, serialized with
 * protobufjs types from the control plane's root.
 */
import { ServiceDefinition } from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';

export interface DiscoveryRequest {
  version_info: string;
  node?: { id?: string } | null;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail?: { code?: number; message?: string } | null;
}

export interface DiscoveryResponse {
  version_info: string;
  resources: { type_url: string; value: Buffer }[];
  type_url: string;
  nonce: string;
}

export function adsServiceDefinition(root: protobuf.Root): ServiceDefinition {
  const requestType = root.lookupType('envoy.service.discovery.v3.DiscoveryRequest');
  const responseType = root.lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  const encode = (type: protobuf.Type) => (message: object) => Buffer.from(type.encode(type.fromObject(message)).finish());
  const decode = (type: protobuf.Type) => (buffer: Buffer) =>
    type.toObject(type.decode(buffer), { longs: String, enums: String, defaults: true, arrays: true });
  return {
    StreamAggregatedResources: {
      path: '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources',
      requestStream: true,
      responseStream: true,
      requestSerialize: encode(requestType),
      requestDeserialize: decode(requestType),
      responseSerialize: encode(responseType),
      responseDeserialize: decode(responseType),
    },
  };
}
