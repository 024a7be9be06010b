/**
 * The converters, called as grpc-js-xds calls them (an encoded Any), with
 * inputs written in Envoy's JSON form. Imported one by one rather than
 * through src/xds/index.ts, which loads @grpc/grpc-js-xds (≈5 s): converters
 * only need our policies registered with grpc-js.
 */
import { experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { register } from '../../src/policy/register';
import { convertLeastRequest } from '../../src/xds/least-request-converter';
import { convertPeakEwma } from '../../src/xds/peak-ewma-converter';
import { convertTypedStruct } from '../../src/xds/typed-struct-converter';
import {
  LEAST_REQUEST_TYPE_URL,
  PEAK_EWMA_TYPE_URL,
  UDPA_TYPED_STRUCT_TYPE_URL,
  XDS_TYPED_STRUCT_TYPE_URL,
} from '../../src/xds/type-urls';
import { policyProtoRoot } from '../../src/xds/policy-protos';
import { nestedPolicies } from '../support/nested-policies';

beforeAll(() => {
  // Our policy logs each config it rejects at ERROR; here rejections are the point.
  setLogVerbosity(logVerbosity.NONE);
  register();
});

const json = new ProtoJson(policyProtoRoot());
const peakEwma = (fields: Record<string, unknown> = {}) => json.encodeAny({ '@type': PEAK_EWMA_TYPE_URL, ...fields });
const leastRequest = (fields: Record<string, unknown> = {}) => json.encodeAny({ '@type': LEAST_REQUEST_TYPE_URL, ...fields });
const typedStruct = (typeUrl: string, value?: Record<string, unknown>, anyType = XDS_TYPED_STRUCT_TYPE_URL) =>
  json.encodeAny({ '@type': anyType, type_url: typeUrl, ...(value === undefined ? {} : { value }) });

describe('PeakEwma → peak_ewma_experimental', () => {
  test("an empty PeakEwma gets Envoy's defaults and choiceCount 2, and no errorPenaltyFactor", () => {
    expect(convertPeakEwma(peakEwma())).toEqual({
      peak_ewma_experimental: { choiceCount: 2, decayTime: '10s', defaultRtt: '0.01s', penaltyValue: 1_000_000 },
    });
  });

  test('decay_time, default_rtt and penalty_value map field by field, exactly', () => {
    const config = convertPeakEwma(
      peakEwma({ decay_time: '2.5s', default_rtt: '0.000250s', penalty_value: 5000, aggregation_interval: '1s', max_samples_per_host: 50 }),
    );
    expect(config).toEqual({
      peak_ewma_experimental: { choiceCount: 2, decayTime: '2.5s', defaultRtt: '0.00025s', penaltyValue: 5000 },
    });
    // And grpc-js reads it back as those values.
    // (Fields Envoy has no counterpart for keep their JSON defaults.)
    expect(experimental.parseLoadBalancingConfig(config).toJsonObject()).toMatchObject({
      peak_ewma_experimental: { choiceCount: 2, decayTime: '2.5s', defaultRtt: '0.00025s', penaltyValue: 5000 },
    });
  });

  test('is wire-compatible with Envoy: field numbers 1..5 with Duration / UInt32Value / DoubleValue', () => {
    // Hand-encoded, independent of our .proto: decay_time=1 {seconds: 3}, aggregation_interval=2 {nanos: 5e8},
    // max_samples_per_host=3 {value: 7}, default_rtt=4 {nanos: 2e7}, penalty_value=5 {value: 250}.
    const writer = protobuf.Writer.create();
    writer.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 0).int64(3).ldelim();
    writer.uint32((2 << 3) | 2).fork().uint32((2 << 3) | 0).int32(500_000_000).ldelim();
    writer.uint32((3 << 3) | 2).fork().uint32((1 << 3) | 0).uint32(7).ldelim();
    writer.uint32((4 << 3) | 2).fork().uint32((2 << 3) | 0).int32(20_000_000).ldelim();
    writer.uint32((5 << 3) | 2).fork().uint32((1 << 3) | 1).double(250).ldelim();
    const value = Buffer.from(writer.finish());
    expect(convertPeakEwma({ type_url: PEAK_EWMA_TYPE_URL, value })).toEqual({
      peak_ewma_experimental: { choiceCount: 2, decayTime: '3s', defaultRtt: '0.02s', penaltyValue: 250 },
    });
    expect(value.equals(peakEwma({ decay_time: '3s', aggregation_interval: '0.5s', max_samples_per_host: 7, default_rtt: '0.02s', penalty_value: 250 }).value)).toBe(true);
  });

  test.each([
    [{ decay_time: '-1s' }, 'PeakEwma.decay_time: must be > 0s (validate.rules.duration.gt), got -1s'],
    [{ decay_time: '0s' }, 'PeakEwma.decay_time: must be > 0s (validate.rules.duration.gt), got 0s'],
    [{ aggregation_interval: '0s' }, 'PeakEwma.aggregation_interval: must be > 0s (validate.rules.duration.gt), got 0s'],
    [{ default_rtt: '-0.5s' }, 'PeakEwma.default_rtt: must be > 0s (validate.rules.duration.gt), got -0.5s'],
    [{ max_samples_per_host: 0 }, 'PeakEwma.max_samples_per_host: must be >= 1 (validate.rules.uint32.gte), got 0'],
    [{ penalty_value: 0 }, 'PeakEwma.penalty_value: must be > 0 (validate.rules.double.gt), got 0'],
    [{ penalty_value: -3 }, 'PeakEwma.penalty_value: must be > 0 (validate.rules.double.gt), got -3'],
  ])('PGV rejects %j', (fields, message) => {
    expect(() => convertPeakEwma(peakEwma(fields))).toThrow(message);
  });

  test('a value PGV allows but our policy does not is rejected as grpc-js would reject it', () => {
    expect(() => convertPeakEwma(peakEwma({ decay_time: '7200s' }))).toThrow(/^PeakEwma\.decay_time: must be at most 3600s, got "7200s" \(Envoy accepts/);
  });

  test('the wrong type URL, or bytes that are not a PeakEwma, are errors', () => {
    expect(() => convertPeakEwma({ ...peakEwma(), type_url: LEAST_REQUEST_TYPE_URL })).toThrow('unexpected type URL');
    expect(() => convertPeakEwma({ type_url: PEAK_EWMA_TYPE_URL, value: Buffer.from([0x0a, 0x05, 0x01]) })).toThrow(
      'cannot decode PeakEwma',
    );
  });
});

describe('LeastRequest → least_request_experimental', () => {
  test('defaults: choiceCount 2, N_CHOICES', () => {
    expect(convertLeastRequest(leastRequest())).toEqual({
      least_request_experimental: { choiceCount: 2, selectionMethod: 'N_CHOICES' },
    });
  });

  test('choice_count and selection_method map; ignored fields do not stop the conversion', () => {
    expect(
      convertLeastRequest(
        leastRequest({
          choice_count: 4,
          selection_method: 'FULL_SCAN',
          active_request_bias: { default_value: 1.5, runtime_key: 'bias' },
          slow_start_config: { slow_start_window: '30s' },
        }),
      ),
    ).toEqual({ least_request_experimental: { choiceCount: 4, selectionMethod: 'FULL_SCAN' } });
  });

  test('a choice_count above 10 passes through; our policy then uses 10 (gRFC A48)', () => {
    const config = convertLeastRequest(leastRequest({ choice_count: 20 }));
    expect(config).toEqual({ least_request_experimental: { choiceCount: 20, selectionMethod: 'N_CHOICES' } });
    expect(experimental.parseLoadBalancingConfig(config).toJsonObject()).toEqual({
      least_request_experimental: { choiceCount: 10, selectionMethod: 'N_CHOICES' },
    });
  });

  test("Envoy's own PGV annotation choice_count gte 2 is enforced", () => {
    expect(() => convertLeastRequest(leastRequest({ choice_count: 1 }))).toThrow(
      'LeastRequest.choice_count: must be >= 2 (validate.rules.uint32.gte), got 1',
    );
  });

  test('an undefined selection_method number is rejected (enum defined_only)', () => {
    expect(() => convertLeastRequest(leastRequest({ selection_method: 9 }))).toThrow(
      'LeastRequest.selection_method: must be one of the defined values [N_CHOICES, FULL_SCAN] (validate.rules.enum.defined_only), got 9',
    );
  });
});

describe('TypedStruct → {<name>: <struct>}', () => {
  test('a registered name passes its Struct through as JSON, for both TypedStruct URLs', () => {
    for (const anyType of [XDS_TYPED_STRUCT_TYPE_URL, UDPA_TYPED_STRUCT_TYPE_URL]) {
      expect(
        convertTypedStruct(typedStruct('example.com/peak_ewma_experimental', { decayTime: '3s', choiceCount: 3, nested: { list: [1, 'a', true, null] } }, anyType)),
      ).toEqual({ peak_ewma_experimental: { decayTime: '3s', choiceCount: 3, nested: { list: [1, 'a', true, null] } } });
    }
  });

  test('an unregistered name is skipped (null), whatever its value', () => {
    expect(convertTypedStruct(typedStruct('example.com/no_such_policy', { anything: -1 }))).toBeNull();
  });

  test('a missing value is an empty config', () => {
    expect(convertTypedStruct(typedStruct('example.com/round_robin'))).toEqual({ round_robin: {} });
  });

  test("a name of grpc-js-xds's own tree is refused (→ NACK), at the top or in a child list, whose children grpc-js-xds would check only when endpoints arrive", () => {
    for (const name of ['xds_wrr_locality', 'cds', 'priority', 'weighted_target', 'xds_cluster_impl', 'xds_cluster_manager']) {
      expect(() => convertTypedStruct(typedStruct(`type.googleapis.com/${name}`, { child_policy: [{ round_robin: {} }] }))).toThrow(
        `TypedStruct.type_url: policy "${name}" is one grpc-js-xds builds the xDS tree from and cannot be named in a TypedStruct`,
      );
    }
    // outlier_detection is grpc-js's own and registered here; its child list is searched too.
    const nested = { child_policy: [{ pick_first: {} }, { xds_wrr_locality: { child_policy: [{ peak_ewma_experimental: { choiceCount: 1 } }] } }] };
    expect(() => convertTypedStruct(typedStruct('type.googleapis.com/outlier_detection', nested))).toThrow(
      'TypedStruct.value outlier_detection.child_policy[1]: policy "xds_wrr_locality" is one grpc-js-xds builds the xDS tree from',
    );
    // A leaf policy with ordinary children still converts.
    const fine = { child_policy: [{ round_robin: {} }] };
    expect(convertTypedStruct(typedStruct('type.googleapis.com/outlier_detection', fine))).toEqual({ outlier_detection: fine });
  });

  test('child policies nested 32 levels deep convert and 33 are refused (→ NACK), as validateServiceConfig counts them, also where protobufjs would decode them', () => {
    const nested = nestedPolicies;
    const asTypedStruct = (levels: number) => typedStruct('type.googleapis.com/outlier_detection', nested(levels).outlier_detection as Record<string, unknown>);
    // The protobufjs installed here stops decoding at 100 nested messages,
    // about 16 such levels, before the converter looks; releases before that
    // limit came in (package.json admits ^7.5.4) decode any depth, and then
    // the converter's own limit is what stops a deep config. Lifted here, as there.
    const limits = [protobuf.util.recursionLimit, protobuf.Reader.recursionLimit] as const;
    protobuf.util.recursionLimit = protobuf.Reader.recursionLimit = 10_000;
    try {
      expect(convertTypedStruct(asTypedStruct(32))).toEqual(nested(32));
      expect(() => convertTypedStruct(asTypedStruct(33))).toThrow('TypedStruct.value: child policies nested deeper than 32 levels');
    } finally {
      [protobuf.util.recursionLimit, protobuf.Reader.recursionLimit] = limits;
    }
  });

  test('a registered name with a config grpc-js rejects throws (→ NACK), naming the problem', () => {
    expect(() => convertTypedStruct(typedStruct('example.com/peak_ewma_experimental', { decayTime: -3 }))).toThrow(
      'field "decayTime" must be a duration string ("10s") or {seconds, nanos}, got -3',
    );
  });
});
