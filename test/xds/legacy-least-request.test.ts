/**
 * The lb_policy LEAST_REQUEST shim (src/xds/legacy-least-request.ts): the
 * gRFC A48 conversion, and the checks that make it fail loudly instead of
 * misbehaving if @grpc/grpc-js-xds changes the internals it wraps.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import type { Cluster__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/Cluster';
import { CDS_TYPE_URL, decodeSingleResource } from '@grpc/grpc-js-xds/build/src/resources';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';
import { loadResource } from '../../scripts/xds/fixtures';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { controlPlaneRoot } from '../../scripts/xds/resource-types';
import { registerXds } from '../../src/xds';
import { legacyLeastRequestConfig } from '../../src/xds/legacy-least-request';

const CLUSTER_MODULE = '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';
const ISTIO_CLUSTER = loadResource('clusters/istio-least-request.yaml');
const ROUND_ROBIN_CLUSTER = loadResource('clusters/round-robin.yaml');
const ENV = 'GRPC_EXPERIMENTAL_XDS_CUSTOM_LB_CONFIG';
const CONTEXT = { bootstrap: { certificateProviders: {} } };

/** The validator's signature; the field is private in grpc-js-xds's typings. */
type Validate = (context: unknown, message: Cluster__Output) =>
  | { valid: true; result: { lbPolicyConfig: unknown } }
  | { valid: false; errors: string[] };

const controlPlaneJson = new ProtoJson(controlPlaneRoot());
const clusterType = controlPlaneJson.root.lookupType('envoy.config.cluster.v3.Cluster');

/** A Cluster in fixture form, encoded as the control plane sends it and decoded by grpc-js-xds's own decoder. */
function decodeCluster(resource: Record<string, unknown>): Cluster__Output {
  return decodeSingleResource(CDS_TYPE_URL, controlPlaneJson.encodeMessage(clusterType, resource, 'cluster')) as Cluster__Output;
}

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

test('the installed validator NACKs a LEAST_REQUEST Cluster for its other fields too, with both errors', () => {
  const host = ClusterResourceType.get() as unknown as { validateResource: Validate };
  const cluster = decodeCluster({
    ...ISTIO_CLUSTER,
    least_request_lb_config: { choice_count: 1 },
    lrs_server: { ads: {} }, // grpc-js-xds wants lrs_server.self
  });
  expect(host.validateResource(CONTEXT, cluster)).toEqual({
    valid: false,
    errors: [
      'lb_policy LEAST_REQUEST: least_request_lb_config.choice_count must be >= 2 (gRFC A48), got 1',
      'lrs_server set but lrs_server.self unset',
    ],
  });
  // The other field alone: grpc-js-xds's error, through the shim.
  expect(host.validateResource(CONTEXT, decodeCluster({ ...ISTIO_CLUSTER, lrs_server: { ads: {} } }))).toEqual({
    valid: false,
    errors: ['lrs_server set but lrs_server.self unset'],
  });
});

describe('a Cluster with both fields: load_balancing_policy RoundRobin and lb_policy LEAST_REQUEST', () => {
  const both = () => decodeCluster({ ...ROUND_ROBIN_CLUSTER, lb_policy: 'LEAST_REQUEST' });

  test('with gRFC A52 on (the default): load_balancing_policy wins, the shim stands aside', () => {
    const host = ClusterResourceType.get() as unknown as { validateResource: Validate };
    const result = host.validateResource(CONTEXT, both());
    expect(result.valid && result.result.lbPolicyConfig).toEqual([{ round_robin: {} }]); // the RoundRobin converter's
  });

  test(`with ${ENV}=false: grpc-js-xds reads lb_policy alone, and so does the shim (it was NACKed)`, () => {
    const saved = process.env[ENV];
    process.env[ENV] = 'false'; // grpc-js-xds reads it once, at its load: a fresh registry loads it again
    try {
      jest.isolateModules(() => {
        const { ClusterResourceType: isolatedType } = require(CLUSTER_MODULE) as typeof import('@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type');
        const host = isolatedType.get() as unknown as { validateResource: Validate };
        expect(host.validateResource.call(host, CONTEXT, both())).toEqual({ valid: false, errors: ['unsupported lb_policy: LEAST_REQUEST'] });
        (require('../../src/xds') as typeof import('../../src/xds')).registerXds();
        const result = host.validateResource.call(host, CONTEXT, both());
        expect(result.valid && result.result.lbPolicyConfig).toEqual([tree(2)]);
      });
    } finally {
      if (saved === undefined) delete process.env[ENV];
      else process.env[ENV] = saved;
      jest.resetModules();
    }
  });
});

