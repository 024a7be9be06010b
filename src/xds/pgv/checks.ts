/**
 * The individual protoc-gen-validate rules this enforcer knows, compiled from
 * a rule kind's options (e.g. `{gt: {}}` for kind "duration") into checks.
 * Semantics follow PGV's validate.proto: const / lt / lte / gt / gte / in /
 * not_in on numbers and durations (a lower bound above the upper bound means
 * "outside the range"), lengths on strings, defined_only on enums, required on
 * messages. Anything else is refused when compiled, naming the rule, so an
 * annotation is never silently skipped.
 */
import { durationToNanos, DurationObject, nanosToJson } from '../duration';

/** One rule: `rule` is its name under validate.rules ("duration.gt"). */
export interface Check {
  readonly rule: string;
  /** null when the value passes, else what it must be ("must be > 0s"). */
  test(value: unknown): string | null;
}

/** How the values of a kind compare and print. */
interface Domain<T extends number | bigint> {
  read(raw: unknown): T;
  format(value: T): string;
}

const integerDomain: Domain<bigint> = {
  read: (raw) => BigInt(raw as string | number),
  format: (value) => value.toString(),
};

const floatDomain: Domain<number> = {
  read: (raw) => Number(raw),
  format: (value) => String(value),
};

const durationDomain: Domain<bigint> = {
  read: (raw) => durationToNanos((raw ?? {}) as DurationObject),
  format: nanosToJson,
};

export const INTEGER_KINDS = [
  'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64',
] as const;
export const FLOAT_KINDS = ['float', 'double'] as const;

export class UnsupportedRuleError extends Error {
  constructor(
    readonly rule: string,
    readonly fieldName?: string,
  ) {
    super(fieldName === undefined ? rule : `${rule} on ${fieldName}`);
    this.name = 'UnsupportedRuleError';
  }

  /** The same error, naming the field that carries the rule. */
  at(fieldName: string): UnsupportedRuleError {
    return new UnsupportedRuleError(this.rule, fieldName);
  }
}

function unsupported(kind: string, keys: readonly string[]): void {
  if (keys.length > 0) {
    throw new UnsupportedRuleError(`unsupported PGV rule validate.rules.${kind}.${keys.join(`, validate.rules.${kind}.`)}`);
  }
}

