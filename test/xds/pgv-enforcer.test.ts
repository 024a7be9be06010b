/**
 * The PGV enforcer reads (validate.rules) off protobufjs descriptors. These
 * tests compile small .proto sources that use validate.proto from
 * @grpc/grpc-js-xds's deps, plus Envoy's own LeastRequest.
 */
import * as protobuf from 'protobufjs';
import { assertValid, compileValidator, findViolations, PgvViolation } from '../../src/xds/pgv/enforcer';
import { policyMessageType, TO_OBJECT_OPTIONS } from '../../src/xds/policy-protos';
import { loadProtoRoot } from '../../src/xds/proto-root';
import { LEAST_REQUEST_TYPE_URL, PEAK_EWMA_TYPE_URL } from '../../src/xds/type-urls';

const SOURCE = `
syntax = "proto3";
package t;
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "validate/validate.proto";

message Sample {
  enum Color { RED = 0; GREEN = 1; }
  google.protobuf.Duration timeout = 1 [(validate.rules).duration = {gte {seconds: 1}, lt {seconds: 60}}];
  google.protobuf.Duration must_have = 2 [(validate.rules).duration = {required: true}];
  uint32 plain_count = 3 [(validate.rules).uint32 = {gte: 1, lte: 5}];
  google.protobuf.UInt32Value wrapped_count = 4 [(validate.rules).uint32 = {gt: 2}];
  int64 big = 5 [(validate.rules).int64 = {lt: 10000000000}];
  double ratio = 6 [(validate.rules).double = {gt: 0, lt: 1, ignore_empty: true}];
  int32 outside = 7 [(validate.rules).int32 = {gt: 10, lt: 0}];
  Color color = 8 [(validate.rules).enum = {defined_only: true}];
  Inner inner = 9 [(validate.rules).message = {required: true}];
  repeated Inner items = 10 [(validate.rules).repeated = {min_items: 1}];
  Inner skipped = 11 [(validate.rules).message = {skip: true}];
  oneof choice {
    option (validate.required) = true;
    string name = 12;
    uint32 id = 13;
  }
}

message Inner {
  string label = 1 [(validate.rules).string = {min_len: 2, max_len: 4}];
}

message Unsupported {
  string host = 1 [(validate.rules).string = {well_known_regex: HTTP_HEADER_NAME}];
}

message Mismatched {
  string text = 1 [(validate.rules).uint32 = {gte: 1}];
}
`;

function sampleRoot(): protobuf.Root {
  const root = loadProtoRoot(['validate/validate.proto', 'google/protobuf/duration.proto', 'google/protobuf/wrappers.proto']);
  protobuf.parse(SOURCE, root, { keepCase: true });
  root.resolveAll();
  return root;
}

const root = sampleRoot();
const Sample = root.lookupType('t.Sample');

/** Encodes then decodes, so the enforcer sees exactly what a converter sees. */
function roundTrip(type: protobuf.Type, object: Record<string, unknown>): Record<string, unknown> {
  return type.toObject(type.decode(type.encode(type.fromObject(object)).finish()), TO_OBJECT_OPTIONS);
}

const VALID = {
  timeout: { seconds: 5 },
  must_have: { seconds: 1 },
  plain_count: 3,
  wrapped_count: { value: 3 },
  outside: 20,
  color: 'GREEN',
  inner: { label: 'ab' },
  items: [{ label: 'abc' }],
  name: 'x',
};

function violationsOf(overrides: Record<string, unknown>, omit: string[] = []): string[] {
  const object: Record<string, unknown> = { ...VALID, ...overrides };
  for (const key of omit) {
    delete object[key];
  }
  return findViolations(Sample, roundTrip(Sample, object));
}

test('a message that meets every rule has no violations', () => {
  expect(violationsOf({})).toEqual([]);
});

test('duration gte / lt bounds name the field, the rule and the value', () => {
  expect(violationsOf({ timeout: { nanos: 500_000_000 } })).toEqual([
    'Sample.timeout: must be >= 1s (validate.rules.duration.gte), got 0.5s',
  ]);
  expect(violationsOf({ timeout: { seconds: 60 } })).toEqual([
    'Sample.timeout: must be < 60s (validate.rules.duration.lt), got 60s',
  ]);
  // An unset Duration without `required` is not checked.
  expect(violationsOf({}, ['timeout'])).toEqual([]);
});

test('duration.required and message.required ask for presence', () => {
  expect(violationsOf({}, ['must_have', 'inner'])).toEqual([
    'Sample.must_have: is required (validate.rules.message.required)',
    'Sample.inner: is required (validate.rules.message.required)',
  ]);
});

test('rules on a plain scalar apply to its zero value when unset', () => {
  expect(violationsOf({}, ['plain_count'])).toEqual([
    'Sample.plain_count: must be >= 1 (validate.rules.uint32.gte), got 0',
  ]);
  expect(violationsOf({ plain_count: 6 })).toEqual(['Sample.plain_count: must be <= 5 (validate.rules.uint32.lte), got 6']);
});

