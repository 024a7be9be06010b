/**
 * A config of our policy made by another copy of this package.
 *
 * When another copy registers after a balancer was built (package-copies.ts),
 * grpc-js parses every later config of the channel with that copy's class,
 * and keeps the balancer for them (same policy name): `instanceof` fails, and
 * an update refused for it left the channel on its old endpoints through a
 * rolling deploy. So the balancer reads the same policy's JSON again with its
 * own class. One that does not parse here (a newer copy may accept more) is
 * refused: grpc-js then keeps the channel's last config and the balancer its
 * endpoints, and a resolver that polls tries again.
 */
import { experimental } from '@grpc/grpc-js';
import { EndpointPickingConfig, parseReportingUnknownFields } from './endpoint-picking-config';
import { ownPackage } from './own-package';
import { describeCopy, registryHolder } from './package-copies';

/** A policy's config class, with the parser its `createFromJson` runs. */
export type EndpointPickingConfigClass = (abstract new (...args: never[]) => EndpointPickingConfig) & {
  /** Parses the policy's JSON config; throws a ConfigError naming the field and the rule. */
  parse(obj: unknown): EndpointPickingConfig;
};

/** What a config grpc-js hands a balancer of `policyName` is to it: its own, or a refusal (with why, for the log). */
export type ConfigOfThisCopy = { readonly config: EndpointPickingConfig } | { readonly refusal: string | null };

/**
 * `lbConfig` as an instance of `configClass`, parsed again from its JSON when
 * another copy made it; a refusal otherwise: with a line to log where it
 * named our policy and did not parse here, with none for another policy's.
 */
export function configOfThisCopy(
  lbConfig: experimental.TypedLoadBalancingConfig,
  policyName: string,
  configClass: EndpointPickingConfigClass,
): ConfigOfThisCopy {
  if (lbConfig instanceof configClass) {
    return { config: lbConfig };
  }
  if (lbConfig.getLoadBalancerName() !== policyName) {
    return { refusal: null };
  }
  try {
    const json = (lbConfig.toJsonObject() as Record<string, unknown>)[policyName];
    return { config: parseReportingUnknownFields(policyName, json, (obj) => configClass.parse(obj)) };
  } catch (error) {
    const holder = registryHolder(experimental.registerLoadBalancerType);
    return {
      refusal:
        `its ${policyName} config was made by another copy of grpc-js-peak-ewma ` +
        `(${holder === null ? 'one that does not say its version' : describeCopy(holder)}) and does not ` +
        `parse in this one (${describeCopy(ownPackage())}): ${(error as Error).message}`,
    };
  }
}