const RANGE_KEYS = ['const', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in'];

function rangeChecks<T extends number | bigint>(kind: string, rules: Record<string, unknown>, domain: Domain<T>): Check[] {
  const checks: Check[] = [];
  const bound = (key: string): T | undefined => (rules[key] === undefined ? undefined : domain.read(rules[key]));
  const constant = bound('const');
  if (constant !== undefined) {
    checks.push({
      rule: `${kind}.const`,
      test: (value) => (domain.read(value) === constant ? null : `must equal ${domain.format(constant)}`),
    });
  }
  for (const key of ['in', 'not_in'] as const) {
    const list = rules[key];
    if (list === undefined) {
      continue;
    }
    const members = (Array.isArray(list) ? list : [list]).map((item) => domain.read(item));
    const wanted = key === 'in';
    checks.push({
      rule: `${kind}.${key}`,
      test: (value) => {
        const read = domain.read(value);
        return members.some((member) => member === read) === wanted
          ? null
          : `must ${wanted ? '' : 'not '}be one of [${members.map(domain.format).join(', ')}]`;
      },
    });
  }
  const lowerKey = rules.gt !== undefined ? 'gt' : rules.gte !== undefined ? 'gte' : null;
  const upperKey = rules.lt !== undefined ? 'lt' : rules.lte !== undefined ? 'lte' : null;
  const lower = lowerKey === null ? undefined : bound(lowerKey)!;
  const upper = upperKey === null ? undefined : bound(upperKey)!;
  const aboveLower = (value: T) => (lowerKey === 'gt' ? value > lower! : value >= lower!);
  const belowUpper = (value: T) => (upperKey === 'lt' ? value < upper! : value <= upper!);
  const lowerText = () => `${lowerKey === 'gt' ? '>' : '>='} ${domain.format(lower!)}`;
  const upperText = () => `${upperKey === 'lt' ? '<' : '<='} ${domain.format(upper!)}`;
  if (lower !== undefined && upper !== undefined && lower > upper) {
    // PGV: an inverted pair asks for a value outside the range.
    checks.push({
      rule: `${kind}.${lowerKey}, validate.rules.${kind}.${upperKey}`,
      test: (value) => {
        const read = domain.read(value);
        return aboveLower(read) || belowUpper(read) ? null : `must be ${lowerText()} or ${upperText()}`;
      },
    });
    return checks;
  }
  if (lower !== undefined) {
    checks.push({ rule: `${kind}.${lowerKey}`, test: (value) => (aboveLower(domain.read(value)) ? null : `must be ${lowerText()}`) });
  }
  if (upper !== undefined) {
    checks.push({ rule: `${kind}.${upperKey}`, test: (value) => (belowUpper(domain.read(value)) ? null : `must be ${upperText()}`) });
  }
  return checks;
}

function otherKeys(rules: Record<string, unknown>, known: readonly string[]): string[] {
  return Object.keys(rules).filter((key) => !known.includes(key));
}

export function numericChecks(kind: string, rules: Record<string, unknown>): Check[] {
  unsupported(kind, otherKeys(rules, [...RANGE_KEYS, 'ignore_empty']));
  const isFloat = (FLOAT_KINDS as readonly string[]).includes(kind);
  return isFloat ? rangeChecks(kind, rules, floatDomain) : rangeChecks(kind, rules, integerDomain);
}

/** Rules on a Duration field; `required` is handled by the caller (it concerns absence). */
export function durationChecks(rules: Record<string, unknown>): Check[] {
  unsupported('duration', otherKeys(rules, [...RANGE_KEYS, 'required']));
  return rangeChecks('duration', rules, durationDomain);
}

export function stringChecks(rules: Record<string, unknown>): Check[] {
  const lengthRules: Record<string, [(value: string) => number, (length: number, limit: number) => boolean, string]> = {
    len: [(value) => [...value].length, (length, limit) => length === limit, 'length must be'],
    min_len: [(value) => [...value].length, (length, limit) => length >= limit, 'length must be >='],
    max_len: [(value) => [...value].length, (length, limit) => length <= limit, 'length must be <='],
    len_bytes: [(value) => Buffer.byteLength(value), (length, limit) => length === limit, 'length in bytes must be'],
    min_bytes: [(value) => Buffer.byteLength(value), (length, limit) => length >= limit, 'length in bytes must be >='],
    max_bytes: [(value) => Buffer.byteLength(value), (length, limit) => length <= limit, 'length in bytes must be <='],
  };
  const textRules: Record<string, [(value: string, operand: string) => boolean, string]> = {
    const: [(value, operand) => value === operand, 'must equal'],
    prefix: [(value, operand) => value.startsWith(operand), 'must start with'],
    suffix: [(value, operand) => value.endsWith(operand), 'must end with'],
    contains: [(value, operand) => value.includes(operand), 'must contain'],
    not_contains: [(value, operand) => !value.includes(operand), 'must not contain'],
  };
  unsupported('string', otherKeys(rules, [...Object.keys(lengthRules), ...Object.keys(textRules), 'in', 'not_in', 'ignore_empty']));
  const checks: Check[] = [];
  for (const [key, [measure, accept, text]] of Object.entries(lengthRules)) {
    if (rules[key] !== undefined) {
      const limit = Number(rules[key]);
      checks.push({ rule: `string.${key}`, test: (value) => (accept(measure(String(value)), limit) ? null : `${text} ${limit}`) });
    }
  }
  for (const [key, [accept, text]] of Object.entries(textRules)) {
    if (rules[key] !== undefined) {
      const operand = String(rules[key]);
      checks.push({
        rule: `string.${key}`,
        test: (value) => (accept(String(value), operand) ? null : `${text} ${JSON.stringify(operand)}`),
      });
    }
  }
  for (const key of ['in', 'not_in'] as const) {
    if (rules[key] !== undefined) {
      const members = ([] as unknown[]).concat(rules[key]).map(String);
      const wanted = key === 'in';
      checks.push({
        rule: `string.${key}`,
        test: (value) =>
          members.includes(String(value)) === wanted
            ? null
            : `must ${wanted ? '' : 'not '}be one of ${JSON.stringify(members)}`,
      });
    }
  }
  return checks;
}

export function boolChecks(rules: Record<string, unknown>): Check[] {
  unsupported('bool', otherKeys(rules, ['const']));
  if (rules.const === undefined) {
    return [];
  }
  const wanted = rules.const === true;
  return [{ rule: 'bool.const', test: (value) => (Boolean(value) === wanted ? null : `must be ${wanted}`) }];
}

/**
 * Enum values arrive as their names (protobufjs `enums: String`), or as a
 * number when the number has no name in the .proto.
 */
export function enumChecks(rules: Record<string, unknown>, valuesByName: Readonly<Record<string, number>>): Check[] {
  unsupported('enum', otherKeys(rules, ['defined_only', 'const', 'in', 'not_in']));
  const checks: Check[] = [];
  const numberOf = (value: unknown): number =>
    typeof value === 'string' && value in valuesByName ? valuesByName[value] : Number(value);
  if (rules.defined_only === true) {
    checks.push({
      rule: 'enum.defined_only',
      test: (value) =>
        Object.values(valuesByName).includes(numberOf(value))
          ? null
          : `must be one of the defined values [${Object.keys(valuesByName).join(', ')}]`,
    });
  }
  const { defined_only: _definedOnly, ...rangeRules } = rules;
  const numericRules = rangeChecks('enum', rangeRules, integerDomain);
  for (const check of numericRules) {
    checks.push({ rule: check.rule, test: (value) => check.test(numberOf(value)) });
  }
  return checks;
}

/** Rules on the items of a repeated field; per-item rules are compiled by the caller. */
export function repeatedChecks(rules: Record<string, unknown>): Check[] {
  unsupported('repeated', otherKeys(rules, ['min_items', 'max_items', 'items', 'ignore_empty']));
  const checks: Check[] = [];
  if (rules.min_items !== undefined) {
    const limit = Number(rules.min_items);
    checks.push({
      rule: 'repeated.min_items',
      test: (value) => ((value as unknown[]).length >= limit ? null : `must have at least ${limit} items`),
    });
  }
  if (rules.max_items !== undefined) {
    const limit = Number(rules.max_items);
    checks.push({
      rule: 'repeated.max_items',
      test: (value) => ((value as unknown[]).length <= limit ? null : `must have at most ${limit} items`),
    });
  }
  return checks;
}

/** Rules on a google.protobuf.Any's type_url; `required` handled by the caller. */
export function anyChecks(rules: Record<string, unknown>): Check[] {
  unsupported('any', otherKeys(rules, ['required', 'in', 'not_in']));
  const checks: Check[] = [];
  for (const key of ['in', 'not_in'] as const) {
    if (rules[key] !== undefined) {
      const members = ([] as unknown[]).concat(rules[key]).map(String);
      const wanted = key === 'in';
      checks.push({
        rule: `any.${key}`,
        test: (value) =>
          members.includes(String((value as { type_url?: string }).type_url ?? '')) === wanted
            ? null
            : `type_url must ${wanted ? '' : 'not '}be one of ${JSON.stringify(members)}`,
      });
    }
  }
  return checks;
}

/** A value as the error message shows it, by rule kind. */
export function formatValue(kind: string, value: unknown): string {
  switch (kind) {
    case 'duration':
      return nanosToJson(durationDomain.read(value));
    case 'string':
      return JSON.stringify(value);
    case 'repeated':
      return `${(value as unknown[]).length} items`;
    case 'any':
      return JSON.stringify((value as { type_url?: string }).type_url ?? '');
    default:
      return String(value);
  }
}
