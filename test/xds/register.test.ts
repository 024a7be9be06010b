/**
 * registerXds() wires our converters into grpc-js-xds's gRFC A52 registry:
 * these tests go through grpc-js-xds's own convertToLoadBalancingConfig, the
 * function its CDS validation calls.
 */
import { experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { convertToLoadBalancingConfig } from '@grpc/grpc-js-xds/build/src/lb-policy-registry';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { PEAK_EWMA_TYPE_URL, registerXds, XDS_TYPED_STRUCT_TYPE_URL } from '../../src/xds';
import { loadProtoRoot, PEAK_EWMA_PROTO } from '../../src/xds/proto-root';

const WRR_LOCALITY = 'type.googleapis.com/envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality';
const ROUND_ROBIN = 'type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin';

const json = new ProtoJson(
  loadProtoRoot([
    PEAK_EWMA_PROTO,
    'envoy/extensions/load_balancing_policies/wrr_locality/v3/wrr_locality.proto',
    'envoy/extensions/load_balancing_policies/round_robin/v3/round_robin.proto',
    'xds/type/v3/typed_struct.proto',
  ]),
);

/** A Cluster's load_balancing_policy as grpc-js-xds hands it over: Anys still encoded. */
function policyList(...typedConfigs: Record<string, unknown>[]): LoadBalancingPolicy__Output {
  return {
    policies: typedConfigs.map((typedConfig, index) => ({
      typed_extension_config: { name: `policy${index}`, typed_config: json.encodeAny(typedConfig) },
    })),
  } as unknown as LoadBalancingPolicy__Output;
}

const wrrLocality = (child: Record<string, unknown>) => ({
  '@type': WRR_LOCALITY,
  endpoint_picking_policy: { policies: [{ typed_extension_config: { name: 'child', typed_config: child } }] },
});

beforeAll(() => {
  // Our policy logs each config it rejects at ERROR; here rejections are the point.
  setLogVerbosity(logVerbosity.NONE);
  registerXds();
  registerXds(); // idempotent
});

test('registerXds registers our policies and the xds: resolver', () => {
  expect(experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(true);
  expect(experimental.isLoadBalancerNameRegistered('least_request_experimental')).toBe(true);
  expect(experimental.isLoadBalancerNameRegistered('xds_wrr_locality')).toBe(true);
});

test('an unknown policy listed ahead of PeakEwma is skipped; PeakEwma wins; a later RoundRobin is not reached', () => {
  const list = policyList(
    { '@type': 'type.googleapis.com/google.protobuf.Empty' },
    { '@type': PEAK_EWMA_TYPE_URL, decay_time: '5s' },
    { '@type': ROUND_ROBIN },
  );
  expect(convertToLoadBalancingConfig(list)).toEqual({
    peak_ewma_experimental: { choiceCount: 2, decayTime: '5s', defaultRtt: '0.01s', penaltyValue: 1_000_000 },
  });
});

test('PeakEwma under WrrLocality converts to xds_wrr_locality with our child', () => {
  expect(convertToLoadBalancingConfig(policyList(wrrLocality({ '@type': PEAK_EWMA_TYPE_URL })))).toEqual({
    xds_wrr_locality: {
      child_policy: [{ peak_ewma_experimental: { choiceCount: 2, decayTime: '10s', defaultRtt: '0.01s', penaltyValue: 1_000_000 } }],
    },
  });
});

test('a PeakEwma our policy rejects, under WrrLocality, throws instead of being ACKed (the crash hole)', () => {
  expect(() => convertToLoadBalancingConfig(policyList(wrrLocality({ '@type': PEAK_EWMA_TYPE_URL, decay_time: '7200s' }))))
    .toThrow(/Error parsing .*PeakEwma LoadBalancingPolicy named child: grpc-js rejects the converted config/);
});

test('an invalid TypedStruct under WrrLocality throws too: our validating TypedStruct converter replaced grpc-js-xds\'s', () => {
  const typedStruct = { '@type': XDS_TYPED_STRUCT_TYPE_URL, type_url: 'x/peak_ewma_experimental', value: { choiceCount: 1 } };
  expect(() => convertToLoadBalancingConfig(policyList(wrrLocality(typedStruct)))).toThrow(
    /Error parsing type.googleapis.com\/xds.type.v3.TypedStruct LoadBalancingPolicy named child: .*"choiceCount" must be at least 2, got 1/,
  );
});

test('a TypedStruct naming an unregistered policy is skipped in favour of the next entry', () => {
  const unknown = { '@type': XDS_TYPED_STRUCT_TYPE_URL, type_url: 'x/not_registered', value: {} };
  expect(convertToLoadBalancingConfig(policyList(unknown, { '@type': ROUND_ROBIN }))).toEqual({ round_robin: {} });
});

describe('the internal registry is checked at registration', () => {
  afterEach(() => jest.resetModules());

  test('a registry without registerLbPolicy fails loudly, naming the supported range and the installed version', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds/build/src/lb-policy-registry', () => ({ convertToLoadBalancingConfig: () => null }));
      const { loadRegisterLbPolicy } = require('../../src/xds/xds-registry') as typeof import('../../src/xds/xds-registry');
      expect(() => loadRegisterLbPolicy()).toThrow(
        /registerLbPolicy is undefined, not a function.*internal module of @grpc\/grpc-js-xds >=1\.14\.1 <1\.15\.0 \(tested with 1\.14\.1\); installed: @grpc\/grpc-js-xds 1\.14\.1/,
      );
    });
  });

  test('a registry module that is gone fails loudly too', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds/build/src/lb-policy-registry', () => {
        throw new Error("Cannot find module '@grpc/grpc-js-xds/build/src/lb-policy-registry'");
      });
      const { loadRegisterLbPolicy } = require('../../src/xds/xds-registry') as typeof import('../../src/xds/xds-registry');
      expect(() => loadRegisterLbPolicy()).toThrow(/cannot load it .*lb-policy-registry.*Install @grpc\/grpc-js-xds@1\.14\.1/);
    });
  });
});
