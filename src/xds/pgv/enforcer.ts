/**
 * Enforces protoc-gen-validate annotations read from protobufjs descriptors,
 * on messages decoded by decodeMessage() (protobufjs `toObject` with
 * `longs: String, enums: String`, no defaults: absent fields are undefined).
 *
 * Compiling a message type compiles every message type reachable from it, so
 * an annotation this enforcer does not know fails at compile time (e.g. at
 * registerXds()), not when a control plane first sends it.
 *
 * PGV semantics kept here: rules on a scalar apply to its zero value when it
 * is unset; rules on a wrapper (UInt32Value, …) or Duration apply only when it
 * is set (`required` asks for presence); set sub-messages are validated
 * recursively unless `message.skip`; an unset oneof member is not checked.
 */
import * as protobuf from 'protobufjs';
import {
  anyChecks,
  boolChecks,
  Check,
  durationChecks,
  enumChecks,
  FLOAT_KINDS,
  formatValue,
  INTEGER_KINDS,
  numericChecks,
  repeatedChecks,
  stringChecks,
  UnsupportedRuleError,
} from './checks';
import { FieldRules, fieldRules, isMessageExempt, isOneofRequired } from './rules';
import { WRAPPER_SCALAR_KINDS } from '../well-known';
import { durationProblem, DurationObject } from '../duration';

type Decoded = Record<string, unknown>;

/** Wrapper message → the scalar kind whose rules it takes. */
const WRAPPER_KINDS = WRAPPER_SCALAR_KINDS;
const DURATION = '.google.protobuf.Duration';
const ANY = '.google.protobuf.Any';

/** Validates one value (present or zero) of a field and reports violations under `path`. */
type ValueValidator = (value: unknown, path: string, violations: string[]) => void;

interface CompiledField {
  readonly name: string;
  readonly inOneof: boolean;
  readonly validate: ValueValidator;
}

interface CompiledMessage {
  readonly fields: CompiledField[];
  readonly requiredOneofs: { name: string; members: string[] }[];
}

export class PgvViolation extends Error {
  constructor(readonly violations: readonly string[]) {
    super(violations.join('; '));
    this.name = 'PgvViolation';
  }
}

const compiled = new WeakMap<protobuf.Type, CompiledMessage>();

/** Compiles `type` and all it reaches; throws on an annotation it can't enforce. */
export function compileValidator(type: protobuf.Type): void {
  compileMessage(type);
}

/** All violations of `message` (of `type`), each "Type.field: must … (validate.rules.kind.rule), got …". */
export function findViolations(type: protobuf.Type, message: Decoded): string[] {
  const violations: string[] = [];
  validateMessage(compileMessage(type), message, type.name, violations);
  return violations;
}

/** Throws a PgvViolation listing every broken rule. */
export function assertValid(type: protobuf.Type, message: Decoded): void {
  const violations = findViolations(type, message);
  if (violations.length > 0) {
    throw new PgvViolation(violations);
  }
}

function validateMessage(compiledMessage: CompiledMessage, message: Decoded, path: string, violations: string[]): void {
  for (const field of compiledMessage.fields) {
    const value = message[field.name];
    if (field.inOneof && (value === undefined || value === null)) {
      continue;
    }
    field.validate(value, `${path}.${field.name}`, violations);
  }
  for (const oneof of compiledMessage.requiredOneofs) {
    if (!oneof.members.some((member) => message[member] !== undefined && message[member] !== null)) {
      violations.push(`${path}.${oneof.name}: one of [${oneof.members.join(', ')}] must be set (validate.required)`);
    }
  }
}

function compileMessage(type: protobuf.Type): CompiledMessage {
  const existing = compiled.get(type);
  if (existing) {
    return existing;
  }
  const result: CompiledMessage = { fields: [], requiredOneofs: [] };
  // Registered before its fields are compiled, so recursive types terminate.
  compiled.set(type, result);
  if (isMessageExempt(type)) {
    return result;
  }
  type.resolveAll();
  for (const field of type.fieldsArray) {
    try {
      result.fields.push({
        name: field.name,
        inOneof: field.partOf !== null,
        validate: compileField(field, fieldRules(field) ?? {}),
      });
    } catch (error) {
      compiled.delete(type);
      if (error instanceof UnsupportedRuleError && error.fieldName === undefined) {
        throw error.at(field.fullName.replace(/^\./, ''));
      }
      throw error;
    }
  }
  for (const oneof of type.oneofsArray) {
    if (isOneofRequired(oneof)) {
      result.requiredOneofs.push({ name: oneof.name, members: oneof.fieldsArray.map((member) => member.name) });
    }
  }
  return result;
}

function compileField(field: protobuf.Field, rules: FieldRules): ValueValidator {
  if (field.map) {
    return compileMap(field, rules);
  }
  if (field.repeated) {
    const { repeated, ...others } = rules;
    rejectKinds(others, []);
    const listChecks = repeated ? repeatedChecks(repeated) : [];
    const itemRules = (repeated?.items ?? {}) as FieldRules;
    const item = compileSingular(field, itemRules);
    const ignoreEmpty = repeated?.ignore_empty === true;
    return (value, path, violations) => {
      const list = (value ?? []) as unknown[];
      if (ignoreEmpty && list.length === 0) {
        return;
      }
      runChecks(listChecks, 'repeated', list, path, violations);
      list.forEach((element, index) => item(element, `${path}[${index}]`, violations));
    };
  }
  return compileSingular(field, rules);
}

