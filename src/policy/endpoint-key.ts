/** Endpoint identity (gRFC A61): the unordered set of its addresses. */
import { experimental } from '@grpc/grpc-js';

/**
 * A string key for the endpoint's address set, order-insensitive, so that a
 * resolver reordering an endpoint's addresses keeps its state. O(k log k) in
 * the endpoint's own addresses, where grpc-js's EndpointMap compares every
 * entry on each lookup.
 */
export function endpointKey(endpoint: experimental.Endpoint): string {
  if (endpoint.addresses.length === 1) {
    return experimental.subchannelAddressToString(endpoint.addresses[0]);
  }
  return endpoint.addresses.map((address) => experimental.subchannelAddressToString(address)).sort().join(',');
}