test('rules on a wrapper apply to the wrapped value only when the wrapper is set', () => {
  expect(violationsOf({}, ['wrapped_count'])).toEqual([]);
  // Set to zero: the wrapper is present, its value field is not on the wire.
  expect(violationsOf({ wrapped_count: { value: 0 } })).toEqual([
    'Sample.wrapped_count: must be > 2 (validate.rules.uint32.gt), got 0',
  ]);
});

test('int64 bounds compare exactly, beyond 2^53', () => {
  expect(violationsOf({ big: '9999999999' })).toEqual([]);
  expect(violationsOf({ big: '10000000000' })).toEqual([
    'Sample.big: must be < 10000000000 (validate.rules.int64.lt), got 10000000000',
  ]);
});

test('ignore_empty skips the zero value; double bounds apply otherwise', () => {
  expect(violationsOf({ ratio: 0 })).toEqual([]);
  expect(violationsOf({ ratio: 1.5 })).toEqual(['Sample.ratio: must be < 1 (validate.rules.double.lt), got 1.5']);
});

test('an inverted range (gt above lt) means outside the range, as in PGV', () => {
  expect(violationsOf({ outside: 11 })).toEqual([]);
  expect(violationsOf({ outside: -1 })).toEqual([]);
  expect(violationsOf({ outside: 5 })).toEqual([
    'Sample.outside: must be > 10 or < 0 (validate.rules.int32.gt, validate.rules.int32.lt), got 5',
  ]);
});

test('enum defined_only rejects numbers without a name', () => {
  expect(violationsOf({ color: 7 })).toEqual([
    'Sample.color: must be one of the defined values [RED, GREEN] (validate.rules.enum.defined_only), got 7',
  ]);
});

test('set sub-messages and repeated items are validated recursively; message.skip is honoured', () => {
  expect(violationsOf({ inner: { label: 'a' }, items: [{ label: 'ab' }, { label: 'abcde' }], skipped: { label: '' } })).toEqual([
    'Sample.inner.label: length must be >= 2 (validate.rules.string.min_len), got "a"',
    'Sample.items[1].label: length must be <= 4 (validate.rules.string.max_len), got "abcde"',
  ]);
  expect(violationsOf({ items: [] })).toEqual([
    'Sample.items: must have at least 1 items (validate.rules.repeated.min_items), got 0 items',
  ]);
});

test('a required oneof needs one member set', () => {
  expect(violationsOf({}, ['name'])).toEqual(['Sample.choice: one of [name, id] must be set (validate.required)']);
  expect(violationsOf({ id: 0 }, ['name'])).toEqual([]);
});

test('assertValid throws a PgvViolation listing every broken rule', () => {
  const decoded = roundTrip(Sample, { ...VALID, plain_count: 9, color: 9 });
  expect(() => assertValid(Sample, decoded)).toThrow(PgvViolation);
  expect(() => assertValid(Sample, decoded)).toThrow(
    'Sample.plain_count: must be <= 5 (validate.rules.uint32.lte), got 9; Sample.color: must be one of',
  );
});

test('an unknown rule kind fails at compile time, naming the field and the rule', () => {
  expect(() => compileValidator(root.lookupType('t.Unsupported'))).toThrow(
    'unsupported PGV rule validate.rules.string.well_known_regex on t.Unsupported.host',
  );
});

test('a rule kind that does not fit the field type fails at compile time', () => {
  expect(() => compileValidator(root.lookupType('t.Mismatched'))).toThrow(
    'unsupported PGV rule kind validate.rules.uint32 for this field type (expected string) on t.Mismatched.text',
  );
});

test("Envoy's LeastRequest and our PeakEwma compile, with every rule their message trees carry", () => {
  expect(() => compileValidator(policyMessageType(LEAST_REQUEST_TYPE_URL))).not.toThrow();
  expect(() => compileValidator(policyMessageType(PEAK_EWMA_TYPE_URL))).not.toThrow();
});

test("Envoy's annotations deep in LeastRequest are enforced too (RuntimeDouble.runtime_key, LocalityLbConfig oneof)", () => {
  const LeastRequest = policyMessageType(LEAST_REQUEST_TYPE_URL);
  const decoded = roundTrip(LeastRequest, {
    choice_count: { value: 2 },
    active_request_bias: { default_value: 1, runtime_key: '' },
    locality_lb_config: {},
  });
  expect(findViolations(LeastRequest, decoded)).toEqual([
    'LeastRequest.active_request_bias.runtime_key: length must be >= 1 (validate.rules.string.min_len), got ""',
    'LeastRequest.locality_lb_config.locality_config_specifier: one of [zone_aware_lb_config, locality_weighted_lb_config] must be set (validate.required)',
  ]);
});
