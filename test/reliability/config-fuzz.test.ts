/**
 * Fuzzing the JSON config parsers with fast-check.
 *
 * Property: every input either yields a config whose toJsonObject() survives
 * JSON text and re-parses to an equal config, every number finite and within
 * the documented bounds, or is rejected with an Error whose message names the
 * policy and the field. Nothing else is thrown (no TypeError, RangeError, ...):
 * grpc-js turns a throwing createFromJson into a silent fallback, but a
 * TypeError from a validator an application calls up front is a crash.
 *
 * Runs per property: FUZZ_RUNS (default 5 000, four properties); the seed is printed by
 * fast-check on failure (rerun with FUZZ_SEED=<seed>).
 */
import fc from 'fast-check';
import { experimental, logVerbosity, setLogger, setLogVerbosity } from '@grpc/grpc-js';
import {
  ConfigError,
  LEAST_REQUEST_POLICY_NAME,
  LeastRequestLoadBalancingConfig,
  PEAK_EWMA_LIMITS,
  PEAK_EWMA_POLICY_NAME,
  PeakEwmaLoadBalancingConfig,
  register,
  validateServiceConfig,
} from '../../src';
import { DECAY_TARGETS, EJECTION_SIGNALS, METHOD_SCORINGS, PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import {
  configInput,
  defineOwn,
  LEAST_REQUEST_FIELDS,
  PEAK_EWMA_CASINGS,
  PEAK_EWMA_FIELDS,
  PROTOTYPE_KEYS,
  snakeCase,
} from './support/config-arbitraries';

const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: RUNS, seed: SEED };

const PEAK_FIELD_NAMES = PEAK_EWMA_FIELDS.map((field) => field.name);
const peakInput = configInput(PEAK_EWMA_FIELDS, PEAK_EWMA_CASINGS);
const LEAST_FIELD_NAMES = ['choiceCount', 'selectionMethod'];

/** A plain assertion: jest's expect() costs more than the parser under test in a loop of thousands. */
function check(condition: boolean, what: string): void {
  if (!condition) {
    throw new Error(`property violated: ${what}`);
  }
}

function fieldPattern(policy: string, fieldNames: readonly string[]): RegExp {
  return new RegExp(`^${policy}: (field "(${fieldNames.join('|')})(\\.seconds|\\.nanos)?" |config must be a JSON object)`);
}
const PATTERNS = new Map<string, RegExp>();

/** A rejection is an Error (or our ConfigError) naming the policy and, for a field, the field. */
function expectCleanRejection(error: unknown, policy: string, fieldNames: readonly string[]): void {
  check(error instanceof Error, `threw a non-Error: ${String(error)}`);
  const { constructor: ctor, message } = error as Error;
  check(ctor === Error || ctor === ConfigError, `threw ${ctor.name}: ${message}`);
  let pattern = PATTERNS.get(policy);
  if (!pattern) {
    pattern = fieldPattern(policy, fieldNames);
    PATTERNS.set(policy, pattern);
  }
  check(pattern.test(message), `message does not name the policy and field: ${message}`);
}

