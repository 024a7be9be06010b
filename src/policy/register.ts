/** Registration with grpc-js's (module-global) policy registry. */
import { experimental } from '@grpc/grpc-js';
import { assertSameGrpcJs, GrpcJsChoice, readGrpcJsChoice } from './grpc-js-copies';
import { assertSupportedGrpcJs } from './grpc-js-version';
import { LeastRequestLoadBalancer } from './least-request';
import { LEAST_REQUEST_POLICY_NAME, LeastRequestLoadBalancingConfig } from './least-request-config';
import { claimRegistry } from './package-copies';
import { PeakEwmaLoadBalancer } from './peak-ewma';
import { PEAK_EWMA_POLICY_NAME, PeakEwmaLoadBalancingConfig } from './peak-ewma-config';

/**
 * Registers `peak_ewma_experimental` and `least_request_experimental` with
 * grpc-js. Idempotent. Call it before creating channels that name them: a
 * channel whose config names an unregistered policy silently uses pick_first.
 *
 * Throws if @grpc/grpc-js is not a 1.14 release (grpc-js-version.ts), and
 * if the application can end up on another copy of @grpc/grpc-js than
 * the one registered into (grpc-js-copies.ts), for the same reason; pass
 * `{ grpcJs: require('@grpc/grpc-js') }` to name the copy your channels use.
 * A TypeError names a bad argument (a misspelt option, a string).
 *
 * Where another copy of this package has registered into the same grpc-js,
 * the higher version keeps the registration, and equal versions the first
 * (package-copies.ts); the other copy's channels, callMarker, stats and
 * validateServiceConfig work with it all the same.
 */
export function register(choice?: GrpcJsChoice): void {
  const checked = readGrpcJsChoice('register()', choice);
  assertSupportedGrpcJs();
  assertSameGrpcJs(checked);
  // Keyed by grpc-js's registry function: with the { grpcJs } escape hatch two grpc-js copies each have a registry.
  const registry = experimental.registerLoadBalancerType;
  if (!claimRegistry(registry, `${PEAK_EWMA_POLICY_NAME} and ${LEAST_REQUEST_POLICY_NAME}`, isPolicyRegistered(PEAK_EWMA_POLICY_NAME))) {
    return;
  }
  experimental.registerLoadBalancerType(PEAK_EWMA_POLICY_NAME, PeakEwmaLoadBalancer, PeakEwmaLoadBalancingConfig);
  experimental.registerLoadBalancerType(
    LEAST_REQUEST_POLICY_NAME,
    LeastRequestLoadBalancer,
    LeastRequestLoadBalancingConfig,
  );
}

/**
 * Whether grpc-js knows the policy `name`, a name from untrusted input (a
 * service config, a TypedStruct's type_url). grpc-js checks registration
 * with `in` on a plain object, so "constructor" or "toString" look
 * registered to it and then fail inside it; no real policy has such a name.
 */
export function isPolicyRegistered(name: string): boolean {
  return !(name in Object.prototype) && experimental.isLoadBalancerNameRegistered(name);
}
