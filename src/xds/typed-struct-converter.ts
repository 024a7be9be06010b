/**
 * TypedStruct (xds.type.v3 and udpa.type.v1) → `{<name>: <its Struct as
 * JSON>}`, gRFC A52's escape hatch for policies without a proto: the name is
 * the TypedStruct's type_url after its last '/', an unregistered name is
 * skipped (null: the next policy in the list is tried).
 *
 * grpc-js-xds has its own converter for these URLs; we register this one over
 * it because that one doesn't validate its output: a bad config under
 * xds_wrr_locality is ACKed and then crashes the process. Ours parses its
 * output as grpc-js will and throws (→ NACK). A TypedStruct without a value
 * means an empty config ({}), as in grpc-go.
 */
import { experimental, LoadBalancingConfig } from '@grpc/grpc-js';
import { assertGrpcAccepts } from './grpc-accepts';
import { decodeValidated, EncodedAny } from './policy-protos';
import { typeNameOfUrl } from './proto-root';
import { DecodedStruct, flattenStruct } from './struct';
import { UDPA_TYPED_STRUCT_TYPE_URL, XDS_TYPED_STRUCT_TYPE_URL } from './type-urls';

interface TypedStructView {
  type_url?: string;
  value?: DecodedStruct;
}

export function convertTypedStruct(typedConfig: EncodedAny): LoadBalancingConfig | null {
  if (typedConfig.type_url !== XDS_TYPED_STRUCT_TYPE_URL && typedConfig.type_url !== UDPA_TYPED_STRUCT_TYPE_URL) {
    throw new Error(`unexpected type URL ${typedConfig.type_url} for a TypedStruct`);
  }
  const typedStruct = decodeValidated<TypedStructView>(typedConfig, typedConfig.type_url);
  const policyName = typeNameOfUrl(typedStruct.type_url ?? '');
  // grpc-js checks registration with `in`: "constructor" or "toString" would
  // look registered. No real policy has such a name; skip it like any unknown one.
  if (policyName === '' || policyName in Object.prototype || !experimental.isLoadBalancerNameRegistered(policyName)) {
    return null;
  }
  return assertGrpcAccepts({ [policyName]: flattenStruct(typedStruct.value ?? {}) });
}
