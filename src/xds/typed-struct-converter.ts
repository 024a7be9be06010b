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
 *
 * Parsing the top level is not enough for the policies grpc-js-xds builds
 * its tree from: their createFromJson checks only the shape of what they
 * carry (xds_wrr_locality: that child_policy is an array; cds: that cluster
 * is a string). Named in a TypedStruct, a bad child is then ACKed and throws,
 * uncaught, at the next address update, and a cds naming its own cluster
 * recurses until the stack overflows: either ends the process. A TypedStruct
 * names a policy for A52's escape hatch, not a piece of the xDS tree, so
 * these names are refused wherever they appear in its config.
 */
import { LoadBalancingConfig } from '@grpc/grpc-js';
import { isPolicyRegistered } from '../policy/register';
import { childPolicyLists, MAX_CHILD_POLICY_DEPTH } from '../policy/validate';
import { assertGrpcAccepts } from './grpc-accepts';
import { decodeValidated, EncodedAny } from './policy-protos';
import { typeNameOfUrl } from './proto-root';
import { DecodedStruct, flattenStruct } from './struct';
import { UDPA_TYPED_STRUCT_TYPE_URL, XDS_TYPED_STRUCT_TYPE_URL } from './type-urls';

/** grpc-js-xds's tree policies (cds → xds_cluster_impl → priority → …); grpc-js-lb-internals.md. */
const XDS_TREE_POLICIES: ReadonlySet<string> = new Set([
  'cds',
  'xds_cluster_impl',
  'xds_cluster_manager',
  'priority',
  'weighted_target',
  'xds_wrr_locality',
]);

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
  // Refused even where grpc-js-xds is not loaded (the name then unregistered): never a TypedStruct's.
  refuseTreePolicy(policyName, 'TypedStruct.type_url');
  if (!isPolicyRegistered(policyName)) {
    return null;
  }
  const config = { [policyName]: flattenStruct(typedStruct.value ?? {}) };
  refuseTreePolicyChildren(config, 0);
  return assertGrpcAccepts(config);
}

function refuseTreePolicy(name: string, where: string): void {
  if (XDS_TREE_POLICIES.has(name)) {
    throw new Error(
      `${where}: policy "${name}" is one grpc-js-xds builds the xDS tree from and cannot be named in a TypedStruct ` +
        '(its children would be checked only when endpoints arrive, and a bad one would end the process)',
    );
  }
}

/**
 * Throws if a policy in the `child_policy` / `childPolicy` lists of `entry`
 * (`{name: config}`), at any depth, is one of grpc-js-xds's tree policies.
 */
function refuseTreePolicyChildren(entry: Record<string, unknown>, depth: number): void {
  // The same count as validate.ts: 32 child lists below the top entry pass, 33 do not.
  if (depth > MAX_CHILD_POLICY_DEPTH) {
    throw new Error(`TypedStruct.value: child policies nested deeper than ${MAX_CHILD_POLICY_DEPTH} levels`);
  }
  for (const [name, config] of Object.entries(entry)) {
    for (const [key, children] of childPolicyLists(config)) {
      if (!Array.isArray(children)) {
        continue;
      }
      children.forEach((child, index) => {
        if (typeof child === 'object' && child !== null && !Array.isArray(child)) {
          for (const childName of Object.keys(child)) {
            refuseTreePolicy(childName, `TypedStruct.value ${name}.${key}[${index}]`);
          }
          refuseTreePolicyChildren(child as Record<string, unknown>, depth + 1);
        }
      });
    }
  }
}