function tryParse<T>(parse: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The config's content, as text for equality: every setting, including ones added later. */
function peakContent(config: PeakEwmaLoadBalancingConfig): string {
  return JSON.stringify({ choiceCount: config.choiceCount, ...config.settings });
}

/** Every setting the parsed config carries; one more (a new field) must be added to PEAK_EWMA_FIELDS and checked below. */
const PEAK_SETTINGS = [
  'decayMs', 'defaultRttMs', 'penaltyValue', 'errorPenaltyFactor', 'fleetPenaltyExponent', 'ejectionRatio', 'maxEjectionPercent',
  'maxEjectionMs', 'pendingAware', 'probeFairShares', 'maxProbeBackoff', 'rotationMargin', 'rotationGate', 'decayToward',
  'decayFairShares', 'methodScoring', 'mixedChoiceCount', 'ejectionSignal', 'slowStartMs',
].sort().join();

function expectPeakInBounds(config: PeakEwmaLoadBalancingConfig): void {
  const settings = config.settings;
  const L = PEAK_EWMA_LIMITS;
  check(Object.keys(settings).sort().join() === PEAK_SETTINGS, `settings are exactly ${PEAK_SETTINGS}: ${Object.keys(settings)}`);
  for (const [name, value] of Object.entries(settings)) {
    check(typeof value !== 'number' || Number.isFinite(value), `${name} finite: ${value}`);
  }
  const within = (name: string, value: number | undefined, min: number, max: number, minExclusive = false) =>
    check(
      typeof value === 'number' && (minExclusive ? value > min : value >= min) && value <= max,
      `${name} in ${minExclusive ? '(' : '['}${min}, ${max}]: ${value}`,
    );
  const count = (name: string, value: number | undefined) =>
    check(Number.isInteger(value) && value! >= 2 && value! <= 10, `${name} an integer in [2, 10]: ${value}`);
  const oneOf = (name: string, value: unknown, allowed: readonly unknown[]) => check(allowed.includes(value), `${name} one of ${allowed}: ${value}`);
  count('choiceCount', config.choiceCount);
  within('decayMs', settings.decayMs, 0, L.maxDecayMs, true);
  within('defaultRttMs', settings.defaultRttMs, 0, L.maxDefaultRttMs, true);
  within('penaltyValue', settings.penaltyValue, 0, L.maxPenaltyValue, true);
  within('errorPenaltyFactor', settings.errorPenaltyFactor, 1, L.maxErrorPenaltyFactor);
  within('fleetPenaltyExponent', settings.fleetPenaltyExponent, 0, L.maxFleetPenaltyExponent);
  const ratio = settings.ejectionRatio;
  check(ratio === 0 || (ratio !== undefined && ratio >= 1 && ratio <= L.maxEjectionRatio), `ejectionRatio 0 or in [1, ${L.maxEjectionRatio}]: ${ratio}`);
  within('maxEjectionPercent', settings.maxEjectionPercent, 0, L.maxEjectionPercent);
  within('maxEjectionMs', settings.maxEjectionMs, 0, L.maxEjectionMs);
  within('slowStartMs', settings.slowStartMs, 0, L.maxSlowStartMs);
  oneOf('pendingAware', settings.pendingAware, [true, false]);
  check(settings.probeFairShares === PEAK_EWMA_DEFAULTS.probeFairShares, `probeFairShares (not a field) at its default: ${settings.probeFairShares}`);
  within('maxProbeBackoff', settings.maxProbeBackoff, 0, L.maxProbeBackoff);
  within('rotationMargin', settings.rotationMargin, 0, L.maxRotationMargin);
  within('rotationGate', settings.rotationGate, 0, L.maxRotationGate);
  oneOf('decayToward', settings.decayToward, DECAY_TARGETS);
  within('decayFairShares', settings.decayFairShares, 0, L.maxDecayFairShares);
  oneOf('methodScoring', settings.methodScoring, METHOD_SCORINGS);
  count('mixedChoiceCount', settings.mixedChoiceCount);
  oneOf('ejectionSignal', settings.ejectionSignal, EJECTION_SIGNALS);
}

/** The fields `input` gives a value (not null) under either casing. */
function givenFields(input: unknown, fieldNames: readonly string[]): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const record = input as Record<string, unknown>;
  const given = (key: string) => Object.prototype.hasOwnProperty.call(record, key) && record[key] !== null && record[key] !== undefined;
  return fieldNames.filter((name) => given(name) || given(snakeCase(name)));
}

/** toJsonObject() is `{name: {...}}`, survives JSON text, and re-parses to the same config. */
function reparse<T>(config: { toJsonObject(): object }, name: string, parse: (obj: unknown) => T): T {
  const json = JSON.parse(JSON.stringify(config.toJsonObject())) as Record<string, unknown>;
  const keys = Object.keys(json);
  check(keys.length === 1 && keys[0] === name, `toJsonObject() is {${name}: ...}, got keys ${keys}`);
  return parse(json[name]);
}

// Rejections are logged at ERROR by createFromJson; collect instead of print.
const logged: string[] = [];
beforeAll(() => {
  setLogger({ error: (...args: unknown[]) => logged.push(args.join(' ')) });
  setLogVerbosity(logVerbosity.ERROR);
  register();
});

