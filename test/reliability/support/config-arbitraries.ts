/**
 * fast-check generators for hostile service-config JSON: right and wrong
 * types, boundary and overflowing numbers, malformed proto3 durations, both
 * casings of a field at once, unknown keys, and keys that collide with
 * Object.prototype.
 */
import fc from 'fast-check';

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

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => '_' + letter.toLowerCase());
}

/**
 * A config object for a policy with these fields: each field absent, under
 * one casing, or under both; plus unknown keys.
 */
export function configObject(fields: readonly FieldSpec[]): fc.Arbitrary<Record<string, unknown>> {
  const perField = fields.map((field) =>
    fc
      .record(
        { camel: field.values, snake: field.values, casing: fc.constantFrom('camel', 'snake', 'both', 'none') },
      )
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
export function configInput(fields: readonly FieldSpec[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: configObject(fields) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, [], 'peak', 0, true, [{}]) },
  );
}

export const PEAK_EWMA_FIELDS: readonly FieldSpec[] = [
  { name: 'choiceCount', values: numberish },
  { name: 'decayTime', values: durationish },
  { name: 'defaultRtt', values: durationish },
  { name: 'penaltyValue', values: numberish },
  { name: 'errorPenaltyFactor', values: numberish },
];

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