/** Map values (a map field's resolvedType is its value type). */
function compileMap(field: protobuf.Field, rules: FieldRules): ValueValidator {
  rejectKinds(rules, []);
  const valueValidator = compileSingular(field, {});
  return (value, path, violations) => {
    for (const [key, element] of Object.entries((value ?? {}) as Decoded)) {
      valueValidator(element, `${path}[${JSON.stringify(key)}]`, violations);
    }
  };
}

/** One value of the field's type (the field itself, or one item of a repeated field). */
function compileSingular(field: protobuf.Field, rules: FieldRules): ValueValidator {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    rejectKinds(rules, ['enum']);
    const checks = rules.enum ? enumChecks(rules.enum, resolved.values) : [];
    const zero = resolved.valuesById[0] ?? 0;
    return (value, path, violations) => runChecks(checks, 'enum', value ?? zero, path, violations);
  }
  if (resolved instanceof protobuf.Type) {
    return compileMessageField(resolved, rules);
  }
  return compileScalar(field.type, rules);
}

function compileScalar(kind: string, rules: FieldRules): ValueValidator {
  rejectKinds(rules, [kind]);
  const kindRules = rules[kind];
  if (!kindRules) {
    return () => undefined;
  }
  const checks = scalarChecks(kind, kindRules);
  const zero = kind === 'string' ? '' : kind === 'bool' ? false : 0;
  const ignoreEmpty = kindRules.ignore_empty === true;
  return (value, path, violations) => {
    const actual = value ?? zero;
    if (ignoreEmpty && isZero(actual)) {
      return;
    }
    runChecks(checks, kind, actual, path, violations);
  };
}

function scalarChecks(kind: string, kindRules: Record<string, unknown>): Check[] {
  if ((INTEGER_KINDS as readonly string[]).includes(kind) || (FLOAT_KINDS as readonly string[]).includes(kind)) {
    return numericChecks(kind, kindRules);
  }
  switch (kind) {
    case 'string':
      return stringChecks(kindRules);
    case 'bool':
      return boolChecks(kindRules);
    default:
      throw new UnsupportedRuleError(`unsupported PGV rule kind validate.rules.${kind}`);
  }
}

function compileMessageField(type: protobuf.Type, rules: FieldRules): ValueValidator {
  const wrapped = WRAPPER_KINDS[type.fullName];
  const messageRules = rules.message ?? {};
  const unknownMessageRules = Object.keys(messageRules).filter((key) => key !== 'required' && key !== 'skip');
  if (unknownMessageRules.length > 0) {
    throw new UnsupportedRuleError(`unsupported PGV rule validate.rules.message.${unknownMessageRules.join(', ')}`);
  }
  let required = messageRules.required === true;
  let checkPresent: ValueValidator;
  if (wrapped !== undefined) {
    const scalar = compileScalar(wrapped, (({ message: _message, ...others }) => others)(rules));
    checkPresent = (value, path, violations) => scalar((value as Decoded).value, path, violations);
  } else if (type.fullName === DURATION || type.fullName === ANY) {
    const kind = type.fullName === DURATION ? 'duration' : 'any';
    rejectKinds(rules, [kind, 'message']);
    const kindRules = rules[kind] ?? {};
    required ||= kindRules.required === true;
    const checks = kind === 'duration' ? durationChecks(kindRules) : anyChecks(kindRules);
    checkPresent = (value, path, violations) => {
      // A Duration must be one before any rule compares it (duration.ts), with or without rules.
      const problem = kind === 'duration' ? durationProblem(value as DurationObject) : null;
      if (problem !== null) {
        const { seconds, nanos } = value as DurationObject;
        violations.push(`${path}: is not a valid google.protobuf.Duration: ${problem}, got {seconds: ${seconds ?? 0}, nanos: ${nanos ?? 0}}`);
        return;
      }
      runChecks(checks, kind, value, path, violations);
    };
  } else {
    rejectKinds(rules, ['message']);
    if (messageRules.skip === true) {
      checkPresent = () => undefined;
    } else {
      const nested = compileMessage(type);
      checkPresent = (value, path, violations) => validateMessage(nested, value as Decoded, path, violations);
    }
  }
  return (value, path, violations) => {
    if (value === undefined || value === null) {
      if (required) {
        violations.push(`${path}: is required (validate.rules.message.required)`);
      }
      return;
    }
    checkPresent(value, path, violations);
  };
}

/** Every rule kind on a field must be one of `allowed`, else the annotation doesn't fit the field. */
function rejectKinds(rules: FieldRules, allowed: readonly string[]): void {
  const others = Object.keys(rules).filter((kind) => !allowed.includes(kind));
  if (others.length > 0) {
    throw new UnsupportedRuleError(
      `unsupported PGV rule kind validate.rules.${others.join(', validate.rules.')} for this field type` +
        (allowed.length > 0 ? ` (expected ${allowed.join(' or ')})` : ''),
    );
  }
}

function runChecks(checks: readonly Check[], kind: string, value: unknown, path: string, violations: string[]): void {
  for (const check of checks) {
    const problem = check.test(value);
    if (problem !== null) {
      violations.push(`${path}: ${problem} (validate.rules.${check.rule}), got ${formatValue(kind, value)}`);
    }
  }
}

function isZero(value: unknown): boolean {
  return value === 0 || value === '0' || value === '' || value === false;
}
