/**
 * `Cluster.lb_policy: LEAST_REQUEST`, the pre-A52 enum, for grpc-js. Istio's
 * proxyless generator sends it (istio/istio#58052) when a DestinationRule asks
 * for LEAST_REQUEST; grpc-go and grpc-java accept it; grpc-js-xds 1.14 knows
 * only ROUND_ROBIN and RING_HASH there and NACKs the Cluster ("load_balancing_policy
 * unset and unsupported lb_policy: LEAST_REQUEST"), and it has no hook for
 * the enum.
 *
 * gRFC A48: least_request is the endpoint-picking policy under the locality
 * layer, configured from `least_request_lb_config` (optional; `choice_count`
 * default 2, below 2 rejected, above 10 clamped to 10 by our policy). The
 * tree is grpc-java's (LoadBalancerConfigFactory: wrr_locality →
 * least_request), in grpc-js's names:
 *
 *   { xds_wrr_locality: { child_policy: [ { least_request_experimental: { choiceCount } } ] } }
 *
 * gRFC A52: a Cluster with `load_balancing_policy` set is left to
 * grpc-js-xds; that field wins over `lb_policy`. Unless the operator turned
 * A52 off (GRPC_EXPERIMENTAL_XDS_CUSTOM_LB_CONFIG set to anything but
 * "true"): grpc-js-xds then ignores `load_balancing_policy` and reads
 * `lb_policy` alone, and so does the shim, as grpc-go and grpc-java do with
 * their switch off; the setting is read from grpc-js-xds, which read it once
 * at its load.
 *
 * The way in is the narrowest we found: the CDS validator's private
 * `validateResource` on grpc-js-xds's one ClusterResourceType instance is
 * wrapped. For LEAST_REQUEST without `load_balancing_policy`, the original
 * validates everything else of the Cluster as if it said ROUND_ROBIN (the
 * only lb_policy-dependent output is `lbPolicyConfig`), and the result's
 * `lbPolicyConfig` is replaced by the tree above. Every other Cluster goes
 * to the original untouched. prepareLegacyLeastRequest() first checks, on
 * probe Clusters decoded by grpc-js-xds's own decoder, that the original
 * still behaves as this relies on, and throws otherwise; a release that
 * accepts LEAST_REQUEST itself is left to do so, and the shim stands aside.
 */
