/**
 * @grpc/grpc-js-xds versions: package.json accepts a range (a patch release
 * must not break npm install), registerXds() checks the installed version
 * against the same range at run time, and the internals inside it by shape.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { LEAST_REQUEST_TYPE_URL, PEAK_EWMA_TYPE_URL, UDPA_TYPED_STRUCT_TYPE_URL, XDS_TYPED_STRUCT_TYPE_URL } from '../../src/xds';
import { policyProtoRoot } from '../../src/xds/policy-protos';
import { isSupportedXdsVersion, SUPPORTED_XDS_RANGE, TESTED_XDS_VERSION } from '../../src/xds/xds-registry';

const PACKAGE = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

test('peerDependencies take the range ~1.14.1; the tests keep the exact version they were written against', () => {
  expect(PACKAGE.peerDependencies['@grpc/grpc-js-xds']).toBe('~1.14.1');
  expect(SUPPORTED_XDS_RANGE).toBe('>=1.14.1 <1.15.0'); // what npm reads ~1.14.1 as
  expect(PACKAGE.devDependencies['@grpc/grpc-js-xds']).toBe(TESTED_XDS_VERSION);
});

test.each([
  ['1.14.1', true],
  ['1.14.2', true],
  ['1.14.10', true],
  ['1.14.0', false],
  ['1.13.9', false],
  ['1.15.0', false],
  ['2.14.1', false],
  ['1.14.2-pre.1', false], // npm's ~ excludes prereleases too
  ['unknown', false],
])('version %s supported: %p', (version, supported) => {
  expect(isSupportedXdsVersion(version)).toBe(supported);
});

describe('registerXds() checks the installed version', () => {
  afterEach(() => {
    jest.dontMock('@grpc/grpc-js-xds/package.json');
    jest.resetModules();
  });

  /**
   * One policy entry for each type URL registerXds() gives a converter, each valid (the TypedStructs
   * name round_robin): with its converter registered each converts, without it the registry finds nothing.
   */
  const json = new ProtoJson(policyProtoRoot());
  const entry = (typedConfig: Record<string, unknown>) => ({
    typed_extension_config: { name: String(typedConfig['@type']), typed_config: json.encodeAny(typedConfig) },
  });
  const OURS = [
    entry({ '@type': PEAK_EWMA_TYPE_URL }),
    entry({ '@type': LEAST_REQUEST_TYPE_URL }),
    entry({ '@type': XDS_TYPED_STRUCT_TYPE_URL, type_url: 'x/round_robin', value: {} }),
    entry({ '@type': UDPA_TYPED_STRUCT_TYPE_URL, type_url: 'x/round_robin', value: {} }),
  ];
  const list = (policy: (typeof OURS)[number]) => ({ policies: [policy] }) as unknown as LoadBalancingPolicy__Output;
  type Registry = typeof import('@grpc/grpc-js-xds/build/src/lb-policy-registry');
  const REGISTRY_MODULE = '@grpc/grpc-js-xds/build/src/lb-policy-registry';

  test('1.15.0 fails before anything is registered, naming the range and what is installed', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds/package.json', () => ({ version: '1.15.0' }));
      expect(() => (require('../../src/xds') as typeof import('../../src/xds')).registerXds()).toThrow(
        'grpc-js-peak-ewma/xds supports @grpc/grpc-js-xds >=1.14.1 <1.15.0 (tested with 1.14.1); installed: @grpc/grpc-js-xds 1.15.0',
      );
      // This module registry's grpc-js: neither our policies nor grpc-js-xds's were registered.
      const { experimental } = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
      for (const name of ['peak_ewma_experimental', 'least_request_experimental', 'xds_wrr_locality']) {
        expect({ name, registered: experimental.isLoadBalancerNameRegistered(name) }).toEqual({ name, registered: false });
      }
      // Its grpc-js-xds converter registry: no converter for any of the four type URLs.
      const registry = require(REGISTRY_MODULE) as Registry;
      for (const policy of OURS) {
        expect(() => registry.convertToLoadBalancingConfig(list(policy))).toThrow(/^No registered LB policy found in list$/);
      }
    });
  });

  test('a missing @grpc/grpc-js-xds is reported as missing, with the install command', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds', () => {
        throw new Error("Cannot find module '@grpc/grpc-js-xds'");
      });
      jest.doMock('@grpc/grpc-js-xds/package.json', () => {
        throw new Error("Cannot find module '@grpc/grpc-js-xds/package.json'");
      });
      expect(() => (require('../../src/xds') as typeof import('../../src/xds')).registerXds()).toThrow(
        /needs @grpc\/grpc-js-xds >=1\.14\.1 <1\.15\.0 \(npm install @grpc\/grpc-js-xds@1\.14\.1\): Cannot find module/,
      );
    });
    jest.dontMock('@grpc/grpc-js-xds');
  });

  test('a patch release (1.14.2, here the 1.14.1 code under that number) registers: the internals pass their shape checks', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds/package.json', () => ({ version: '1.14.2' }));
      expect(() => (require('../../src/xds') as typeof import('../../src/xds')).registerXds()).not.toThrow();
      // The control for the 1.15.0 case's registry check: registered, each of the same entries converts.
      const registry = require(REGISTRY_MODULE) as Registry;
      expect(OURS.map((policy) => Object.keys(registry.convertToLoadBalancingConfig(list(policy))))).toEqual([
        ['peak_ewma_experimental'],
        ['least_request_experimental'],
        ['round_robin'],
        ['round_robin'],
      ]);
    });
  });
});
