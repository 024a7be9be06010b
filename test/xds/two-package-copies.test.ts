/**
 * registerXds() from two copies of grpc-js-peak-ewma sharing one grpc-js and
 * one grpc-js-xds (an application's and a library's; npm dedupes those, not
 * us). grpc-js-xds's converter registry is module-global and last-wins, like
 * grpc-js's policy registry; the lb_policy LEAST_REQUEST shim wraps one
 * shared validator. The copy holding them is chosen as for the policies
 * (src/policy/package-copies.ts): the higher version, equal versions the
 * first. Which copy's converter ran is seen through a spy on each copy's own
 * converter module, the function its registerXds() hands to the registry.
 */
import * as grpc from '@grpc/grpc-js';
import * as grpcJsXds from '@grpc/grpc-js-xds';
import * as xdsRegistry from '@grpc/grpc-js-xds/build/src/lb-policy-registry';
import * as clusterModule from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';
import * as resources from '@grpc/grpc-js-xds/build/src/resources';
import type { Cluster__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/Cluster';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import * as path from 'path';
import { loadResource } from '../../scripts/xds/fixtures';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { controlPlaneRoot } from '../../scripts/xds/resource-types';
import type { PackageCopy } from '../../src/policy/own-package';
import { loadProtoRoot, PEAK_EWMA_PROTO } from '../../src/xds/proto-root';
import { PEAK_EWMA_TYPE_URL } from '../../src/xds/type-urls';

const OWN_PACKAGE = '../../src/policy/own-package';
const SHARED: Record<string, unknown> = {
  '@grpc/grpc-js': grpc,
  '@grpc/grpc-js-xds': grpcJsXds,
  '@grpc/grpc-js-xds/build/src/lb-policy-registry': xdsRegistry,
  '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type': clusterModule,
  '@grpc/grpc-js-xds/build/src/resources': resources,
};
const REAL: PackageCopy = { version: (require('../../package.json') as { version: string }).version, dir: path.resolve(__dirname, '..', '..') };
const named = (copy: PackageCopy) => `${copy.version} at ${copy.dir}`;
const CONTEXT = { bootstrap: { certificateProviders: {} } };

/** One copy of the package, registered, with spies on the converters its registerXds() handed over. */
interface XdsCopy {
  readonly policies: typeof import('../../src');
  readonly convertPeakEwma: jest.SpyInstance;
  readonly leastRequestToJson: jest.SpyInstance;
}

function spiedAndRegistered(): XdsCopy {
  const copy: XdsCopy = {
    policies: require('../../src'),
    convertPeakEwma: jest.spyOn(require('../../src/xds/peak-ewma-converter'), 'convertPeakEwma'),
    leastRequestToJson: jest.spyOn(require('../../src/xds/least-request-converter'), 'leastRequestToJson'),
  };
  (require('../../src/xds') as typeof import('../../src/xds')).registerXds();
  return copy;
}

/** Another copy on the same grpc-js and grpc-js-xds, saying `as`; registerXds() runs in its own module registry. */
function registeredCopy(as: PackageCopy): XdsCopy {
  let copy!: XdsCopy;
  jest.isolateModules(() => {
    for (const [name, module] of Object.entries(SHARED)) {
      jest.doMock(name, () => module);
    }
    jest.doMock(OWN_PACKAGE, () => ({ ownPackage: () => as }));
    copy = spiedAndRegistered();
  });
  for (const name of [...Object.keys(SHARED), OWN_PACKAGE]) {
    jest.dontMock(name); // doMock outlives isolateModules
  }
  return copy;
}

const policyJson = new ProtoJson(loadProtoRoot([PEAK_EWMA_PROTO]));
const peakEwmaPolicy = {
  policies: [{ typed_extension_config: { name: 'peak', typed_config: policyJson.encodeAny({ '@type': PEAK_EWMA_TYPE_URL }) } }],
} as unknown as LoadBalancingPolicy__Output;

const clusterJson = new ProtoJson(controlPlaneRoot());
const leastRequestCluster = resources.decodeSingleResource(
  resources.CDS_TYPE_URL,
  clusterJson.encodeMessage(
    clusterJson.root.lookupType('envoy.config.cluster.v3.Cluster'),
    loadResource('clusters/istio-least-request.yaml'),
    'cluster',
  ),
) as Cluster__Output;

type Validate = ((context: unknown, message: Cluster__Output) => { valid: boolean }) & { [key: symbol]: unknown };
const validatorHost = clusterModule.ClusterResourceType.get() as unknown as { validateResource: Validate };

/** Which copies' converters one conversion of a PeakEwma and one LEAST_REQUEST Cluster went through. */
function convertersUsed(copies: Record<string, XdsCopy>): { peakEwma: string[]; leastRequest: string[] } {
  for (const copy of Object.values(copies)) {
    copy.convertPeakEwma.mockClear();
    copy.leastRequestToJson.mockClear();
  }
  xdsRegistry.convertToLoadBalancingConfig(peakEwmaPolicy);
  expect(validatorHost.validateResource(CONTEXT, leastRequestCluster).valid).toBe(true);
  const called = (pick: (copy: XdsCopy) => jest.SpyInstance) =>
    Object.entries(copies).filter(([, copy]) => pick(copy).mock.calls.length > 0).map(([name]) => name);
  return { peakEwma: called((copy) => copy.convertPeakEwma), leastRequest: called((copy) => copy.leastRequestToJson) };
}

it("an older copy's registerXds() keeps the converters and the LEAST_REQUEST shim; a newer copy's takes them over, unwrapping the shim", () => {
  const lines: string[] = [];
  grpc.setLogger({ error: () => undefined, info: (...args: unknown[]) => lines.push(args.join(' ')), debug: () => undefined });
  grpc.setLogVerbosity(grpc.logVerbosity.INFO);
  const unwrapped = validatorHost.validateResource;
  const older: PackageCopy = {
    version: REAL.version!.includes('-') ? '0.0.0-0' : `${REAL.version}-rc.1`, // below the real one (SemVer §11)
    dir: '/srv/app/node_modules/lib-a/node_modules/grpc-js-peak-ewma',
  };
  const newer: PackageCopy = {
    version: `${Number(REAL.version!.split('.')[0]) + 1}.0.0`,
    dir: '/srv/app/node_modules/lib-b/node_modules/grpc-js-peak-ewma',
  };

  const copies: Record<string, XdsCopy> = { app: spiedAndRegistered() };
  copies.older = registeredCopy(older);
  expect(convertersUsed(copies)).toEqual({ peakEwma: ['app'], leastRequest: ['app'] });

  copies.newer = registeredCopy(newer);
  expect(convertersUsed(copies)).toEqual({ peakEwma: ['newer'], leastRequest: ['newer'] });
  // The newer copy's shim wraps grpc-js-xds's own validator, not the application copy's shim.
  expect(validatorHost.validateResource[Symbol.for('grpc-js-peak-ewma.legacyLeastRequest')]).toBe(unwrapped);
  // What the converters emit is our policy, parsed by the copy that serves it.
  expect(grpc.experimental.parseLoadBalancingConfig(xdsRegistry.convertToLoadBalancingConfig(peakEwmaPolicy))).toBeInstanceOf(
    copies.newer.policies.PeakEwmaLoadBalancingConfig,
  );

  const converterLines = lines.filter((line) => line.includes('the xDS converters'));
  expect(converterLines).toEqual([
    `grpc-js-peak-ewma: two copies of grpc-js-peak-ewma are loaded: the xDS converters and the lb_policy LEAST_REQUEST shim ` +
      `are served by ${named(REAL)} (the higher version); also found ${named(older)}`,
    `grpc-js-peak-ewma: two copies of grpc-js-peak-ewma are loaded: the xDS converters and the lb_policy LEAST_REQUEST shim ` +
      `are served by ${named(newer)} (the higher version); also found ${named(REAL)}`,
  ]);
});