describe('peak_ewma_experimental JSON config', () => {
  it(`reads exactly the fields the fuzz generates`, () => {
    // The parser's reads through a proxy: a field added to the parser and not to PEAK_EWMA_FIELDS fails here.
    const read = new Set<string>();
    const spy = new Proxy({}, { get: (_target, key) => (typeof key === 'string' && read.add(key), undefined) });
    PeakEwmaLoadBalancingConfig.parse(spy);
    const expected = PEAK_FIELD_NAMES.flatMap((name) => (snakeCase(name) === name ? [name] : [name, snakeCase(name)]));
    expect([...read].sort()).toEqual(expected.sort());
  });

  it(`accepts into bounds and round-trips, or rejects naming the field (${RUNS} inputs)`, () => {
    let accepted = 0;
    let rejected = 0;
    // Per field: accepted inputs that gave it a value, and rejections that named it.
    const acceptedWith = new Map<string, number>(PEAK_FIELD_NAMES.map((name) => [name, 0]));
    const rejectedFor = new Map<string, number>(PEAK_FIELD_NAMES.map((name) => [name, 0]));
    fc.assert(
      fc.property(peakInput, (input) => {
        const result = tryParse(() => PeakEwmaLoadBalancingConfig.parse(input));
        if (!result.ok) {
          rejected++;
          expectCleanRejection(result.error, PEAK_EWMA_POLICY_NAME, PEAK_FIELD_NAMES);
          if (result.error instanceof ConfigError) {
            const field = result.error.field.replace(/\.(seconds|nanos)$/, '');
            rejectedFor.set(field, rejectedFor.get(field)! + 1);
          }
          return;
        }
        accepted++;
        for (const name of givenFields(input, PEAK_FIELD_NAMES)) acceptedWith.set(name, acceptedWith.get(name)! + 1);
        expectPeakInBounds(result.value);
        const again = reparse(result.value, PEAK_EWMA_POLICY_NAME, (obj) => PeakEwmaLoadBalancingConfig.parse(obj));
        check(peakContent(again) === peakContent(result.value), `round trip ${peakContent(result.value)} -> ${peakContent(again)}`);
      }),
      params,
    );
    // The generator must reach both outcomes, or the property proves little...
    expect(accepted).toBeGreaterThan(RUNS / 50);
    expect(rejected).toBeGreaterThan(RUNS / 50);
    // ...for every field: each accepted with a value of its own and rejected for one (at 5 000 runs each
    // has dozens of both; too few runs to expect that are not checked).
    if (RUNS >= 2_000) {
      expect([...acceptedWith].filter(([, n]) => n === 0).map(([name]) => name)).toEqual([]);
      expect([...rejectedFor].filter(([, n]) => n === 0).map(([name]) => name)).toEqual([]);
    }
  });

  it(`behaves the same through grpc-js parseLoadBalancingConfig (createFromJson), logging rejections (${RUNS} inputs)`, () => {
    fc.assert(
      fc.property(peakInput, (input) => {
        const direct = tryParse(() => PeakEwmaLoadBalancingConfig.parse(input));
        logged.length = 0;
        const viaGrpc = tryParse(() => experimental.parseLoadBalancingConfig({ [PEAK_EWMA_POLICY_NAME]: input as object }));
        if (direct.ok) {
          check(viaGrpc.ok, 'grpc-js accepts what parse() accepts');
          const config = (viaGrpc as { value: unknown }).value;
          check(config instanceof PeakEwmaLoadBalancingConfig, 'grpc-js returns our config class');
          check(peakContent(config as PeakEwmaLoadBalancingConfig) === peakContent(direct.value), 'same content');
          // Only a field the parser does not know, once per field per process (src/policy/unknown-fields.ts).
          const keys = typeof input === 'object' && input !== null ? Object.keys(input).map((key) => JSON.stringify(key)) : [];
          // A top-level key, or a key inside one of them (a stray key in a {seconds, nanos} duration).
          const unknownFieldLine = (line: string) =>
            line.startsWith(`grpc-js-peak-ewma: ${PEAK_EWMA_POLICY_NAME}: field `) &&
            ((line.includes(' is not a field of this policy') && keys.some((key) => line.includes(`field ${key} `))) ||
              keys.some((key) => line.includes(`field ${key.slice(0, -1)}.`) && line.includes(` is not a field of ${key}`)));
          check(logged.every(unknownFieldLine), `nothing but unknown fields logged for an accepted config: ${logged}`);
        } else {
          check(!viaGrpc.ok, 'grpc-js rejects what parse() rejects');
          const message = (direct.error as Error).message;
          // grpc-js prefixes the policy name; createFromJson drops ours so it appears once, for field
          // errors and the non-object rejection alike (which read "…: peak_ewma_experimental: config
          // must be a JSON object" until 2026-12-07). The rejection is logged at ERROR (grpc-js alone logs it at DEBUG).
          const grpcMessage = (viaGrpc as { error: Error }).error.message;
          check(message.startsWith(`${PEAK_EWMA_POLICY_NAME}: `), `parse() names the policy: ${message}`);
          const once = message;
          check(grpcMessage === once, `grpc-js message: ${grpcMessage}`);
          check(logged.length === 1 && logged[0].includes(message), `logged once at ERROR: ${logged}`);
        }
      }),
      params,
    );
  });

  const rejected: [string, unknown, string][] = [
    ['exponent overflow', { decayTime: '1e400s' }, 'decayTime'],
    ['negative', { decayTime: '-1s' }, 'decayTime'],
    ['10 fractional digits', { defaultRtt: '0.0000000001s' }, 'defaultRtt'],
    ['zero', { decayTime: '0s' }, 'decayTime'],
    ['int64 max-ish seconds', { decayTime: { seconds: '9999999999999999999' } }, 'decayTime'],
    ['400-digit seconds', { decayTime: `${'9'.repeat(400)}s` }, 'decayTime'],
    ['seconds beyond double range', { decayTime: { seconds: 1e308 } }, 'decayTime'],
    ['nanos above range', { defaultRtt: { seconds: 0, nanos: 1_000_000_000 } }, 'defaultRtt.nanos'],
    ['negative nanos', { defaultRtt: { seconds: 1, nanos: -1 } }, 'defaultRtt.nanos'],
    ['fractional seconds', { defaultRtt: { seconds: 1.5 } }, 'defaultRtt.seconds'],
    ['NaN penalty', { penaltyValue: NaN }, 'penaltyValue'],
    ['infinite penalty', { penaltyValue: Infinity }, 'penaltyValue'],
    ['negative penalty', { penaltyValue: -1 }, 'penaltyValue'],
    ['penalty above bound', { penaltyValue: 1e13 }, 'penaltyValue'],
    ['factor below 1', { errorPenaltyFactor: 0.5 }, 'errorPenaltyFactor'],
    ['factor as string', { errorPenaltyFactor: '2' }, 'errorPenaltyFactor'],
    ['choiceCount 1', { choiceCount: 1 }, 'choiceCount'],
    ['choiceCount fractional', { choiceCount: 2.5 }, 'choiceCount'],
    ['both casings', { decayTime: '1s', decay_time: '2s' }, 'decayTime'],
  ];
  it.each(rejected)('rejects %s naming the field', (_label, input, field) => {
    const result = tryParse(() => PeakEwmaLoadBalancingConfig.parse(input));
    expect(result.ok).toBe(false);
    expectCleanRejection((result as { error: unknown }).error, PEAK_EWMA_POLICY_NAME, PEAK_FIELD_NAMES);
    expect(((result as { error: Error }).error).message).toContain(`field "${field}"`);
  });

  it('keeps 1 ns and 3599.999999999 s exactly through toJsonObject', () => {
    for (const decayTime of ['0.000000001s', '3599.999999999s', { seconds: '3599', nanos: 999_999_999 }]) {
      const config = PeakEwmaLoadBalancingConfig.parse({ decayTime });
      const again = reparse(config, PEAK_EWMA_POLICY_NAME, (obj) => PeakEwmaLoadBalancingConfig.parse(obj));
      expect(again.settings.decayMs).toBe(config.settings.decayMs);
    }
  });
});

