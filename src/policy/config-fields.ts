/**
 * Readers for service-config fields. Each accepts the camelCase name
 * (canonical) or its snake_case twin, ignores unknown keys (gRFC A21), and
 * throws a message naming the field and the rule it broke.
 */

/** A config field broke a rule; the message names the policy, the field and the rule. */
export class ConfigError extends Error {
  /** The message without the policy name, for callers that add it themselves (grpc-js does). */
  readonly detail: string;

  constructor(
    /** The policy whose config was rejected. */
    readonly policyName: string,
    /** The field, camelCase, e.g. `decayTime` or `decayTime.nanos`. */
    readonly field: string,
    /** The rule it broke and the value given, e.g. `must be greater than zero, got -1s`. */
    readonly rule: string,
    /**
     * Where the policy's entry sits when it is a child of another policy's,
     * e.g. `loadBalancingConfig[0].outlier_detection.child_policy[0]`, as the
     * service config's other errors say it; absent at the top level.
     */
    readonly where?: string,
  ) {
    super(`${where === undefined ? '' : `${where}: `}${policyName}: field "${field}" ${rule}`);
    this.name = 'ConfigError';
    this.detail = `field "${field}" ${rule}`;
  }

  /** The same error, placed at `where`. */
  at(where: string): ConfigError {
    return new ConfigError(this.policyName, this.field, this.rule, where);
  }
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => '_' + letter.toLowerCase());
}

/** The value of `field` under either casing, or undefined; both set is an error. */
export function readField(policyName: string, obj: Record<string, unknown>, field: string): unknown {
  const snake = snakeCase(field);
  const camelValue = obj[field];
  const snakeValue = snake === field ? undefined : obj[snake];
  if (camelValue !== undefined && camelValue !== null && snakeValue !== undefined && snakeValue !== null) {
    throw new ConfigError(policyName, field, `is given twice, as "${field}" and "${snake}"`);
  }
  return camelValue ?? snakeValue ?? undefined;
}

export function describe(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  }
  if (typeof value === 'number') {
    return String(value);
  }
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  return typeof value === 'object' ? 'an object' : typeof value;
}

const DURATION_STRING = /^(\d+)(?:\.(\d{1,9}))?s$/;

/**
 * A duration in milliseconds from a proto3 JSON string ("10s", "0.25s") or a
 * `{seconds, nanos}` object (seconds may be a string, as protobufjs renders
 * int64). Must lie in (0, maxMs], or [0, maxMs] with `zeroTurnsOff` (a field
 * whose zero means "off").
 */
export function readDurationMs(
  policyName: string,
  obj: Record<string, unknown>,
  field: string,
  defaultMs: number,
  maxMs: number,
  zeroTurnsOff = false,
): number {
  const value = readField(policyName, obj, field);
  if (value === undefined) {
    return defaultMs;
  }
  let ms: number;
  if (typeof value === 'string') {
    const match = DURATION_STRING.exec(value);
    if (!match) {
      throw new ConfigError(
        policyName,
        field,
        `must be a duration such as "10s" or "0.25s" (digits, optional fraction, then "s"; not negative), got ${describe(value)}`,
      );
    }
    ms = Number(match[1]) * 1000 + Number((match[2] ?? '').padEnd(9, '0')) / 1e6;
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    ms = durationObjectMs(policyName, field, value as Record<string, unknown>);
  } else {
    throw new ConfigError(policyName, field, `must be a duration string ("10s") or {seconds, nanos}, got ${describe(value)}`);
  }
  if (!(ms > 0) && !(zeroTurnsOff && ms === 0)) {
    throw new ConfigError(policyName, field, `must be greater than zero, got ${typeof value === 'string' ? describe(value) : objectDuration(value as object)}`);
  }
  // Also catches seconds too large for a double (ms = Infinity): too long, not "not positive".
  if (!(ms <= maxMs)) {
    // The value as written: ms / 1000 would print 60.000000001s as 60.000000001000004s.
    const got = Number.isFinite(ms) ? asWritten(value) : 'a duration too large to represent';
    throw new ConfigError(policyName, field, `must be at most ${maxMs / 1000}s, got ${got}`);
  }
  return ms;
}

