/**
 * protoc-gen-validate annotations as protobufjs exposes them. protobufjs keeps
 * custom options in `parsedOptions`, one entry per option statement, e.g.
 * `[(validate.rules).duration = {gt {}}]` on a field becomes
 * `[{"(validate.rules)": {"duration": {"gt": {}}}}]`, and
 * `option (validate.required) = true;` in a oneof becomes
 * `[{"(validate.required)": true}]`.
 */
import * as protobuf from 'protobufjs';

/** `(validate.rules)` of one field: rule kind ("duration", "uint32", "message", …) → its rules. */
export type FieldRules = Record<string, Record<string, unknown>>;

function optionValues(parsedOptions: unknown, optionName: string): unknown[] {
  if (!Array.isArray(parsedOptions)) {
    return [];
  }
  return parsedOptions
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && optionName in entry)
    .map((entry) => entry[optionName]);
}

/** Several statements may set parts of the same rules (`.uint32.gte = 1`, `.uint32.lte = 9`): merge them. */
function mergeDeep(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isPlainObject(existing) && isPlainObject(value)) {
      mergeDeep(existing, value);
    } else {
      target[key] = isPlainObject(value) ? mergeDeep({}, value) : value;
    }
  }
  return target;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fieldRules(field: protobuf.Field): FieldRules | null {
  const values = optionValues(field.parsedOptions, '(validate.rules)');
  if (values.length === 0) {
    return null;
  }
  const merged: Record<string, unknown> = {};
  for (const value of values) {
    if (!isPlainObject(value)) {
      throw new Error(`${field.fullName}: unreadable (validate.rules) option ${JSON.stringify(value)}`);
    }
    mergeDeep(merged, value);
  }
  for (const [kind, rules] of Object.entries(merged)) {
    if (!isPlainObject(rules)) {
      throw new Error(`${field.fullName}: (validate.rules).${kind} is not a message: ${JSON.stringify(rules)}`);
    }
  }
  return merged as FieldRules;
}

/** `option (validate.required) = true;` inside a oneof: exactly one member must be set. */
export function isOneofRequired(oneof: protobuf.OneOf): boolean {
  return optionValues(oneof.parsedOptions, '(validate.required)').some((value) => value === true);
}

/** `option (validate.disabled)` / `(validate.ignored)` on a message: no rules apply to it. */
export function isMessageExempt(type: protobuf.Type): boolean {
  return ['(validate.disabled)', '(validate.ignored)'].some((name) =>
    optionValues(type.parsedOptions, name).some((value) => value === true),
  );
}