import { LoadBalancingConfig } from '@grpc/grpc-js';
import type { Cluster__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/Cluster';
import type { CdsUpdate } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';
import type { ValidationResult, XdsDecodeContext } from '@grpc/grpc-js-xds/build/src/xds-resource-type/xds-resource-type';
import { isDeepStrictEqual } from 'util';
import { assertGrpcAccepts } from './grpc-accepts';
import { leastRequestToJson } from './least-request-converter';
import { incompatible, requireXdsInternal } from './xds-registry';

type ClusterModule = typeof import('@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type');
type ResourcesModule = typeof import('@grpc/grpc-js-xds/build/src/resources');
type EnvironmentModule = typeof import('@grpc/grpc-js-xds/build/src/environment');
type ValidateResource = (context: XdsDecodeContext, message: Cluster__Output) => ValidationResult<CdsUpdate>;

const CLUSTER_MODULE = '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type';
const RESOURCES_MODULE = '@grpc/grpc-js-xds/build/src/resources';
const ENVIRONMENT_MODULE = '@grpc/grpc-js-xds/build/src/environment';
/**
 * Marks a wrapper of any copy of this package and carries the validator it
 * wraps, so that the copy serving xDS (package-copies.ts) replaces another
 * copy's wrapper instead of wrapping it. (A copy from before the original
 * was carried marks its wrapper `true`; one installs over it, which works,
 * as each wrapper handles LEAST_REQUEST before the one it wraps sees it.)
 */
const WRAPPED = Symbol.for('grpc-js-peak-ewma.legacyLeastRequest');
/** What grpc-js-xds 1.14 makes of lb_policy ROUND_ROBIN; the probe checks it still does. */
const ROUND_ROBIN_TREE = [{ xds_wrr_locality: { child_policy: [{ round_robin: {} }] } }];

/** The `least_request_lb_config` fields we read, as grpc-js-xds decodes them. */
export interface LegacyLeastRequestFields {
  least_request_lb_config?: { choice_count?: { value: number } | null } | null;
}

/**
 * The grpc-js config for `lb_policy: LEAST_REQUEST` (gRFC A48). Throws,
 * naming the field, when `choice_count` is below 2.
 */
export function legacyLeastRequestConfig(cluster: LegacyLeastRequestFields): LoadBalancingConfig {
  const choiceCount = cluster.least_request_lb_config?.choice_count?.value;
  if (choiceCount !== undefined && choiceCount < 2) {
    throw new Error(`lb_policy LEAST_REQUEST: least_request_lb_config.choice_count must be >= 2 (gRFC A48), got ${choiceCount}`);
  }
  // The child is checked on its own: grpc-js parses xds_wrr_locality's children only when addresses arrive.
  const child = assertGrpcAccepts(leastRequestToJson({ choice_count: choiceCount }));
  return assertGrpcAccepts({ xds_wrr_locality: { child_policy: [child] } });
}

type Wrapper = ValidateResource & { [WRAPPED]?: ValidateResource | true };

interface ValidatorHost {
  validateResource?: Wrapper;
}

/** The wrappers this copy installed. */
const ownWrappers = new WeakSet<ValidateResource>();

/** grpc-js-xds's ClusterResourceType instance (the one its XdsClient uses), shape-checked. */
function clusterValidatorHost(): ValidatorHost {
  const clusterModule = requireXdsInternal<ClusterModule>(CLUSTER_MODULE);
  const clusterType = clusterModule.ClusterResourceType;
  if (typeof clusterType?.get !== 'function') {
    throw incompatible(CLUSTER_MODULE, 'ClusterResourceType.get is not a function');
  }
  const host = clusterType.get() as unknown as ValidatorHost;
  if (typeof host.validateResource !== 'function' || host.validateResource.length !== 2) {
    throw incompatible(CLUSTER_MODULE, 'ClusterResourceType has no validateResource(context, message)');
  }
  return host;
}

/** A minimal EDS Cluster decoded by grpc-js-xds itself, so every field it reads has the shape it expects. */
function probeCluster(lbPolicy: string): Cluster__Output {
  const resources = requireXdsInternal<ResourcesModule>(RESOURCES_MODULE);
  if (typeof resources.decodeSingleResource !== 'function' || typeof resources.CDS_TYPE_URL !== 'string') {
    throw incompatible(RESOURCES_MODULE, 'decodeSingleResource or CDS_TYPE_URL is missing');
  }
  const message = resources.decodeSingleResource(resources.CDS_TYPE_URL, Buffer.alloc(0)) as Cluster__Output;
  return {
    ...message,
    name: 'grpc-js-peak-ewma-probe',
    cluster_discovery_type: 'type',
    type: 'EDS',
    eds_cluster_config: { eds_config: { ads: {} }, service_name: '' } as Cluster__Output['eds_cluster_config'],
    lb_policy: lbPolicy as Cluster__Output['lb_policy'],
  };
}

/**
 * Checks the facts the wrapper relies on; throws (registerXds fails) if
 * ROUND_ROBIN no longer validates to the tree it did. Returns false if
 * grpc-js-xds now accepts LEAST_REQUEST itself: the shim is then not needed.
 */
function originalNeedsShim(validate: ValidateResource): boolean {
  const context = { bootstrap: { certificateProviders: {} } } as unknown as XdsDecodeContext;
  const roundRobin = validate(context, probeCluster('ROUND_ROBIN'));
  if (!roundRobin.valid || !isDeepStrictEqual(roundRobin.result.lbPolicyConfig, ROUND_ROBIN_TREE)) {
    throw incompatible(CLUSTER_MODULE, `an lb_policy ROUND_ROBIN Cluster no longer validates to ${JSON.stringify(ROUND_ROBIN_TREE)}`);
  }
  return !validate(context, probeCluster('LEAST_REQUEST')).valid;
}

/**
 * What registerXds() logs where grpc-js-xds ignores every Cluster's
 * `load_balancing_policy` (gRFC A52 off), or null where it reads it.
 * grpc-js-xds compares the variable's text with "true", so `1`, `TRUE` or
 * `yes` switch it off as `false` does, and a PeakEwma Cluster then runs its
 * `lb_policy` (ROUND_ROBIN by default) without a word: the one setting that
 * turns this package's converters off in silence. Logged as an error unless
 * the text is "false" (a deliberate switch, logged as information), so that
 * grpc-js's default verbosity shows a mistyped one.
 */
export function customLbConfigOffNotice(): { error: boolean; text: string } | null {
  if (customLbConfigOn()) {
    return null;
  }
  const value = process.env.GRPC_EXPERIMENTAL_XDS_CUSTOM_LB_CONFIG;
  return {
    error: value !== 'false',
    text:
      `grpc-js-peak-ewma: GRPC_EXPERIMENTAL_XDS_CUSTOM_LB_CONFIG is ${value === undefined ? 'not "true"' : JSON.stringify(value)}, ` +
      'and @grpc/grpc-js-xds reads a Cluster\'s load_balancing_policy only while it is unset or exactly "true": ' +
      'PeakEwma and LeastRequest there are ignored, and each Cluster runs its lb_policy (ROUND_ROBIN unless set; LEAST_REQUEST runs least_request_experimental)',
  };
}

/** Whether grpc-js-xds reads `load_balancing_policy` (gRFC A52 on), as it decided at its load. */
function customLbConfigOn(): boolean {
  const on = requireXdsInternal<EnvironmentModule>(ENVIRONMENT_MODULE).EXPERIMENTAL_CUSTOM_LB_CONFIG;
  if (typeof on !== 'boolean') {
    throw incompatible(ENVIRONMENT_MODULE, 'EXPERIMENTAL_CUSTOM_LB_CONFIG is not a boolean');
  }
  return on;
}

/**
 * Checks everything the shim relies on and returns what installs it, or
 * null where grpc-js-xds accepts `lb_policy: LEAST_REQUEST` itself (a later
 * 1.14 patch may: its own reading then stands). Throws, having changed
 * nothing, if grpc-js-xds's internals are not as this was written against,
 * so that registerXds() fails before it installs anything (index.ts).
 */
export function prepareLegacyLeastRequest(): (() => void) | null {
  const host = clusterValidatorHost();
  const current = host.validateResource!;
  if (ownWrappers.has(current)) {
    return () => {};
  }
  const wrapped = current[WRAPPED];
  const original = typeof wrapped === 'function' ? wrapped : current;
  const validate: ValidateResource = (context, message) => original.call(host, context, message);
  if (!originalNeedsShim(validate)) {
    return null;
  }
  const readsPolicyField = customLbConfigOn();
  return () => {
    const wrapper: Wrapper = (context, message) => {
      if ((readsPolicyField && message.load_balancing_policy) || message.lb_policy !== 'LEAST_REQUEST') {
        return validate(context, message);
      }
      let config: LoadBalancingConfig | null = null;
      let error: string | null = null;
      try {
        config = legacyLeastRequestConfig(message);
      } catch (thrown) {
        error = (thrown as Error).message;
      }
      const rest = validate(context, { ...message, lb_policy: 'ROUND_ROBIN' });
      if (error !== null) {
        return { valid: false, errors: [error, ...(rest.valid ? [] : rest.errors)] };
      }
      return rest.valid ? { valid: true, result: { ...rest.result, lbPolicyConfig: [config!] } } : rest;
    };
    wrapper[WRAPPED] = original;
    ownWrappers.add(wrapper);
    host.validateResource = wrapper;
  };
}

/**
 * Makes grpc-js-xds's CDS validation accept `lb_policy: LEAST_REQUEST` as
 * gRFC A48 says, replacing another copy's wrapper. Idempotent. Returns false
 * where grpc-js-xds accepts it itself and nothing was installed.
 */
export function installLegacyLeastRequest(): boolean {
  const install = prepareLegacyLeastRequest();
  install?.();
  return install !== null;
}
