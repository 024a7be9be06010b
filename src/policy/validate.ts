/**
 * Up-front validation. grpc-js skips a policy whose config does not parse and
 * quietly uses the next one in the list (pick_first at the end), and it
 * ignores unknown fields (gRFC A21), so a typo in a service config shows up
 * as a channel that silently does not balance, or balances with a default.
 * These throw instead: the policy's own error for a bad value, and a named
 * error for a misspelt field or policy name.
 */
import { experimental } from '@grpc/grpc-js';
import { LeastRequestLoadBalancingConfig, LEAST_REQUEST_POLICY_NAME } from './least-request-config';
import { PeakEwmaLoadBalancingConfig, PEAK_EWMA_POLICY_NAME } from './peak-ewma-config';
import { isPolicyRegistered } from './register';
import { ConfigError, describe as quoted } from './config-fields';
import { nearName, parseNotingUnknownFields, UnknownField } from './unknown-fields';

// A Map, not an object: policy names are untrusted input ("__proto__", "constructor").
const PARSERS = new Map<string, (obj: unknown) => unknown>([
  [PEAK_EWMA_POLICY_NAME, (obj) => PeakEwmaLoadBalancingConfig.parse(obj)],
  [LEAST_REQUEST_POLICY_NAME, (obj) => LeastRequestLoadBalancingConfig.parse(obj)],
]);

/** Nesting limit for child policies; grpc-js-xds stops at 16 (gRFC A52). */
export const MAX_CHILD_POLICY_DEPTH = 32;

/** The keys a policy's config carries its child policies under, as grpc-js's own policies spell them. */
const CHILD_POLICY_KEYS = ['childPolicy', 'child_policy'] as const;

/** The child policy lists `config` carries (any value found under a child key), with their keys. */
export function childPolicyLists(config: unknown): [key: string, list: unknown][] {
  if (typeof config !== 'object' || config === null) {
    return [];
  }
  const lists: [string, unknown][] = [];
  for (const key of CHILD_POLICY_KEYS) {
    const list = (config as Record<string, unknown>)[key];
    if (list !== undefined) {
      lists.push([key, list]);
    }
  }
  return lists;
}

/**
 * Policy names a misspelt one is matched against: ours, and those grpc-js
 * and grpc-js-xds register (only the registered ones are offered).
 */
const OTHER_POLICY_NAMES = [
  'pick_first',
  'round_robin',
  'weighted_round_robin',
  'outlier_detection',
  'ring_hash',
  'priority',
  'weighted_target',
  'xds_wrr_locality',
  'xds_cluster_impl',
  'xds_cluster_manager',
  'cds',
];

/**
 * Validates a service config (object or JSON text): every
 * `peak_ewma_experimental` and `least_request_experimental` entry, also inside
 * other policies' `childPolicy`/`child_policy` lists, with our own messages,
 * including a field this version does not have (a typo: grpc-js would ignore
 * it); then every top-level entry whose policy is registered with grpc-js,
 * through grpc-js's own parser (which catches, e.g., outlier_detection's
 * demand for `{seconds, nanos}` durations). Policy names: one of ours not
 * registered yet (`register()` not called), a name one or two letters from a
 * registered policy's, or a list none of whose policies grpc-js knows (the
 * channel would use pick_first) is an error; any other unknown name is a
 * policy for another gRPC implementation, which grpc-js skips. Throws the
 * first error; returns the number of our entries checked.
 */
export function validateServiceConfig(serviceConfig: unknown): number {
  const parsed = typeof serviceConfig === 'string' ? parseJson(serviceConfig) : serviceConfig;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`service config must be a JSON object, got ${quoted(parsed)}`);
  }
  checkTopLevelFields(parsed as Record<string, unknown>);
  const list = (parsed as Record<string, unknown>).loadBalancingConfig;
  if (list === undefined) {
    return 0;
  }
  const checked = validateLoadBalancingConfigList(list, 'loadBalancingConfig');
  const entries = list as Record<string, unknown>[];
  entries.forEach((entry, index) => {
    const name = Object.keys(entry)[0];
    if (isPolicyRegistered(name)) {
      try {
        experimental.parseLoadBalancingConfig(entry as Record<string, object>);
      } catch (error) {
        throw new Error(`loadBalancingConfig[${index}]: ${(error as Error).message}`);
      }
    }
  });
  const names = entries.map((entry) => Object.keys(entry)[0]);
  if (names.length > 0 && !names.some(isPolicyRegistered)) {
    throw new Error(
      `loadBalancingConfig: none of its policies (${names.map(quoted).join(', ')}) is registered with grpc-js, ` +
        'so a channel would use pick_first',
    );
  }
  return checked;
}