describe(`registerXds() says when ${ENV} turns load_balancing_policy off`, () => {
  /** registerXds() in a fresh registry with the variable set to `value` (undefined: unset): what grpc-js logged, by verbosity. */
  function logsWith(value: string | undefined): { severity: number; text: string }[] {
    const saved = process.env[ENV];
    if (value === undefined) delete process.env[ENV];
    else process.env[ENV] = value;
    const lines: { severity: number; text: string }[] = [];
    try {
      jest.isolateModules(() => {
        // The registry's own grpc-js: the one grpc-js-xds and this package log through.
        const grpc = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
        grpc.setLogVerbosity(grpc.logVerbosity.DEBUG);
        const keep = (severity: number) => (...args: unknown[]) => lines.push({ severity, text: args.join(' ') });
        grpc.setLogger({ debug: keep(grpc.logVerbosity.DEBUG), info: keep(grpc.logVerbosity.INFO), error: keep(grpc.logVerbosity.ERROR) });
        (require('../../src/xds') as typeof import('../../src/xds')).registerXds();
      });
    } finally {
      if (saved === undefined) delete process.env[ENV];
      else process.env[ENV] = saved;
      jest.resetModules();
    }
    return lines.filter((line) => line.text.includes(ENV));
  }

  test('a mistyped "1" is logged as an error, naming the value and what runs instead', () => {
    const lines = logsWith('1');
    expect(lines).toHaveLength(1);
    expect(lines[0].severity).toBe(logVerbosity.ERROR);
    expect(lines[0].text).toContain(`${ENV} is "1"`);
    expect(lines[0].text).toContain('PeakEwma and LeastRequest there are ignored');
  });

  test('"false", a deliberate switch, as information; unset or "true", nothing', () => {
    const lines = logsWith('false');
    expect(lines.map((line) => line.severity)).toEqual([logVerbosity.INFO]);
    expect(logsWith(undefined)).toEqual([]);
    expect(logsWith('true')).toEqual([]);
  });
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

  test('a grpc-js-xds that accepts LEAST_REQUEST itself keeps its own reading: the shim stands aside', () => {
    jest.isolateModules(() => {
      const validateResource = (_context: unknown, message: { name: string }) => ({
        valid: true,
        result: { name: message.name, lbPolicyConfig: [{ xds_wrr_locality: { child_policy: [{ round_robin: {} }] } }] },
      });
      const host = { validateResource };
      jest.doMock(CLUSTER_MODULE, () => ({ ClusterResourceType: { get: () => host } }));
      const { installLegacyLeastRequest } = require('../../src/xds/legacy-least-request') as typeof import('../../src/xds/legacy-least-request');
      expect(installLegacyLeastRequest()).toBe(false);
      expect(host.validateResource).toBe(validateResource);
    });
  });

  test('the real one passes and is replaced by a wrapper that turns LEAST_REQUEST into the gRFC A48 tree; a second install does not wrap twice', () => {
    jest.isolateModules(() => {
      // A fresh grpc-js-xds (and grpc-js) in this registry: its validator is not wrapped yet.
      const { ClusterResourceType: isolatedType } = require(CLUSTER_MODULE) as typeof import('@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type');
      const host = isolatedType.get() as unknown as { validateResource: Validate };
      const original = host.validateResource;
      const probe = decodeCluster(ISTIO_CLUSTER);
      expect(original.call(host, CONTEXT, probe)).toEqual({
        valid: false,
        errors: ['load_balancing_policy unset and unsupported lb_policy: LEAST_REQUEST'],
      });
      // registerXds() of this registry: our policies and xds_wrr_locality, which the tree names, and the install.
      (require('../../src/xds') as typeof import('../../src/xds')).registerXds();
      const installed = host.validateResource;
      expect(installed).not.toBe(original);
      const result = installed.call(host, CONTEXT, probe);
      expect(result.valid).toBe(true);
      expect(result.valid && result.result.lbPolicyConfig).toEqual([tree(2)]);
      install();
      expect(host.validateResource).toBe(installed);
    });
  });
});