describe('least_request_experimental JSON config', () => {
  it(`accepts into bounds and round-trips, or rejects naming the field (${RUNS} inputs)`, () => {
    let accepted = 0;
    fc.assert(
      fc.property(configInput(LEAST_REQUEST_FIELDS), (input) => {
        const result = tryParse(() => LeastRequestLoadBalancingConfig.parse(input));
        if (!result.ok) {
          expectCleanRejection(result.error, LEAST_REQUEST_POLICY_NAME, LEAST_FIELD_NAMES);
          const viaGrpc = tryParse(() => experimental.parseLoadBalancingConfig({ [LEAST_REQUEST_POLICY_NAME]: input as object }));
          check(!viaGrpc.ok, 'grpc-js rejects what parse() rejects');
          return;
        }
        accepted++;
        const config = result.value;
        const count = config.configuredChoiceCount;
        check(Number.isInteger(count) && count >= 2 && count <= 10, `choiceCount in [2, 10]: ${count}`);
        check(config.selectionMethod === 'N_CHOICES' || config.selectionMethod === 'FULL_SCAN', 'selectionMethod');
        const again = reparse(config, LEAST_REQUEST_POLICY_NAME, (obj) => LeastRequestLoadBalancingConfig.parse(obj));
        check(
          again.configuredChoiceCount === count &&
            again.selectionMethod === config.selectionMethod &&
            again.choiceCount === config.choiceCount,
          'round trip',
        );
      }),
      params,
    );
    expect(accepted).toBeGreaterThan(RUNS / 50);
    expect(accepted).toBeLessThan(RUNS);
  });
});

