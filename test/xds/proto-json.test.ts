/** Envoy's JSON form → protobuf, strict about "@type" and unknown fields. */
import { ProtoJson } from '../../scripts/xds/proto-json';
import { controlPlaneRoot, TYPE_URLS } from '../../scripts/xds/resource-types';
import { TO_OBJECT_OPTIONS } from '../../src/xds/policy-protos';

const json = new ProtoJson(controlPlaneRoot());
const Cluster = json.typeForUrl(TYPE_URLS.cluster);
const PEAK_EWMA = 'type.googleapis.com/envoy.extensions.load_balancing_policies.peak_ewma.v3alpha.PeakEwma';

function decodePeakEwma(fields: Record<string, unknown>) {
  const any = json.encodeAny({ '@type': PEAK_EWMA, ...fields });
  const type = json.typeForUrl(any.type_url);
  return type.toObject(type.decode(any.value), TO_OBJECT_OPTIONS);
}

test('durations as proto3 JSON text, wrappers as bare values, names in snake_case or lowerCamelCase', () => {
  expect(decodePeakEwma({ decay_time: '1.5s', defaultRtt: '-0.25s', maxSamplesPerHost: 7, penalty_value: 2.5 })).toEqual({
    decay_time: { seconds: '1', nanos: 500_000_000 },
    default_rtt: { nanos: -250_000_000 },
    max_samples_per_host: { value: 7 },
    penalty_value: { value: 2.5 },
  });
  expect(decodePeakEwma({ decay_time: { seconds: 3 }, penalty_value: { value: 4 } })).toEqual({
    decay_time: { seconds: '3' },
    penalty_value: { value: 4 },
  });
});

test('Anys nest, with Struct values as plain JSON', () => {
  const cluster = {
    name: 'c',
    load_balancing_policy: {
      policies: [
        {
          typed_extension_config: {
            name: 'ts',
            typed_config: { '@type': 'type.googleapis.com/xds.type.v3.TypedStruct', type_url: 'x/y', value: { a: [1, 'b', null, { c: true }] } },
          },
        },
      ],
    },
  };
  const decoded = Cluster.toObject(Cluster.decode(json.encodeMessage(Cluster, cluster)), TO_OBJECT_OPTIONS) as {
    load_balancing_policy: { policies: { typed_extension_config: { typed_config: { type_url: string; value: Buffer } } }[] };
  };
  const any = decoded.load_balancing_policy.policies[0].typed_extension_config.typed_config;
  const TypedStruct = json.typeForUrl(any.type_url);
  expect(TypedStruct.toObject(TypedStruct.decode(any.value), TO_OBJECT_OPTIONS)).toEqual({
    type_url: 'x/y',
    value: {
      fields: {
        a: {
          listValue: {
            values: [
              { numberValue: 1 },
              { stringValue: 'b' },
              { nullValue: 'NULL_VALUE' },
              { structValue: { fields: { c: { boolValue: true } } } },
            ],
          },
        },
      },
    },
  });
});

test('a "@type" that does not resolve in the root is an error naming where it is, not an empty Any', () => {
  const cluster = {
    name: 'c',
    load_balancing_policy: {
      policies: [{ typed_extension_config: { name: 'x', typed_config: { '@type': 'type.googleapis.com/example.NotLoaded' } } }],
    },
  };
  expect(() => json.encodeMessage(Cluster, cluster)).toThrow(
    'load_balancing_policy.policies[0].typed_extension_config.typed_config: "@type" "type.googleapis.com/example.NotLoaded" does not resolve to a message in the proto root',
  );
});

test.each([
  [{ name: 'c', no_such_field: 1 }, 'no_such_field: unknown field in envoy.config.cluster.v3.Cluster'],
  [{ name: 'c', type: 'EDS', cluster_type: { name: 'x' } }, '"type" and "cluster_type" are in the same oneof cluster_discovery_type'],
  [{ name: 'c', type: 'SOMETIMES' }, 'type: "SOMETIMES" is not a value of enum envoy.config.cluster.v3.Cluster.DiscoveryType'],
  [{ name: 'c', connect_timeout: '5 seconds' }, 'connect_timeout: expected a duration such as "10s"'],
  [{ name: 'c', per_connection_buffer_limit_bytes: -1 }, 'per_connection_buffer_limit_bytes: expected a non-negative integer (uint32), got -1'],
  [{ '@type': TYPE_URLS.listener, name: 'c' }, '"@type" "type.googleapis.com/envoy.config.listener.v3.Listener" is not envoy.config.cluster.v3.Cluster'],
])('rejects %j', (resource, message) => {
  expect(() => json.encodeMessage(Cluster, resource)).toThrow(message);
});
