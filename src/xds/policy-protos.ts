/**
 * The protos of the LB policy configs we convert, loaded once, and decoding of
 * a policy's `typed_config` Any into a plain object that has passed its PGV
 * rules.
 */
import * as protobuf from 'protobufjs';
import { assertValid, compileValidator } from './pgv/enforcer';
import { loadProtoRoot, lookupMessageType, PEAK_EWMA_PROTO } from './proto-root';
import { toProtoView } from './proto-view';

const POLICY_PROTOS = [
  PEAK_EWMA_PROTO,
  'envoy/extensions/load_balancing_policies/least_request/v3/least_request.proto',
  'xds/type/v3/typed_struct.proto',
  'udpa/type/v1/typed_struct.proto',
  'envoy/extensions/load_balancing_policies/wrr_locality/v3/wrr_locality.proto',
];

/**
 * protobufjs `toObject` options: int64 as decimal strings, enums by name,
 * absent fields left out (so "unset" stays visible, which PGV needs), bytes
 * as Buffers.
 */
export const TO_OBJECT_OPTIONS: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: false,
  arrays: false,
  oneofs: false,
};

/** An Any as grpc-js-xds hands it to a converter: still encoded. */
export interface EncodedAny {
  type_url: string;
  value: Buffer | Uint8Array;
}

let root: protobuf.Root | null = null;

export function policyProtoRoot(): protobuf.Root {
  root ??= loadProtoRoot(POLICY_PROTOS);
  return root;
}

export function policyMessageType(typeUrl: string): protobuf.Type {
  const type = lookupMessageType(policyProtoRoot(), typeUrl);
  if (type === null) {
    throw new Error(`grpc-js-peak-ewma: no message type for ${typeUrl} in ${POLICY_PROTOS.join(', ')}`);
  }
  return type;
}

/** Compiles the PGV rules of these messages now, so an unsupported annotation fails loudly at startup. */
export function precompileValidators(typeUrls: readonly string[]): void {
  for (const typeUrl of typeUrls) {
    compileValidator(policyMessageType(typeUrl));
  }
}

/**
 * Decodes `any` as `expectedTypeUrl` and enforces its PGV rules. Throws with
 * the field and rule on a violation (the converter's caller NACKs the
 * Cluster). Returns the ts-proto-shaped view (wrappers unwrapped).
 */
export function decodeValidated<T>(any: EncodedAny, expectedTypeUrl: string): T {
  const { type, decoded } = decodeAs(any, expectedTypeUrl, TO_OBJECT_OPTIONS);
  assertValid(type, decoded);
  return toProtoView(type, decoded) as T;
}

/**
 * Decodes `any` as `expectedTypeUrl` into the shape grpc-js-xds's own decoder
 * gives (proto field names, every repeated field an array, an Any still
 * encoded), for a message that goes back to grpc-js-xds (WrrLocality's
 * endpoint_picking_policy); no PGV rules are enforced.
 */
export function decodeUnvalidated<T>(any: EncodedAny, expectedTypeUrl: string): T {
  return decodeAs(any, expectedTypeUrl, { ...TO_OBJECT_OPTIONS, arrays: true }).decoded as T;
}

/** `any` decoded as `expectedTypeUrl` with `options`; throws naming the type URL or the message. */
function decodeAs(
  any: EncodedAny,
  expectedTypeUrl: string,
  options: protobuf.IConversionOptions,
): { type: protobuf.Type; decoded: Record<string, unknown> } {
  if (any.type_url !== expectedTypeUrl) {
    throw new Error(`unexpected type URL ${any.type_url}, expected ${expectedTypeUrl}`);
  }
  const type = policyMessageType(expectedTypeUrl);
  try {
    return { type, decoded: type.toObject(type.decode(any.value), options) };
  } catch (error) {
    throw new Error(`cannot decode ${type.name}: ${(error as Error).message}`);
  }
}
