/**
 * fast-check generators for hostile service-config JSON: right and wrong
 * types, boundary and overflowing numbers, malformed proto3 durations, both
 * casings of a field at once, unknown keys, and keys that collide with
 * Object.prototype.
 */
import fc from 'fast-check';
import { PEAK_EWMA_LIMITS as L } from '../../../src/policy/peak-ewma-config';

/** Keys that trip code indexing a plain object by an untrusted name. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

/** Numbers at and beyond every bound the parsers document, plus the IEEE oddities. */
const edgeNumber = fc.constantFrom(
  0, -0, 1, -1, 1.5, 2, 3, 9, 10, 11, 1e6, 1e12, 1e12 + 1, 1000, 1000.0001, 0.9999999,
  Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE,
  NaN, Infinity, -Infinity, 2 ** 31, 2 ** 53, 1e308, 1e-308,
);

/** Anything a JSON number field might be given instead of a number. */
export const numberish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: edgeNumber },
  { weight: 2, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.integer({ min: -20, max: 2000 }) },
  { weight: 1, arbitrary: fc.constantFrom('2', '1e6', 'NaN', 'Infinity', '', '0x10', true, false, null, [], {}, [2]) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9'), minLength: min, maxLength: max });

/** proto3 JSON duration strings, valid and broken. */
const durationString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(digits(1, 22), fc.option(digits(0, 12), { nil: undefined })).map(
    ([whole, fraction]) => (fraction === undefined ? `${whole}s` : `${whole}.${fraction}s`),
  ) },
  { weight: 2, arbitrary: fc.constantFrom(
    '1e400s', '-1s', '0.0000000001s', '0.000000001s', '0s', '0.0s', '3600s', '3600.000000001s', '60s', '60.000000001s',
    '10', '10ms', ' 10s', '10s ', '+1s', '.5s', '5.s', 'Infinitys', 'NaNs', '1e3s', '0x10s', '１s', '', 's', '99999999999999999999999s',
  ) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const secondsValue = fc.oneof(
  fc.constantFrom('9999999999999999999', '-1', '0', '1', '10', '3600', '3601', '-0', '1e3', '01', ' 1', 'abc', ''),
  numberish,
);
const nanosValue = fc.oneof(
  fc.constantFrom(-1, 0, 1, 999_999_999, 1_000_000_000, 1.5, '5', 500_000_000, NaN, Infinity),
  numberish,
);

/** `{seconds, nanos}` durations, each part optional, plus stray keys. */
const durationObject: fc.Arbitrary<Record<string, unknown>> = fc.record(
  { seconds: secondsValue, nanos: nanosValue, extra: fc.jsonValue({ maxDepth: 1 }) },
  { requiredKeys: [] },
);

export const durationish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: durationString },
  { weight: 3, arbitrary: durationObject },
  { weight: 1, arbitrary: numberish },
);

export interface FieldSpec {
  /** camelCase name; the snake_case twin is derived. */
  readonly name: string;
  readonly values: fc.Arbitrary<unknown>;
}

/** How often a field is left out, given under one casing or under both (always a rejection unless one is null). */
export interface CasingWeights {
  readonly none: number;
  readonly camel: number;
  readonly snake: number;
  readonly both: number;
}

/** Each casing as likely as leaving the field out: for policies with a couple of fields. */
export const EVEN_CASINGS: CasingWeights = { none: 1, camel: 1, snake: 1, both: 1 };

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => '_' + letter.toLowerCase());
}

/**
 * A config object for a policy with these fields: each field absent, under
 * one casing, or under both; plus unknown keys.
 */
