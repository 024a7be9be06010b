/**
 * registerXds() checks every grpc-js-xds internal it relies on before it
 * installs anything of its own. A cold review (2026-12-07) found that the
 * CDS validator's checks ran last, after our policies, the weighted_target
 * and priority mends and all four converters were in place: an application
 * that caught the throw to run on without xDS balancing ran half-registered
 * (PeakEwma Clusters converted, lb_policy LEAST_REQUEST still NACKed,
 * `registered` false). Real grpc-js-xds 1.14.1; its CDS validator is
 * changed in place the way a patch release could change it.
 */
import { experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import * as grpcJsXds from '@grpc/grpc-js-xds';
import { convertToLoadBalancingConfig } from '@grpc/grpc-js-xds/build/src/lb-policy-registry';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { PEAK_EWMA_TYPE_URL, registerXds } from '../../src/xds';
import { loadProtoRoot, PEAK_EWMA_PROTO } from '../../src/xds/proto-root';

const json = new ProtoJson(loadProtoRoot([PEAK_EWMA_PROTO]));
const peakEwmaList = {
  policies: [{ typed_extension_config: { name: 'peak', typed_config: json.encodeAny({ '@type': PEAK_EWMA_TYPE_URL }) } }],
} as unknown as LoadBalancingPolicy__Output;

type Validate = (...args: unknown[]) => unknown;

function convertsPeakEwma(): boolean {
  try {
    return 'peak_ewma_experimental' in convertToLoadBalancingConfig(peakEwmaList);
  } catch {
    return false;
  }
}

test('a CDS validator that is not as expected stops registerXds before any of ours is installed, and a later call installs it all', () => {
  setLogVerbosity(logVerbosity.NONE);
  grpcJsXds.register();
  const host = ClusterResourceType.get() as unknown as { validateResource: Validate };
  const original = host.validateResource;
  // One parameter where 1.14.1 has (context, message).
  const changed: Validate = function (this: unknown, context: unknown) {
    return original.call(this, context, undefined);
  };
  host.validateResource = changed;
  try {
    expect(() => registerXds()).toThrow(/ClusterResourceType has no validateResource\(context, message\)/);
    expect(convertsPeakEwma()).toBe(false);
    expect(experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(false);
    expect(experimental.isLoadBalancerNameRegistered('least_request_experimental')).toBe(false);
    expect(host.validateResource).toBe(changed);
  } finally {
    host.validateResource = original;
  }

  registerXds();
  expect(convertsPeakEwma()).toBe(true);
  expect(experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(true);
  // The lb_policy LEAST_REQUEST shim went in too: the validator is wrapped.
  expect(host.validateResource).not.toBe(original);
});
