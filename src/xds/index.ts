/**
 * grpc-js-peak-ewma/xds: Envoy's PeakEwma and LeastRequest load balancing
 * policies in a CDS Cluster drive grpc-js clients (gRFC A52).
 *
 *   import { registerXds } from 'grpc-js-peak-ewma/xds';
 *   registerXds();   // before creating xds:/// channels
 *
 * See docs/xds.md for the field mapping and a Cluster example.
 */
import { experimental, logVerbosity } from '@grpc/grpc-js';
import { assertSameGrpcJs, GrpcJsChoice, readGrpcJsChoice } from '../policy/grpc-js-copies';
import { claimRegistry } from '../policy/package-copies';
import { register as registerPolicies } from '../policy/register';
import { customLbConfigOffNotice, prepareLegacyLeastRequest } from './legacy-least-request';
import { convertLeastRequest } from './least-request-converter';
import { convertPeakEwma } from './peak-ewma-converter';
import { EncodedAny, precompileValidators } from './policy-protos';
import { convertTypedStruct } from './typed-struct-converter';
import { prepareGrpcJsXdsFixes } from './grpc-js-xds-fixes';
import {
  LEAST_REQUEST_TYPE_URL,
  PEAK_EWMA_TYPE_URL,
  UDPA_TYPED_STRUCT_TYPE_URL,
  WRR_LOCALITY_TYPE_URL,
  XDS_TYPED_STRUCT_TYPE_URL,
} from './type-urls';
import { convertWrrLocality } from './wrr-locality-converter';
import { assertSingleGrpcJs, assertSupportedXdsVersion, loadGrpcJsXds, loadRegisterLbPolicy, ProtoLbPolicyConverter } from './xds-registry';

export {
  LEAST_REQUEST_TYPE_URL,
  PEAK_EWMA_TYPE_URL,
  UDPA_TYPED_STRUCT_TYPE_URL,
  XDS_TYPED_STRUCT_TYPE_URL,
} from './type-urls';
export { convertPeakEwma, peakEwmaToJson, ENVOY_PEAK_EWMA_DEFAULTS, ENVOY_PEAK_EWMA_CHOICE_COUNT } from './peak-ewma-converter';
export { convertLeastRequest, leastRequestToJson } from './least-request-converter';
export type { LeastRequestView } from './least-request-converter';
export { convertTypedStruct } from './typed-struct-converter';
export type { EncodedAny } from './policy-protos';
export { PgvViolation } from './pgv/enforcer';
export { PINNED_XDS_VERSION, SUPPORTED_XDS_RANGE, TESTED_XDS_VERSION } from './xds-registry';
export { legacyLeastRequestConfig } from './legacy-least-request';
export type { PeakEwma } from '../generated/envoy/extensions/load_balancing_policies/peak_ewma/v3alpha/peak_ewma';

/** Adapts a converter of the Any to the registry's signature (it is handed the whole TypedExtensionConfig). */
function fromTypedConfig(
  convert: (typedConfig: EncodedAny, selectChildPolicy: Parameters<ProtoLbPolicyConverter>[1]) => ReturnType<ProtoLbPolicyConverter>,
): ProtoLbPolicyConverter {
  return (protoPolicy, selectChildPolicy) => {
    if (!protoPolicy.typed_config) {
      throw new Error('typed_config is missing');
    }
    return convert(protoPolicy.typed_config, selectChildPolicy);
  };
}

let registered = false;