export function configObject(fields: readonly FieldSpec[], casings: CasingWeights = EVEN_CASINGS): fc.Arbitrary<Record<string, unknown>> {
  const casing = fc.oneof(
    ...(['none', 'camel', 'snake', 'both'] as const).map((name) => ({ weight: casings[name], arbitrary: fc.constant(name) })),
  );
  const perField = fields.map((field) =>
    fc
      .record({ camel: field.values, snake: field.values, casing })
      .map(({ camel, snake, casing }) => {
        const out: Record<string, unknown> = {};
        if (casing === 'camel' || casing === 'both') out[field.name] = camel;
        if (casing === 'snake' || casing === 'both') out[snakeCase(field.name)] = snake;
        return out;
      }),
  );
  const unknownKeys = fc.dictionary(
    fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTOTYPE_KEYS, 'choicecount', 'ChoiceCount', 'decay_Time')),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 3 },
  );
  return fc.tuple(fc.tuple(...perField), unknownKeys).map(([parts, unknown]) => {
    // Unknown keys first, so a known field set above wins over a colliding unknown one.
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(unknown)) {
      defineOwn(out, key, value);
    }
    for (const part of parts) {
      for (const [key, value] of Object.entries(part)) {
        defineOwn(out, key, value);
      }
    }
    return out;
  });
}

/** Sets an own property even for "__proto__", as JSON.parse does. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A config object, or something that is not an object at all. */
export function configInput(fields: readonly FieldSpec[], casings: CasingWeights = EVEN_CASINGS): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: configObject(fields, casings) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, [], 'peak', 0, true, [{}]) },
  );
}

/**
 * A field's values: mostly valid ones (the range's ends included), the rest
 * just past an end, of the wrong kind, or anything at all. Valid about 60 %
 * of the time, so that with most fields left out (PEAK_EWMA_CASINGS) a few
 * per cent of whole configs are accepted.
 */
function fieldValues(valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>, anything: fc.Arbitrary<unknown> = numberish) {
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 2, arbitrary: invalid }, { weight: 2, arbitrary: anything });
}

/** A finite number in [min, max], its ends more often than chance would give them. */
function numberIn(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    { weight: 3, arbitrary: fc.double({ min, max, noNaN: true }) },
    { weight: 1, arbitrary: fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31 - 1)) }) },
  );
}

/** A number field in [min, max] (`minExclusive`: (min, max]), and just past either end. */
function numberField(min: number, max: number, minExclusive = false): fc.Arbitrary<unknown> {
  const valid = minExclusive ? numberIn(min, max).filter((value) => value > min) : numberIn(min, max);
  const below = minExclusive ? [min] : [min - 1, min - 1e-9];
  return fieldValues(valid, fc.constantFrom(...below, max + 1, max * (1 + 1e-9), -Infinity, Infinity, NaN, String(min), null));
}

/** choiceCount's rule: an integer ≥ 2 (above 10 clamped). */
const countField = fieldValues(
  fc.integer({ min: 2, max: 12 }),
  fc.constantFrom(1, 0, -2, 2.5, 9.999, '3', Infinity, NaN, true),
);

/** A proto3 JSON duration in (0, maxSeconds] (or [0, …] with zero allowed), and malformed or out-of-range ones. */
function durationField(maxSeconds: number, zeroAllowed = false): fc.Arbitrary<unknown> {
  const whole = fc.integer({ min: 0, max: maxSeconds - 1 });
  const nanos = fc.integer({ min: zeroAllowed ? 0 : 1, max: 999_999_999 });
  const valid = fc.oneof(
    fc.tuple(whole, nanos).map(([seconds, fraction]) => `${seconds}.${String(fraction).padStart(9, '0')}s`),
    fc.integer({ min: 1, max: maxSeconds }).map((seconds) => `${seconds}s`),
    fc.tuple(whole, nanos).map(([seconds, fraction]) => ({ seconds, nanos: fraction })),
    fc.integer({ min: 1, max: maxSeconds }).map((seconds) => ({ seconds: String(seconds) })),
    fc.constantFrom(`${maxSeconds}s`, '0.000000001s', ...(zeroAllowed ? ['0s', {}, { seconds: 0 }] : [])),
  );
  const invalid = fc.constantFrom(
    ...(zeroAllowed ? [] : ['0s', {}, { seconds: 0, nanos: 0 }]),
    `${maxSeconds}.000000001s`,
    { seconds: maxSeconds, nanos: 1 },
    '-1s',
    '1.5',
    '10ms',
    { seconds: -1 },
    { nanos: 1_000_000_000 },
  );
  return fieldValues(valid, invalid, durationish);
}