/**
 * The service config's own fields (grpc's service_config.proto, in the JSON
 * spelling every gRPC implementation reads). Another name is a field for
 * someone else and passes (gRFC A21), unless it is a near miss of these.
 */
const SERVICE_CONFIG_FIELDS = ['loadBalancingConfig', 'loadBalancingPolicy', 'methodConfig', 'retryThrottling', 'healthCheckConfig'];

/**
 * Throws on a top-level field that would leave a channel on pick_first
 * without a word: `loadBalancingPolicy` alone (grpc-js 1.14 parses it and
 * never reads it), or a near miss of a service config field
 * (`load_balancing_config`, `loadBalancingConfigs`), which grpc-js ignores.
 */
function checkTopLevelFields(serviceConfig: Record<string, unknown>): void {
  const policy = serviceConfig.loadBalancingPolicy;
  if (policy !== undefined && typeof policy !== 'string') {
    throw new Error(`loadBalancingPolicy must be a string, got ${quoted(policy)}: grpc-js rejects the whole service config`);
  }
  // Other implementations read the name case-insensitively ("ROUND_ROBIN"); registered names are lower case.
  const name = policy?.toLowerCase();
  if (name !== undefined && name !== 'pick_first' && serviceConfig.loadBalancingConfig === undefined) {
    throw new Error(
      `loadBalancingPolicy: grpc-js ignores this field and would use pick_first; ` +
        `write "loadBalancingConfig": [{${quoted(name)}: {}}] instead`,
    );
  }
  for (const field of Object.keys(serviceConfig)) {
    if (SERVICE_CONFIG_FIELDS.includes(field)) {
      continue;
    }
    const suggestion = nearName(field, SERVICE_CONFIG_FIELDS);
    if (suggestion !== undefined) {
      throw new Error(`service config: field ${quoted(field)} is not read by grpc-js (did you mean ${quoted(suggestion)}?)`);
    }
  }
}

/** Validates a `loadBalancingConfig` list; returns the number of our entries checked. */
export function validateLoadBalancingConfigList(list: unknown, path = 'loadBalancingConfig', depth = 0): number {
  if (depth > MAX_CHILD_POLICY_DEPTH) {
    throw new Error(`${path}: child policies nested deeper than ${MAX_CHILD_POLICY_DEPTH} levels`);
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
      // Nested, the entry is placed as a wrong policy name is; at the top level the policy's name says it.
      parseStrictly(name, parser, config, depth > 0 ? `${path}[${index}]` : undefined);
      checked++;
    }
    checkPolicyName(name, `${path}[${index}]`);
    for (const [childKey, children] of childPolicyLists(config)) {
      // A policy grpc-js does not know (another implementation's) may keep anything under the key: grpc-js skips it whole.
      if (!Array.isArray(children) && !isPolicyRegistered(name)) continue;
      checked += validateLoadBalancingConfigList(children, `${path}[${index}].${name}.${childKey}`, depth + 1);
    }
  });
  return checked;
}

/**
 * Parses `config` with `parser`, then rejects any key the parser never read
 * (unknown-fields.ts): grpc-js would ignore it, so a misspelt field would
 * keep its default without a word. A field's error names `where` the entry
 * sits, if given (a child of another policy).
 */
function parseStrictly(policyName: string, parser: (obj: unknown) => unknown, config: unknown, where?: string): void {
  let unknown: UnknownField | undefined;
  try {
    [unknown] = parseNotingUnknownFields(config, parser).unknownFields;
  } catch (error) {
    throw where !== undefined && error instanceof ConfigError ? error.at(where) : error;
  }
  if (unknown !== undefined) {
    throw new ConfigError(policyName, unknown.name, `${unknown.rule}: grpc-js would ignore it`, where);
  }
}

/**
 * Throws if the entry's policy `name` is one grpc-js would skip by mistake:
 * ours before `register()`, or a near miss of a registered name.
 */
function checkPolicyName(name: string, where: string): void {
  if (isPolicyRegistered(name)) {
    return;
  }
  if (PARSERS.has(name)) {
    throw new Error(
      `${where}: ${quoted(name)} is not registered with grpc-js yet: call register() from grpc-js-peak-ewma ` +
        'before creating channels (grpc-js skips a policy it does not know)',
    );
  }
  const known = [...PARSERS.keys(), ...OTHER_POLICY_NAMES.filter(isPolicyRegistered)];
  const suggestion = nearName(name, known);
  if (suggestion !== undefined) {
    throw new Error(
      `${where}: no policy is registered as ${quoted(name)}; did you mean ${quoted(suggestion)}? ` +
        '(grpc-js skips a policy it does not know)',
    );
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`service config is not valid JSON: ${(error as Error).message}`);
  }
}