// --- validateServiceConfig ---

const OUR_NAMES = [PEAK_EWMA_POLICY_NAME, LEAST_REQUEST_POLICY_NAME];
/** Names of ours, of others, and of Object.prototype members (see the regression note at the end). */
const POLICY_NAMES = [...OUR_NAMES, 'round_robin', 'xds_wrr_locality', 'weighted_target', 'pick_first', ...PROTOTYPE_KEYS];

/** A loadBalancingConfig list with our policies at any depth under childPolicy / child_policy. */
const { list: lbList } = fc.letrec<{ list: unknown; entry: unknown; config: unknown }>((tie) => ({
  list: fc.oneof(
    { weight: 6, arbitrary: fc.array(tie('entry'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  ),
  entry: fc.oneof(
    {
      weight: 8,
      arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...POLICY_NAMES), fc.string({ maxLength: 6 })), tie('config')).map(
        ([name, config]) => {
          const entry: Record<string, unknown> = {};
          defineOwn(entry, name, config);
          return entry;
        },
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  ),
  config: fc.oneof(
    { weight: 3, arbitrary: peakInput },
    { weight: 1, arbitrary: configInput(LEAST_REQUEST_FIELDS) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('childPolicy', 'child_policy'), tie('list'), fc.jsonValue({ maxDepth: 1 }))
        .map(([key, children, other]) => ({ other, [key]: children })),
    },
  ),
}));

const serviceConfig = fc.oneof(
  { weight: 8, arbitrary: lbList.map((list) => ({ loadBalancingConfig: list, methodConfig: [] })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, 'x', '{', '[]', '{"loadBalancingConfig": 5}', 7) },
);

/** Our entries reachable through child lists, if the whole structure is well formed. */
function countOurEntries(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  let count = 0;
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    for (const [name, config] of Object.entries(entry)) {
      if (OUR_NAMES.includes(name)) count++;
      if (typeof config === 'object' && config !== null) {
        count += countOurEntries((config as Record<string, unknown>).childPolicy);
        count += countOurEntries((config as Record<string, unknown>).child_policy);
      }
    }
  }
  return count;
}