/** One of `allowed`, and near misses. */
function enumField(allowed: readonly string[]): fc.Arbitrary<unknown> {
  const nearMisses = allowed.flatMap((value) => [value.toUpperCase(), ` ${value}`, value.slice(0, -1)]);
  return fieldValues(fc.constantFrom(...allowed), fc.constantFrom(...nearMisses, '', 'none', 'default'), fc.oneof(numberish, fc.string({ maxLength: 8 })));
}

const booleanField = fieldValues(fc.boolean(), fc.constantFrom('true', 'false', 0, 1, [], {}), numberish);

/**
 * Every field peak_ewma_experimental reads (the fuzz checks the parser reads
 * exactly these), with valid, boundary and invalid values of its kind, at
 * the limits of PEAK_EWMA_LIMITS (src/policy/peak-ewma-config.ts). The
 * enums' values are written out: a value the parser stopped accepting must
 * show as a rejection.
 */
export const PEAK_EWMA_FIELDS: readonly FieldSpec[] = [
  { name: 'choiceCount', values: countField },
  { name: 'decayTime', values: durationField(L.maxDecayMs / 1000) },
  { name: 'defaultRtt', values: durationField(L.maxDefaultRttMs / 1000) },
  { name: 'penaltyValue', values: numberField(0, L.maxPenaltyValue, true) },
  { name: 'errorPenaltyFactor', values: numberField(1, L.maxErrorPenaltyFactor) },
  { name: 'fleetPenaltyExponent', values: numberField(0, L.maxFleetPenaltyExponent) },
  {
    name: 'ejectionRatio',
    // 0 (off) or a ratio of at least 1: (0, 1) is refused.
    values: fieldValues(
      fc.oneof(fc.constant(0), numberIn(1, L.maxEjectionRatio)),
      fc.constantFrom(0.5, 0.9999999, 1e-9, -1, L.maxEjectionRatio * (1 + 1e-9), NaN, '1.5'),
    ),
  },
  { name: 'maxEjectionPercent', values: numberField(0, L.maxEjectionPercent) },
  { name: 'maxEjectionTime', values: durationField(L.maxEjectionMs / 1000, true) },
  { name: 'pendingAware', values: booleanField },
  { name: 'rotationMargin', values: numberField(0, L.maxRotationMargin) },
  { name: 'rotationGate', values: numberField(0, L.maxRotationGate) },
  { name: 'decayToward', values: enumField(['zero', 'fleet']) },
  { name: 'maxProbeBackoff', values: numberField(0, L.maxProbeBackoff) },
  { name: 'decayFairShares', values: numberField(0, L.maxDecayFairShares) },
  { name: 'methodScoring', values: enumField(['off', 'latency', 'work']) },
  { name: 'mixedChoiceCount', values: countField },
  { name: 'ejectionSignal', values: enumField(['peak', 'mean']) },
  { name: 'slowStartWindow', values: durationField(L.maxSlowStartMs / 1000, true) },
];

/**
 * For PEAK_EWMA_FIELDS: most fields left out, so that 19 of them still give
 * accepted configs a few per cent of the time (each field given ~1 in 4
 * inputs, both casings at once ~1 in 19).
 */
export const PEAK_EWMA_CASINGS: CasingWeights = { none: 14, camel: 2, snake: 2, both: 1 };

export const LEAST_REQUEST_FIELDS: readonly FieldSpec[] = [
  { name: 'choiceCount', values: numberish },
  {
    name: 'selectionMethod',
    values: fc.oneof(
      fc.constantFrom('N_CHOICES', 'FULL_SCAN', 'n_choices', 'RANDOM', '', 'FULL_SCAN '),
      numberish,
    ),
  },
];
