/**
 * The lb_policy LEAST_REQUEST shim (src/xds/legacy-least-request.ts): the
 * gRFC A48 conversion, and the checks that make it fail loudly instead of
 * misbehaving if @grpc/grpc-js-xds changes the internals it wraps.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { registerXds } from '../../src/xds';
import { legacyLeastRequestConfig } from '../../src/xds/legacy-least-request';

const CLUSTER_MODULE = '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';

beforeAll(() => {
  setLogVerbosity(logVerbosity.NONE);
  registerXds(); // our policies, which the converted configs name
});

const tree = (choiceCount: number) => ({
  xds_wrr_locality: { child_policy: [{ least_request_experimental: { choiceCount, selectionMethod: 'N_CHOICES' } }] },
});

test('no least_request_lb_config: choice_count 2 under xds_wrr_locality', () => {
  expect(legacyLeastRequestConfig({})).toEqual(tree(2));
  expect(legacyLeastRequestConfig({ least_request_lb_config: null })).toEqual(tree(2));
  expect(legacyLeastRequestConfig({ least_request_lb_config: { choice_count: null } })).toEqual(tree(2));
});

test('choice_count is carried (the policy clamps above 10); below 2 is rejected naming the field', () => {
  expect(legacyLeastRequestConfig({ least_request_lb_config: { choice_count: { value: 5 } } })).toEqual(tree(5));
  expect(legacyLeastRequestConfig({ least_request_lb_config: { choice_count: { value: 12 } } })).toEqual(tree(12));
  for (const bad of [0, 1]) {
    expect(() => legacyLeastRequestConfig({ least_request_lb_config: { choice_count: { value: bad } } })).toThrow(
      `lb_policy LEAST_REQUEST: least_request_lb_config.choice_count must be >= 2 (gRFC A48), got ${bad}`,
    );
  }
});

describe('the wrapped validator is checked at install', () => {
  afterEach(() => {
    jest.dontMock(CLUSTER_MODULE); // doMock outlives isolateModules
    jest.resetModules();
  });

  function install(): void {
    const { installLegacyLeastRequest } = require('../../src/xds/legacy-least-request') as typeof import('../../src/xds/legacy-least-request');
    installLegacyLeastRequest();
  }

  test('a ClusterResourceType without get() fails loudly, naming the module and versions', () => {
    jest.isolateModules(() => {
      jest.doMock(CLUSTER_MODULE, () => ({ ClusterResourceType: {} }));
      expect(install).toThrow(/ClusterResourceType.get is not a function.*cluster-resource-type, an internal module of @grpc\/grpc-js-xds >=1\.14\.1 <1\.15\.0 .*installed: @grpc\/grpc-js-xds 1\.14\.1/);
    });
  });

  test('a validator that no longer turns ROUND_ROBIN into xds_wrr_locality/round_robin fails loudly', () => {
    jest.isolateModules(() => {
      const validateResource = (_context: unknown, message: { name: string }) => ({
        valid: true,
        result: { name: message.name, lbPolicyConfig: [{ round_robin: {} }] },
      });
      jest.doMock(CLUSTER_MODULE, () => ({ ClusterResourceType: { get: () => ({ validateResource }) } }));
      expect(install).toThrow(/an lb_policy ROUND_ROBIN Cluster no longer validates to/);
    });
  });

  test('a grpc-js-xds that accepts LEAST_REQUEST itself fails loudly: the shim must go', () => {
    jest.isolateModules(() => {
      const validateResource = (_context: unknown, message: { name: string }) => ({
        valid: true,
        result: { name: message.name, lbPolicyConfig: [{ xds_wrr_locality: { child_policy: [{ round_robin: {} }] } }] },
      });
      jest.doMock(CLUSTER_MODULE, () => ({ ClusterResourceType: { get: () => ({ validateResource }) } }));
      expect(install).toThrow(/grpc-js-xds now accepts lb_policy LEAST_REQUEST itself/);
    });
  });

  test('the real one passes, and a second install does not wrap twice', () => {
    jest.isolateModules(() => {
      const { ClusterResourceType } = require(CLUSTER_MODULE) as typeof import('@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type');
      const host = ClusterResourceType.get() as unknown as { validateResource: unknown };
      install();
      const wrapped = host.validateResource;
      install();
      expect(host.validateResource).toBe(wrapped);
    });
  });
});
