/**
 * registerXds() wires our converters into grpc-js-xds's gRFC A52 registry:
 * these tests go through grpc-js-xds's own convertToLoadBalancingConfig, the
 * function its CDS validation calls.
 */
import { experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { convertToLoadBalancingConfig } from '@grpc/grpc-js-xds/build/src/lb-policy-registry';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import { ProtoJson } from '../../scripts/xds/proto-json';
import {
  LEAST_REQUEST_TYPE_URL,
  PEAK_EWMA_TYPE_URL,
  registerXds,
  UDPA_TYPED_STRUCT_TYPE_URL,
  XDS_TYPED_STRUCT_TYPE_URL,
} from '../../src/xds';
import { loadProtoRoot, PEAK_EWMA_PROTO } from '../../src/xds/proto-root';

const WRR_LOCALITY = 'type.googleapis.com/envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality';
const ROUND_ROBIN = 'type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin';
const RING_HASH = 'type.googleapis.com/envoy.extensions.load_balancing_policies.ring_hash.v3.RingHash';

const json = new ProtoJson(
  loadProtoRoot([
    PEAK_EWMA_PROTO,
    'envoy/extensions/load_balancing_policies/wrr_locality/v3/wrr_locality.proto',
    'envoy/extensions/load_balancing_policies/round_robin/v3/round_robin.proto',
    'envoy/extensions/load_balancing_policies/ring_hash/v3/ring_hash.proto',
    'xds/type/v3/typed_struct.proto',
    'udpa/type/v1/typed_struct.proto',
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

test('registerXds registers our two policies and grpc-js-xds\'s xds_wrr_locality with grpc-js', () => {
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
    .toThrow(/Error parsing .*PeakEwma LoadBalancingPolicy named child: PeakEwma\.decay_time: must be at most 3600s/);
});

test("grpc-js-xds's own children under WrrLocality convert as before: round_robin", () => {
  expect(convertToLoadBalancingConfig(policyList(wrrLocality({ '@type': ROUND_ROBIN })))).toEqual({
    xds_wrr_locality: { child_policy: [{ round_robin: {} }] },
  });
});

test("a RingHash with minimum_ring_size under WrrLocality throws instead of being ACKed: grpc-js-xds's converter writes the size as a string, which ring_hash rejects only when endpoints arrive", () => {
  const ringHash = { '@type': RING_HASH, hash_function: 'XX_HASH', minimum_ring_size: 10 };
  expect(() => convertToLoadBalancingConfig(policyList(wrrLocality(ringHash)))).toThrow(
    /Error parsing .*WrrLocality LoadBalancingPolicy named policy0: grpc-js rejects the converted config \{"ring_hash":\{"min_ring_size":"10"/,
  );
  // Without the size it converts, as grpc-js-xds's converter did.
  expect(convertToLoadBalancingConfig(policyList(wrrLocality({ '@type': RING_HASH, hash_function: 'XX_HASH' })))).toEqual({
    xds_wrr_locality: { child_policy: [{ ring_hash: { min_ring_size: 1024, max_ring_size: 8_388_608 } }] },
  });
});

test('a WrrLocality without its endpoint picking policy throws, naming the field', () => {
  expect(() => convertToLoadBalancingConfig(policyList({ '@type': WRR_LOCALITY }))).toThrow(/WrrLocality\.endpoint_picking_policy: must be set/);
});

// Both URLs: grpc-js-xds registers its own non-validating converter for each, and it would ACK this
// child config, which then throws, uncaught, on the next address update (crash-hole.test.ts).
test.each([XDS_TYPED_STRUCT_TYPE_URL, UDPA_TYPED_STRUCT_TYPE_URL])(
  'an invalid %s under WrrLocality throws too: our validating TypedStruct converter replaced grpc-js-xds\'s',
  (typeUrl) => {
    const typedStruct = { '@type': typeUrl, type_url: 'x/peak_ewma_experimental', value: { choiceCount: 1 } };
    const escaped = typeUrl.replace(/[.\/]/g, (c) => `\\${c}`);
    expect(() => convertToLoadBalancingConfig(policyList(wrrLocality(typedStruct)))).toThrow(
      new RegExp(`Error parsing ${escaped} LoadBalancingPolicy named child: .*"choiceCount" must be at least 2, got 1`),
    );
  },
);

test('a TypedStruct naming an unregistered policy is skipped in favour of the next entry', () => {
  const unknown = { '@type': XDS_TYPED_STRUCT_TYPE_URL, type_url: 'x/not_registered', value: {} };
  expect(convertToLoadBalancingConfig(policyList(unknown, { '@type': ROUND_ROBIN }))).toEqual({ round_robin: {} });
});

describe('the internal registry is checked at registration', () => {
  afterEach(() => {
    // doMock outlives isolateModules: without these, a later test here would get an earlier one's mock.
    jest.dontMock('@grpc/grpc-js-xds/build/src/lb-policy-registry');
    jest.dontMock('../../src/xds/policy-protos');
    jest.resetModules();
  });

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

  test('registerXds precompiles the PGV validators of all four policy type URLs, and a failure there stops it before anything is registered', () => {
    jest.isolateModules(() => {
      const precompileValidators = jest.fn(() => {
        throw new Error('unknown validation rule (precompile stand-in)');
      });
      jest.doMock('../../src/xds/policy-protos', () => ({
        ...jest.requireActual('../../src/xds/policy-protos'),
        precompileValidators,
      }));
      const isolated = require('../../src/xds') as typeof import('../../src/xds');
      expect(() => isolated.registerXds()).toThrow('unknown validation rule (precompile stand-in)');
      expect(precompileValidators).toHaveBeenCalledTimes(1);
      expect([...(precompileValidators.mock.calls[0] as unknown as [string[]])[0]].sort()).toEqual(
        [PEAK_EWMA_TYPE_URL, LEAST_REQUEST_TYPE_URL, XDS_TYPED_STRUCT_TYPE_URL, UDPA_TYPED_STRUCT_TYPE_URL].sort(),
      );
      // This module registry's grpc-js: the throw came before our policies were registered.
      const grpcJs = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
      expect(grpcJs.experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(false);
    });
  });
});