describe('validateServiceConfig', () => {
  // Our walker's messages (paths through childPolicy lists, then a rule) and, for top-level entries of other
  // registered policies, grpc-js's own prefixed with the index. Checked by prefix: a regex over a path of
  // arbitrary policy names backtracks catastrophically. A grpc-js TypeError wrapped into an Error is not clean.
  const STRUCTURAL_PREFIXES = ['service config must be a JSON object', 'service config is not valid JSON', 'loadBalancingConfig', 'loadBalancingPolicy', 'service config: field'];
  // validateServiceConfig also rejects a key its parser never read (a misspelt field), under any name.
  const UNKNOWN_FIELD = / is not a field of (this policy|"[A-Za-z_]+")( \(did you mean "[A-Za-z_.]+"\?\))?: grpc-js would ignore it$/;
  const WRAPPED_CRASH = /Cannot read properties|is not a function|Cannot convert|Maximum call stack/;

  function expectCleanValidationError(error: unknown): void {
    check(error instanceof Error, `threw a non-Error: ${String(error)}`);
    const { constructor: ctor, message } = error as Error;
    check(ctor === Error || ctor === ConfigError, `threw ${ctor.name}: ${message}`);
    if (UNKNOWN_FIELD.test(message) && (message.startsWith(`${PEAK_EWMA_POLICY_NAME}: field "`) || message.startsWith(`${LEAST_REQUEST_POLICY_NAME}: field "`))) {
      check(ctor === ConfigError, `an unknown field is a ConfigError: ${message}`);
    } else if (message.startsWith(PEAK_EWMA_POLICY_NAME)) {
      expectCleanRejection(error, PEAK_EWMA_POLICY_NAME, PEAK_FIELD_NAMES);
    } else if (message.startsWith(LEAST_REQUEST_POLICY_NAME)) {
      expectCleanRejection(error, LEAST_REQUEST_POLICY_NAME, LEAST_FIELD_NAMES);
    } else {
      check(STRUCTURAL_PREFIXES.some((prefix) => message.startsWith(prefix)), `structural message: ${message}`);
    }
    check(!WRAPPED_CRASH.test(message), `a crash wrapped as an Error: ${message}`);
  }

  it(`returns the number of our entries or throws a clean Error, as object and as JSON text (${RUNS} inputs)`, () => {
    let valid = 0;
    fc.assert(
      fc.property(serviceConfig, (input) => {
        const result = tryParse(() => validateServiceConfig(input));
        if (!result.ok) {
          expectCleanValidationError(result.error);
        } else {
          valid++;
          const list = (input as { loadBalancingConfig?: unknown }).loadBalancingConfig;
          check(result.value === countOurEntries(list), `count ${result.value} != ${countOurEntries(list)}`);
        }
        // The JSON-text path must be as clean (NaN/Infinity become null in text, so outcomes may differ).
        const text = JSON.stringify(input);
        if (text !== undefined) {
          const viaText = tryParse(() => validateServiceConfig(text));
          if (!viaText.ok) expectCleanValidationError(viaText.error);
        }
      }),
      params,
    );
    expect(valid).toBeGreaterThan(RUNS / 50);
  });

  /*
   * Regressions for bugs this fuzzer found in src/policy/validate.ts (fixed in
   * 0e2ee87): policy names are untrusted input. (1) PARSERS was a plain object
   * indexed by the name, so "__proto__", "hasOwnProperty", "valueOf",
   * "isPrototypeOf" threw a TypeError and "constructor"/"toString" were counted
   * as our entries. (2) The childPolicy walk recursed without a depth limit
   * (RangeError at ~10 000 levels). (3) grpc-js's isLoadBalancerNameRegistered()
   * and parseLoadBalancingConfig() test `name in registeredLoadBalancerTypes`,
   * a plain object, so every Object.prototype name looked registered and then
   * failed with "Cannot read properties of undefined (reading 'createFromJson')".
   */
  it.each(PROTOTYPE_KEYS)('treats a policy named %s as someone else\'s, not as a parser', (name) => {
    const entry = JSON.parse(`{"${name}": {}}`) as object;
    expect(tryParse(() => validateServiceConfig({ loadBalancingConfig: [entry, { round_robin: {} }] }))).toEqual({ ok: true, value: 0 });
    // Alone, it is a list grpc-js knows nothing of: a clean error saying so, not a crash.
    const alone = tryParse(() => validateServiceConfig({ loadBalancingConfig: [entry] }));
    expect(alone.ok).toBe(false);
    expect(((alone as { error: Error }).error).message).toMatch(/^loadBalancingConfig: none of its policies .* is registered with grpc-js/);
  });

  it('rejects absurdly deep child policy nesting with an Error, not a stack overflow', () => {
    let entry: object = { [PEAK_EWMA_POLICY_NAME]: {} };
    for (let depth = 0; depth < 20_000; depth++) {
      entry = { xds_wrr_locality: { childPolicy: [entry] } };
    }
    const result = tryParse(() => validateServiceConfig({ loadBalancingConfig: [entry] }));
    expect(result.ok).toBe(false);
    expectCleanValidationError((result as { error: unknown }).error);
  });
});
