/**
 * fast-check generators for the `typed_config` Anys grpc-js-xds hands to LB
 * policy converters: well-formed Envoy PeakEwma / LeastRequest / TypedStruct
 * messages with hostile field values (encoded with protobufjs), the same
 * mutated on the wire (bit flips, truncation, insertion, splicing), and
 * random bytes.
 */
import fc from 'fast-check';
import * as protobuf from 'protobufjs';
import { loadProtoRoot, PEAK_EWMA_PROTO } from '../../../src/xds/proto-root';
import {
  LEAST_REQUEST_TYPE_URL,
  PEAK_EWMA_TYPE_URL,
  UDPA_TYPED_STRUCT_TYPE_URL,
  XDS_TYPED_STRUCT_TYPE_URL,
} from '../../../src/xds/type-urls';
import { PROTOTYPE_KEYS } from './config-arbitraries';

export const WRR_LOCALITY_TYPE_URL =
  'type.googleapis.com/envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality';

export const fuzzRoot: protobuf.Root = loadProtoRoot([
  PEAK_EWMA_PROTO,
  'envoy/extensions/load_balancing_policies/least_request/v3/least_request.proto',
  'envoy/extensions/load_balancing_policies/wrr_locality/v3/wrr_locality.proto',
  'xds/type/v3/typed_struct.proto',
  'udpa/type/v1/typed_struct.proto',
]);

const typeOf = (url: string) => fuzzRoot.lookupType(url.substring(url.lastIndexOf('/') + 1));
const PEAK_EWMA = typeOf(PEAK_EWMA_TYPE_URL);
const LEAST_REQUEST = typeOf(LEAST_REQUEST_TYPE_URL);
const WRR_LOCALITY = typeOf(WRR_LOCALITY_TYPE_URL);

export interface EncodedAny {
  type_url: string;
  value: Buffer;
}

function encode(type: protobuf.Type, object: Record<string, unknown>): Buffer {
  return Buffer.from(type.encode(type.fromObject(object)).finish());
}

// --- field values ---

/** int64 seconds as protobufjs takes them (numbers or decimal strings), at and past every edge. */
const seconds = fc.oneof(
  fc.constantFrom(0, 1, -1, 10, 3600, 3601, 315_576_000_000, 315_576_000_001, 2 ** 53, '9223372036854775807', '-9223372036854775808', '-1'),
  fc.integer({ min: -5, max: 4000 }),
);
/** int32 nanos, in and out of the Duration's [-999999999, 999999999]. */
const nanos = fc.oneof(
  fc.constantFrom(0, 1, -1, 999_999_999, 1_000_000_000, -999_999_999, 2_147_483_647, -2_147_483_648, 500_000_000),
  fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
);
const duration = fc.record({ seconds, nanos }, { requiredKeys: [] });
const doubleValue = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 1e6, 1e12, 1e13, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.double(),
);
const uint32Value = fc.oneof(fc.constantFrom(0, 1, 2, 3, 10, 11, 1000, 0xffffffff), fc.nat());

const hostilePeakEwmaObject = fc.record(
  {
    decay_time: duration,
    aggregation_interval: duration,
    max_samples_per_host: uint32Value.map((value) => ({ value })),
    default_rtt: duration,
    penalty_value: doubleValue.map((value) => ({ value })),
  },
  { requiredKeys: [] },
);
/** A positive Duration of at most `maxSeconds` (whole seconds below it, any nanos). */
const positiveDuration = (maxSeconds: number) =>
  fc.record({ seconds: fc.integer({ min: 0, max: maxSeconds - 1 }), nanos: fc.integer({ min: 1, max: 999_999_999 }) });
/**
 * Every field within Envoy's rules and our caps (decay ≤ 1 h, default_rtt ≤ 60 s, penalty ≤ 1e12), any
 * subset present. With five hostile fields an input is valid about once in 35, and a run of 1,500 reached
 * the accepted outcome 35–50 times, close to the 30 the properties ask for: a quarter of the well-formed
 * messages are drawn valid, so the accepted path is exercised with varied values in every run.
 */