/** A duration as it was written: a string quoted, an object as its JSON, at most 60 characters of either. */
function asWritten(value: unknown): string {
  if (typeof value === 'string') {
    return describe(value);
  }
  const json = JSON.stringify(value);
  return json.length > 60 ? json.slice(0, 60) + '…' : json;
}

/** A {seconds, nanos} that read as zero, with its keys: {"second": 2} is zero for a typo. */
function objectDuration(value: object): string {
  const keys = Object.keys(value);
  return keys.length === 0 ? '{} (zero)' : `an object that reads as zero (its keys: ${keys.slice(0, 3).map(describe).join(', ')})`;
}

function durationObjectMs(policyName: string, field: string, value: Record<string, unknown>): number {
  const seconds = value.seconds ?? 0;
  const nanos = value.nanos ?? 0;
  const secondsNumber = typeof seconds === 'string' && /^-?\d+$/.test(seconds) ? Number(seconds) : seconds;
  if (typeof secondsNumber !== 'number' || !Number.isInteger(secondsNumber)) {
    throw new ConfigError(policyName, `${field}.seconds`, `must be an integer, got ${describe(seconds)}`);
  }
  if (typeof nanos !== 'number' || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw new ConfigError(policyName, `${field}.nanos`, `must be an integer in [0, 999999999], got ${describe(nanos)}`);
  }
  if (secondsNumber < 0) {
    throw new ConfigError(policyName, field, `must be greater than zero, got ${secondsNumber}s`);
  }
  return secondsNumber * 1000 + nanos / 1e6;
}

/** A finite number in [min, max], or the default. */
export function readNumber(
  policyName: string,
  obj: Record<string, unknown>,
  field: string,
  defaultValue: number,
  range: { min: number; minExclusive?: boolean; max: number },
): number {
  const value = readField(policyName, obj, field);
  if (value === undefined) {
    return defaultValue;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ConfigError(policyName, field, `must be a finite number, got ${describe(value)}`);
  }
  const belowMin = range.minExclusive ? value <= range.min : value < range.min;
  if (belowMin || value > range.max) {
    const lower = range.minExclusive ? `greater than ${range.min}` : `at least ${range.min}`;
    throw new ConfigError(policyName, field, `must be ${lower} and at most ${range.max}, got ${value}`);
  }
  return value;
}

/**
 * gRFC A48's choiceCount: an integer, default 2, below 2 rejected, above 10
 * clamped to 10; `field` and `defaultValue` for another count read by the
 * same rule (peak_ewma's `mixedChoiceCount`).
 */
export function readChoiceCount(
  policyName: string,
  obj: Record<string, unknown>,
  field = 'choiceCount',
  defaultValue = DEFAULT_CHOICE_COUNT,
): number {
  const value = readField(policyName, obj, field);
  if (value === undefined) {
    return defaultValue;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ConfigError(policyName, field, `must be an integer, got ${describe(value)}`);
  }
  if (value < 2) {
    throw new ConfigError(policyName, field, `must be at least 2, got ${value}`);
  }
  return Math.min(value, MAX_CHOICE_COUNT);
}

export const DEFAULT_CHOICE_COUNT = 2;
export const MAX_CHOICE_COUNT = 10;

/** One of `allowed`, or the default. */
export function readEnum<T extends string>(
  policyName: string,
  obj: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
  defaultValue: T,
): T {
  const value = readField(policyName, obj, field);
  if (value === undefined) {
    return defaultValue;
  }
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(policyName, field, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`);
  }
  return value as T;
}

/** The config object itself must be a JSON object. */
export function requireObject(policyName: string, obj: unknown): Record<string, unknown> {
  if (obj === undefined || obj === null) {
    return {};
  }
  if (typeof obj !== 'object' || Array.isArray(obj)) {
    throw new Error(`${policyName}: config must be a JSON object, got ${describe(obj)}`);
  }
  return obj as Record<string, unknown>;
}

/** Milliseconds as a proto3 JSON duration string ("0.25s"). */
export function msToDurationString(ms: number): string {
  const nanos = Math.round(ms * 1e6);
  const seconds = Math.floor(nanos / 1e9);
  const fraction = nanos % 1e9;
  return fraction === 0 ? `${seconds}s` : `${seconds}.${String(fraction).padStart(9, '0').replace(/0+$/, '')}s`;
}
