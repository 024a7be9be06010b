/**
 * Up-front validation. grpc-js skips a policy whose config does not parse and
 * quietly uses the next one in the list (pick_first at the end), so a typo in
 * a service config shows up as a channel that silently does not balance.
 * These throw the policy's own error instead.
 */
import { experimental } from '@grpc/grpc-js';
import { LeastRequestLoadBalancingConfig, LEAST_REQUEST_POLICY_NAME } from './least-request-config';
import { PeakEwmaLoadBalancingConfig, PEAK_EWMA_POLICY_NAME } from './peak-ewma-config';

// A Map, not an object: policy names are untrusted input ("__proto__", "constructor").
const PARSERS = new Map<string, (obj: unknown) => unknown>([
  [PEAK_EWMA_POLICY_NAME, (obj) => PeakEwmaLoadBalancingConfig.parse(obj)],
  [LEAST_REQUEST_POLICY_NAME, (obj) => LeastRequestLoadBalancingConfig.parse(obj)],
]);

/** Nesting limit for child policies; grpc-js-xds stops at 16 (gRFC A52). */
const MAX_DEPTH = 32;

/**
 * Validates a service config (object or JSON text): every
 * `peak_ewma_experimental` and `least_request_experimental` entry, also inside
 * other policies' `childPolicy`/`child_policy` lists, with our own messages;
 * then every top-level entry whose policy is registered with grpc-js, through
 * grpc-js's own parser (which catches, e.g., outlier_detection's demand for
 * `{seconds, nanos}` durations). Throws the first error; returns the number
 * of our entries checked.
 */
export function validateServiceConfig(serviceConfig: unknown): number {
  const parsed = typeof serviceConfig === 'string' ? parseJson(serviceConfig) : serviceConfig;
  if (typeof parsed !== 'object' || parsed === null) {
    throw new Error('service config must be a JSON object');
  }
  const list = (parsed as Record<string, unknown>).loadBalancingConfig;
  if (list === undefined) {
    return 0;
  }
  const checked = validateLoadBalancingConfigList(list, 'loadBalancingConfig');
  (list as Record<string, unknown>[]).forEach((entry, index) => {
    const name = Object.keys(entry)[0];
    // grpc-js checks registration with `in`, so "constructor" or "toString"
    // look registered to it; no real policy has such a name.
    if (!(name in Object.prototype) && experimental.isLoadBalancerNameRegistered(name)) {
      try {
        experimental.parseLoadBalancingConfig(entry as Record<string, object>);
      } catch (error) {
        throw new Error(`loadBalancingConfig[${index}]: ${(error as Error).message}`);
      }
    }
  });
  return checked;
}

/** Validates a `loadBalancingConfig` list; returns the number of our entries checked. */
export function validateLoadBalancingConfigList(list: unknown, path = 'loadBalancingConfig', depth = 0): number {
  if (depth > MAX_DEPTH) {
    throw new Error(`${path}: child policies nested deeper than ${MAX_DEPTH} levels`);
  }
  if (!Array.isArray(list)) {
    throw new Error(`${path} must be an array`);
  }
  let checked = 0;
  list.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Object.keys(entry).length !== 1) {
      throw new Error(`${path}[${index}] must be an object with exactly one key, the policy name`);
    }
    const [name, config] = Object.entries(entry as Record<string, unknown>)[0];
    const parser = PARSERS.get(name);
    if (parser) {
      parser(config);
      checked++;
    }
    if (typeof config === 'object' && config !== null) {
      for (const childKey of ['childPolicy', 'child_policy']) {
        const children = (config as Record<string, unknown>)[childKey];
        if (children !== undefined) {
          checked += validateLoadBalancingConfigList(children, `${path}[${index}].${name}.${childKey}`, depth + 1);
        }
      }
    }
  });
  return checked;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`service config is not valid JSON: ${(error as Error).message}`);
  }
}