/**
 * Registers, in this order: @grpc/grpc-js-xds (the xds: scheme and its
 * policies); our policies (peak_ewma_experimental,
 * least_request_experimental) with grpc-js; our converters for Envoy's PeakEwma (v3alpha) and
 * LeastRequest (v3), validating converters for both TypedStruct URLs, and
 * one for WrrLocality that checks the child it hands xds_wrr_locality
 * (wrr-locality-converter.ts);
 * and acceptance of the Cluster's old `lb_policy: LEAST_REQUEST` enum (gRFC
 * A48, what Istio's proxyless generator sends; see legacy-least-request.ts;
 * not installed, with an INFO log, where grpc-js-xds accepts it itself);
 * and grpc-js-xds's weighted_target and priority mended (grpc-js-xds-fixes.ts:
 * a removed locality's balancer destroyed, a closed channel's timers cleared).
 * Idempotent. Call it before the first xds:/// channel: a Cluster that
 * arrives earlier naming only these policies is NACKed. Where another copy
 * of this package has registered, the higher version keeps the policies and
 * the converters, equal versions the first (package-copies.ts).
 *
 * Throws if the installed @grpc/grpc-js-xds is outside SUPPORTED_XDS_RANGE
 * or no longer has the internals this relies on, if two copies of
 * @grpc/grpc-js are installed, or if a proto carries a validation rule the
 * enforcer does not know. Every check runs before anything of this
 * package is installed, so a throw leaves none of it behind (only
 * grpc-js-xds's own register() has run) and a later call checks again. `choice` is register()'s: `{ grpcJs }`, the
 * module your channels are made with, checked against the copy this
 * package and grpc-js-xds register into, also when already registered.
 * It is the only check that sees a grpc-js inlined into a bundle while this
 * package and grpc-js-xds load theirs from disk: both of those are one
 * copy, and the inlined one leaves no file to find.
 */
export function registerXds(choice?: GrpcJsChoice): void {
  const checked = readGrpcJsChoice('registerXds()', choice);
  if (registered) {
    assertSameGrpcJs(checked);
    return;
  }
  // Loaded first so that a missing package is reported as missing, not as version "unknown".
  const grpcJsXds = loadGrpcJsXds();
  assertSupportedXdsVersion();
  const registerLbPolicy = loadRegisterLbPolicy();
  assertSingleGrpcJs();
  precompileValidators([PEAK_EWMA_TYPE_URL, LEAST_REQUEST_TYPE_URL, XDS_TYPED_STRUCT_TYPE_URL, UDPA_TYPED_STRUCT_TYPE_URL]);
  // grpc-js-xds's own registration, which its users call anyway; the checks below read what it registers.
  grpcJsXds.register();
  // Every check of grpc-js-xds's internals runs before anything of ours is
  // installed: a failure leaves no converter registered without the rest.
  const installFixes = prepareGrpcJsXdsFixes();
  const installShim = prepareLegacyLeastRequest();
  registerPolicies(checked);
  // After grpcJsXds.register(), whose weighted_target and priority they replace (last wins).
  installFixes();
  // grpc-js-xds's converter registry is module-global and last-wins too: the
  // copy of this package that holds it is chosen as for the policies.
  if (claimRegistry(registerLbPolicy, 'the xDS converters and the lb_policy LEAST_REQUEST shim')) {
    registerLbPolicy(PEAK_EWMA_TYPE_URL, fromTypedConfig(convertPeakEwma));
    registerLbPolicy(LEAST_REQUEST_TYPE_URL, fromTypedConfig(convertLeastRequest));
    // After grpcJsXds.register(), which registered its own (non-validating) ones.
    registerLbPolicy(XDS_TYPED_STRUCT_TYPE_URL, fromTypedConfig(convertTypedStruct));
    registerLbPolicy(UDPA_TYPED_STRUCT_TYPE_URL, fromTypedConfig(convertTypedStruct));
    // Over grpc-js-xds's, which does not check the child it hands xds_wrr_locality.
    registerLbPolicy(WRR_LOCALITY_TYPE_URL, fromTypedConfig(convertWrrLocality));
    if (installShim) {
      installShim();
    } else {
      experimental.log(
        logVerbosity.INFO,
        'grpc-js-peak-ewma: @grpc/grpc-js-xds accepts lb_policy LEAST_REQUEST itself; its reading stands, and this package\'s shim for it is not installed',
      );
    }
  }
  const offNotice = customLbConfigOffNotice();
  if (offNotice !== null) {
    experimental.log(offNotice.error ? logVerbosity.ERROR : logVerbosity.INFO, offNotice.text);
  }
  registered = true;
}