const validPeakEwmaObject = fc.record(
  {
    decay_time: positiveDuration(3_600),
    aggregation_interval: positiveDuration(60),
    max_samples_per_host: fc.integer({ min: 1, max: 100_000 }).map((value) => ({ value })),
    default_rtt: positiveDuration(60),
    penalty_value: fc.double({ min: 1e-3, max: 1e12, noNaN: true }).map((value) => ({ value })),
  },
  { requiredKeys: [] },
);
const peakEwmaObject = fc.oneof({ weight: 3, arbitrary: hostilePeakEwmaObject }, { weight: 1, arbitrary: validPeakEwmaObject });

const leastRequestObject = fc.record(
  {
    choice_count: uint32Value.map((value) => ({ value })),
    // 0 N_CHOICES, 1 FULL_SCAN, anything else undefined in the enum.
    selection_method: fc.constantFrom(0, 1, 2, 7, -1),
    active_request_bias: fc.record({ default_value: doubleValue, runtime_key: fc.constantFrom('k', '') }),
    enable_full_scan: fc.boolean().map((value) => ({ value })),
  },
  { requiredKeys: [] },
);

// --- TypedStruct ---

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON value as a google.protobuf.Value object for fromObject. */
function toValue(json: Json): Record<string, unknown> {
  if (json === null) return { nullValue: 0 };
  if (typeof json === 'number') return { numberValue: json };
  if (typeof json === 'string') return { stringValue: json };
  if (typeof json === 'boolean') return { boolValue: json };
  if (Array.isArray(json)) return { listValue: { values: json.map(toValue) } };
  return { structValue: toStruct(json) };
}

function toStruct(json: { [key: string]: Json }): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    Object.defineProperty(fields, key, { value: toValue(value), enumerable: true, writable: true, configurable: true });
  }
  return { fields };
}

/** Our policies' fields (either casing), wrong types and prototype keys, as a Struct. */
const policyJson: fc.Arbitrary<{ [key: string]: Json }> = fc.dictionary(
  fc.constantFrom(
    'choiceCount', 'choice_count', 'decayTime', 'decay_time', 'defaultRtt', 'penaltyValue', 'errorPenaltyFactor',
    'selectionMethod', 'childPolicy', 'unknown', ...PROTOTYPE_KEYS,
  ),
  fc.oneof(
    fc.constantFrom<Json>(2, 3, 1, 0, -1, 11, 1e300, 2.5, '10s', '0.5s', '-1s', '1e400s', 'FULL_SCAN', 'N_CHOICES', null, true),
    fc.double({ noNaN: true, noDefaultInfinity: true }) as fc.Arbitrary<Json>,
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  ),
  { maxKeys: 5 },
);

const POLICY_URLS = [
  'type.googleapis.com/peak_ewma_experimental',
  'x/least_request_experimental',
  'peak_ewma_experimental',
  'x/round_robin',
  'x/pick_first',
  'x/not_registered',
  'x/',
  '',
];

/** A TypedStruct naming one of POLICY_URLS or an Object.prototype member (skipped since 2026-12-01: xds-converter-fuzz's specs). */
const typedStructAny: fc.Arbitrary<EncodedAny> = fc
  .tuple(
    fc.constantFrom(XDS_TYPED_STRUCT_TYPE_URL, UDPA_TYPED_STRUCT_TYPE_URL),
    fc.constantFrom(...POLICY_URLS, ...PROTOTYPE_KEYS.map((key) => `x/${key}`)),
    fc.option(policyJson, { nil: undefined }),
  )
  .map(([anyUrl, url, value]) => ({
    type_url: anyUrl,
    value: encode(typeOf(anyUrl), { type_url: url, ...(value === undefined ? {} : { value: toStruct(value) }) }),
  }));

// --- wire mutations ---

type Mutation =
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'append'; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }) }),
);

function mutate(bytes: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const change of mutations) {
    const at = out.length === 0 ? 0 : change.kind === 'append' ? 0 : change.at % (out.length + 1);
    switch (change.kind) {
      case 'flip':
        if (out.length > 0) out[at % out.length] ^= change.mask;
        break;
      case 'truncate':
        out = out.subarray(0, at);
        break;
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), change.bytes, out.subarray(at)]);
        break;
      case 'append':
        out = Buffer.concat([out, change.bytes]);
        break;
    }
  }
  return out;
}

/** Well-formed messages of one type, then those mutated, then random bytes under its URL. */
function anyFamily(typeUrl: string, wellFormed: fc.Arbitrary<Buffer>): fc.Arbitrary<EncodedAny> {
  return fc.oneof(
    { weight: 4, arbitrary: wellFormed },
    { weight: 3, arbitrary: fc.tuple(wellFormed, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([bytes, changes]) => mutate(bytes, changes)) },
    // Two messages back to back: protobuf merges them (last scalar wins, sub-messages merge).
    { weight: 1, arbitrary: fc.tuple(wellFormed, wellFormed).map(([a, b]) => Buffer.concat([a, b])) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 48 }).map((bytes) => Buffer.from(bytes)) },
  ).map((value) => ({ type_url: typeUrl, value }));
}

export const peakEwmaAny = anyFamily(PEAK_EWMA_TYPE_URL, peakEwmaObject.map((object) => encode(PEAK_EWMA, object)));
export const leastRequestAny = anyFamily(LEAST_REQUEST_TYPE_URL, leastRequestObject.map((object) => encode(LEAST_REQUEST, object)));
/** TypedStructs naming any policy, Object.prototype names too, well-formed and mutated. */
export function typedStructFamily(): fc.Arbitrary<EncodedAny> {
  const wellFormed = typedStructAny;
  return fc.oneof(
    { weight: 4, arbitrary: wellFormed },
    {
      weight: 2,
      arbitrary: fc
        .tuple(wellFormed, fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([any, changes]) => ({ type_url: any.type_url, value: mutate(any.value, changes) })),
    },
  );
}

/** grpc-js-xds's view of a Cluster's load_balancing_policy (LoadBalancingPolicy__Output). */
export function policyList(any: EncodedAny, name = 'fuzzed') {
  return { policies: [{ typed_extension_config: { name, typed_config: any } }] };
}

/** The same, wrapped in Envoy's WrrLocality (encoded, as a control plane sends it). */
export function underWrrLocality(any: EncodedAny) {
  const value = encode(WRR_LOCALITY, {
    endpoint_picking_policy: {
      policies: [{ typed_extension_config: { name: 'fuzzed', typed_config: { type_url: any.type_url, value: any.value } } }],
    },
  });
  return policyList({ type_url: WRR_LOCALITY_TYPE_URL, value }, 'wrr');
}

/**
 * A TypedStruct whose Struct is nested `depth` levels deep, written by hand
 * on the wire (protobufjs refuses to encode past its recursion limit of 100):
 * Struct{fields: {"n": Value{struct_value: Struct{...}}}}.
 */
export function deepTypedStruct(depth: number, policyUrl = 'x/peak_ewma_experimental'): EncodedAny {
  const field = (number: number, payload: Buffer) => {
    const writer = protobuf.Writer.create();
    writer.uint32((number << 3) | 2).bytes(payload);
    return Buffer.from(writer.finish());
  };
  const text = (value: string) => Buffer.from(value, 'utf8');
  let struct = Buffer.alloc(0); // the innermost Struct is empty
  for (let level = 0; level < depth; level++) {
    const value = field(5, struct); // Value.struct_value = 5
    const entry = Buffer.concat([field(1, text('n')), field(2, value)]); // map entry: key = 1, value = 2
    struct = field(1, entry); // Struct.fields = 1
  }
  const typedStruct = Buffer.concat([field(1, text(policyUrl)), field(2, struct)]); // TypedStruct: type_url = 1, value = 2
  return { type_url: XDS_TYPED_STRUCT_TYPE_URL, value: typedStruct };
}
