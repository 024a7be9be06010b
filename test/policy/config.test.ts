/**
 * Service-config parsing: defaults, both casings, durations in both proto3
 * JSON forms, and a precise error for each broken rule.
 */
import { experimental, logVerbosity, setLogger, setLogVerbosity } from '@grpc/grpc-js';
import {
  ConfigError,
  LeastRequestLoadBalancingConfig,
  PEAK_EWMA_DEFAULTS,
  PeakEwmaLoadBalancingConfig,
  register,
  validateLoadBalancingConfigList,
  validateServiceConfig,
} from '../../src';
import { previousDefaults, spelledOutDefaults } from '../support/documented-config';
import { nestedPolicies } from '../support/nested-policies';

register();

const parsePeak = (obj: unknown) => PeakEwmaLoadBalancingConfig.parse(obj);
const parseLeast = (obj: unknown) => LeastRequestLoadBalancingConfig.parse(obj);

describe('peak_ewma_experimental config', () => {
  it('defaults (docs/tuning.md): choiceCount 2, decayTime 2 s, defaultRtt 10 ms, penaltyValue 1e6, errorPenaltyFactor 5, fleet-relative knobs on', () => {
    const config = parsePeak({});
    expect(config.choiceCount).toBe(2);
    expect(config.settings).toEqual({
      decayMs: 2_000,
      defaultRttMs: 10,
      penaltyValue: 1e6,
      errorPenaltyFactor: 5,
      fleetPenaltyExponent: 1,
      // Ejection on the mean answer at 1.5 × the fleet (docs/tuning-log.md §12, §14, §38).
      ejectionRatio: 1.5,
      ejectionSignal: 'mean',
      // At most 40 % of the endpoints ejected at once, at least one (docs/tuning-log.md §39).
      maxEjectionPercent: 40,
      maxEjectionMs: 1_000,
      pendingAware: true,
      probeFairShares: 10,
      // Probe back-off after failed calls in a row (docs/tuning-log.md §11).
      maxProbeBackoff: 8,
      // The rotation, and decay toward the fleet average (docs/tuning-log.md §14, §38).
      rotationMargin: 0.15,
      slowStartMs: 10_000,
      rotationGate: 1.45,
      decayToward: 'fleet',
      // Memory in the client's own calls (docs/tuning-log.md §35, §38).
      decayFairShares: 20,
      // Per-method scoring for calls marked by callMarker (docs/design.md).
      methodScoring: 'latency',
      // Ten candidates per pick while the methods are a mix (docs/tuning-log.md §22).
      mixedChoiceCount: 10,
    });
  });

  it('docs/tuning.md spells the defaults out as they are: its config parses into exactly the settings of {}', () => {
    // It read maxEjectionPercent 30 while the package shipped 40 (found 2026-12-05).
    expect(parsePeak(spelledOutDefaults()).settings).toEqual(parsePeak({}).settings);
  });

  it("the defaults before 2026-12-05, as docs/choosing.md prints them, parse into exactly their four settings over today's, and round-trip", () => {
    const documented = previousDefaults();
    const config = parsePeak(documented);
    expect(config.settings).toEqual({ ...parsePeak({}).settings, ejectionRatio: 1.8, decayFairShares: 0, rotationMargin: 0.2, maxEjectionPercent: 100 });
    const json = config.toJsonObject() as Record<string, Record<string, unknown>>;
    expect(parsePeak(json.peak_ewma_experimental)).toEqual(config);
    // Through the service config a channel reads, grpc-js's parser included: one entry of ours, no error.
    expect(validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimental: documented }] })).toBe(1);
  });

  it('mixedChoiceCount: an integer from 2, clamped to 10 as choiceCount is, round-tripped when not the default', () => {
    expect(parsePeak({}).settings.mixedChoiceCount).toBe(10);
    const off = parsePeak({ mixedChoiceCount: 2 });
    expect(off.settings.mixedChoiceCount).toBe(2);
    const json = off.toJsonObject() as Record<string, Record<string, unknown>>;
    expect(json.peak_ewma_experimental.mixedChoiceCount).toBe(2);
    expect(parsePeak(json.peak_ewma_experimental)).toEqual(off);
    expect((parsePeak({}).toJsonObject() as Record<string, Record<string, unknown>>).peak_ewma_experimental.mixedChoiceCount).toBeUndefined();
    expect(parsePeak({ mixed_choice_count: 4 }).settings.mixedChoiceCount).toBe(4);
    expect(parsePeak({ mixedChoiceCount: 50 }).settings.mixedChoiceCount).toBe(10);
  });

  it('toJsonObject writes a field the config gave even at our default, and leaves out one nobody gave', () => {
    // Another copy of this package reads this JSON with its own defaults (foreign-config.ts): a
    // user's "ejectionRatio": 1.5 left out because it equals ours ran as the reader's 1.8 (review, 2026-12-07).
    const given = {
      ejectionRatio: PEAK_EWMA_DEFAULTS.ejectionRatio,
      max_ejection_percent: PEAK_EWMA_DEFAULTS.maxEjectionPercent,
      rotationGate: PEAK_EWMA_DEFAULTS.rotationGate,
      maxEjectionTime: `${PEAK_EWMA_DEFAULTS.maxEjectionMs! / 1000}s`,
      slowStartWindow: `${PEAK_EWMA_DEFAULTS.slowStartMs! / 1000}s`,
      pendingAware: null,
    };
    const json = (parsePeak(given).toJsonObject() as Record<string, Record<string, unknown>>).peak_ewma_experimental;
    expect(json).toEqual({
      ...(parsePeak({}).toJsonObject() as Record<string, Record<string, unknown>>).peak_ewma_experimental,
      ejectionRatio: PEAK_EWMA_DEFAULTS.ejectionRatio,
      maxEjectionPercent: PEAK_EWMA_DEFAULTS.maxEjectionPercent,
      rotationGate: PEAK_EWMA_DEFAULTS.rotationGate,
      maxEjectionTime: given.maxEjectionTime,
      slowStartWindow: given.slowStartWindow,
    });
    expect(Object.keys((parsePeak({}).toJsonObject() as Record<string, Record<string, unknown>>).peak_ewma_experimental)).toEqual([
      'choiceCount',
      'decayTime',
      'defaultRtt',
      'penaltyValue',
      'errorPenaltyFactor',
    ]);
    // The given fields are not part of the config's value.
    expect(parsePeak(given)).toEqual(parsePeak({}));
  });

  it('methodScoring: "off", "latency" or "work", and round-trips', () => {
    for (const methodScoring of ['off', 'latency', 'work'] as const) {
      const config = parsePeak({ methodScoring });
      expect(config.settings.methodScoring).toBe(methodScoring);
      const json = config.toJsonObject() as Record<string, Record<string, unknown>>;
      expect(json.peak_ewma_experimental.methodScoring).toBe(methodScoring);
      expect(parsePeak(json.peak_ewma_experimental)).toEqual(config);
    }
    expect(parsePeak({ method_scoring: 'work' }).settings.methodScoring).toBe('work');
  });

  it('ejectionSignal: "peak" or "mean", round-trips, and a bad value names the field', () => {
    for (const ejectionSignal of ['peak', 'mean'] as const) {
      const config = parsePeak({ ejectionSignal });
      expect(config.settings.ejectionSignal).toBe(ejectionSignal);
      const json = config.toJsonObject() as Record<string, Record<string, unknown>>;
      expect(json.peak_ewma_experimental.ejectionSignal).toBe(ejectionSignal);
      expect(parsePeak(json.peak_ewma_experimental)).toEqual(config);
    }
    expect(parsePeak({ ejection_signal: 'mean' }).settings.ejectionSignal).toBe('mean');
    expect(() => parsePeak({ ejectionSignal: 'median' })).toThrow(/"ejectionSignal" must be one of "peak", "mean", got "median"/);
    expect(() => parsePeak({ ejectionSignal: 1 })).toThrow(/"ejectionSignal" must be one of/);
  });

  it('maxEjectionPercent: 0 to 100 (100: no budget), round-trips, and a bad value names the field', () => {
    for (const maxEjectionPercent of [0, 12.5, 40, 100]) {
      const config = parsePeak({ maxEjectionPercent });
      expect(config.settings.maxEjectionPercent).toBe(maxEjectionPercent);
      const json = config.toJsonObject() as Record<string, Record<string, unknown>>;
      expect(json.peak_ewma_experimental.maxEjectionPercent).toBe(maxEjectionPercent);
      expect(parsePeak(json.peak_ewma_experimental)).toEqual(config);
    }
    expect(parsePeak({ max_ejection_percent: 50 }).settings.maxEjectionPercent).toBe(50);
    expect(() => parsePeak({ maxEjectionPercent: -1 })).toThrow(/"maxEjectionPercent" must be at least 0 and at most 100, got -1/);
    expect(() => parsePeak({ maxEjectionPercent: 101 })).toThrow(/"maxEjectionPercent" must be at least 0 and at most 100, got 101/);
    expect(() => parsePeak({ maxEjectionPercent: '30%' })).toThrow(/"maxEjectionPercent" must be a finite number, got "30%"/);
  });

  it('maxProbeBackoff: 0 (off) to 1000, round-trips when not the default, and a bad value names the field', () => {
    for (const maxProbeBackoff of [0, 1, 16]) {
      const config = parsePeak({ maxProbeBackoff });
      expect(config.settings.maxProbeBackoff).toBe(maxProbeBackoff);
      const json = config.toJsonObject() as Record<string, Record<string, unknown>>;
      expect(json.peak_ewma_experimental.maxProbeBackoff).toBe(maxProbeBackoff);
      expect(parsePeak(json.peak_ewma_experimental)).toEqual(config);
    }
    expect((parsePeak({}).toJsonObject() as Record<string, Record<string, unknown>>).peak_ewma_experimental.maxProbeBackoff).toBeUndefined();
    expect(parsePeak({ max_probe_backoff: 4 }).settings.maxProbeBackoff).toBe(4);
    expect(() => parsePeak({ maxProbeBackoff: -1 })).toThrow(/maxProbeBackoff/);
    expect(() => parsePeak({ maxProbeBackoff: 1e4 })).toThrow(/maxProbeBackoff/);
    expect(() => parsePeak({ maxProbeBackoff: 'lots' })).toThrow(/maxProbeBackoff/);
  });

  it('reads camelCase and snake_case, durations as strings or {seconds, nanos}', () => {
    const camel = parsePeak({ choiceCount: 3, decayTime: '0.25s', defaultRtt: { seconds: 0, nanos: 5_000_000 } });
    const snake = parsePeak({ choice_count: 3, decay_time: { seconds: '0', nanos: 250_000_000 }, default_rtt: '0.005s' });
    for (const config of [camel, snake]) {
      expect(config.choiceCount).toBe(3);
      expect(config.settings.decayMs).toBe(250);
      expect(config.settings.defaultRttMs).toBe(5);
    }
  });

  it('clamps choiceCount above 10 to 10 (gRFC A48)', () => {
    expect(parsePeak({ choiceCount: 50 }).choiceCount).toBe(10);
  });

  it('round-trips through toJsonObject', () => {
    const config = parsePeak({ choiceCount: 4, decayTime: '2.5s', defaultRtt: '0.001s', penaltyValue: 7, errorPenaltyFactor: 3 });
    const json = config.toJsonObject() as Record<string, unknown>;
    expect(json).toMatchObject({
      peak_ewma_experimental: { choiceCount: 4, decayTime: '2.5s', defaultRtt: '0.001s', penaltyValue: 7, errorPenaltyFactor: 3 },
    });
    expect(parsePeak(json.peak_ewma_experimental)).toEqual(config);
  });

  it('ignores unknown fields (gRFC A21)', () => {
    expect(parsePeak({ someFutureField: true }).choiceCount).toBe(2);
  });

  it.each([
    [{ choiceCount: 1 }, /"choiceCount" must be at least 2, got 1/],
    [{ choiceCount: 2.5 }, /"choiceCount" must be an integer, got 2.5/],
    [{ choiceCount: '3' }, /"choiceCount" must be an integer, got "3"/],
    [{ decayTime: '0s' }, /"decayTime" must be greater than zero/],
    [{ decayTime: '-1s' }, /"decayTime" must be a duration such as "10s"/],
    [{ decayTime: '10' }, /"decayTime" must be a duration such as "10s"/],
    [{ decayTime: 10 }, /"decayTime" must be a duration string/],
    [{ decayTime: '999999s' }, /"decayTime" must be at most 3600s, got "999999s"/],
    [{ decayTime: { seconds: 7200 } }, /"decayTime" must be at most 3600s, got \{"seconds":7200\}/],
    [{ decayTime: { seconds: 7200, nanos: 0, extra: 'x'.repeat(100) } }, /got \{"seconds":7200,"nanos":0,"extra":"x+…$/],
    [{ decayTime: { seconds: -1 } }, /"decayTime" must be greater than zero, got -1s/],
    [{ decayTime: { seconds: 1, nanos: 1e9 } }, /"decayTime.nanos" must be an integer in \[0, 999999999\]/],
    [{ decayTime: { seconds: 'x' } }, /"decayTime.seconds" must be an integer/],
    [{ defaultRtt: '120s' }, /"defaultRtt" must be at most 60s/],
    [{ penaltyValue: 0 }, /"penaltyValue" must be greater than 0/],
    [{ penaltyValue: NaN }, /"penaltyValue" must be a finite number, got NaN/],
    [{ penaltyValue: Infinity }, /"penaltyValue" must be a finite number/],
    [{ errorPenaltyFactor: 0.5 }, /"errorPenaltyFactor" must be at least 1/],
    [{ methodScoring: 'on' }, /"methodScoring" must be one of "off", "latency", "work", got "on"/],
    [{ methodScoring: true }, /"methodScoring" must be one of "off", "latency", "work", got boolean/],
    [{ mixedChoiceCount: 1 }, /"mixedChoiceCount" must be at least 2, got 1/],
    [{ mixedChoiceCount: 2.5 }, /"mixedChoiceCount" must be an integer, got 2.5/],
    [{ mixedChoiceCount: '10' }, /"mixedChoiceCount" must be an integer, got "10"/],
    [{ decayTime: '1s', decay_time: '2s' }, /"decayTime" is given twice/],
    [[], /config must be a JSON object/],
  ])('rejects %j with a message naming the field and the rule', (input, message) => {
    expect(() => parsePeak(input)).toThrow(message);
    expect(() => parsePeak(input)).toThrow(/^peak_ewma_experimental: /);
  });
});

describe('least_request_experimental config', () => {
  it('defaults to 2 choices, N_CHOICES; FULL_SCAN compares everyone', () => {
    expect(parseLeast({}).choiceCount).toBe(2);
    const fullScan = parseLeast({ selectionMethod: 'FULL_SCAN', choiceCount: 3 });
    expect(fullScan.choiceCount).toBe(Infinity);
    expect(fullScan.toJsonObject()).toEqual({
      least_request_experimental: { choiceCount: 3, selectionMethod: 'FULL_SCAN' },
    });
  });

  it('rejects choiceCount below 2, clamps above 10, rejects unknown selection methods', () => {
    expect(() => parseLeast({ choiceCount: 0 })).toThrow(/least_request_experimental: field "choiceCount" must be at least 2/);
    expect(parseLeast({ choice_count: 11 }).choiceCount).toBe(10);
    expect(() => parseLeast({ selection_method: 'RANDOM' })).toThrow(
      /"selectionMethod" must be one of "N_CHOICES", "FULL_SCAN", got "RANDOM"/,
    );
  });
});

describe("grpc-js's own parser names our policy once", () => {
  it('for a config that is not an object, as for a bad field', () => {
    setLogVerbosity(logVerbosity.NONE); // each rejection is logged at ERROR; here they are the point
    const message = (config: Record<string, unknown>) => {
      try {
        experimental.parseLoadBalancingConfig(config as Parameters<typeof experimental.parseLoadBalancingConfig>[0]); // not objects, on purpose
      } catch (error) {
        return (error as Error).message;
      }
      return 'parsed';
    };
    // Read "peak_ewma_experimental: peak_ewma_experimental: config must be …" until 2026-12-07.
    expect(message({ peak_ewma_experimental: 'x' })).toBe('peak_ewma_experimental: config must be a JSON object, got "x"');
    expect(message({ least_request_experimental: 5 })).toBe('least_request_experimental: config must be a JSON object, got 5');
    expect(message({ peak_ewma_experimental: { decayTime: -1 } })).toMatch(/^peak_ewma_experimental: field "decayTime" /);
  });
});

describe('validateServiceConfig', () => {
  it('checks our entries at top level and inside child policies, from an object or JSON text', () => {
    const serviceConfig = {
      loadBalancingConfig: [
        { outlier_detection: { child_policy: [{ peak_ewma_experimental: {} }] } },
        { least_request_experimental: { choiceCount: 3 } },
        { round_robin: {} },
      ],
    };
    expect(validateServiceConfig(serviceConfig)).toBe(2);
    expect(validateServiceConfig(JSON.stringify(serviceConfig))).toBe(2);
  });

  it('throws the policy error that grpc-js would have swallowed', () => {
    const bad = { loadBalancingConfig: [{ outlier_detection: { child_policy: [{ peak_ewma_experimental: { decayTime: 5 } }] } }] };
    expect(() => validateServiceConfig(bad)).toThrow(/peak_ewma_experimental: field "decayTime"/);
    expect(() => validateServiceConfig('{not json')).toThrow(/not valid JSON/);
  });

  it('rejects a service config that is not an object, arrays too (an array passed as checked, with 0 entries)', () => {
    expect(() => validateServiceConfig([])).toThrow('service config must be a JSON object, got an array');
    expect(() => validateServiceConfig('[{"loadBalancingConfig": []}]')).toThrow('service config must be a JSON object, got an array');
    expect(() => validateServiceConfig(null)).toThrow('service config must be a JSON object, got null');
    expect(() => validateServiceConfig(5)).toThrow('service config must be a JSON object, got 5');
  });

  it('rejects a misspelt field, which grpc-js would ignore, naming the field it was probably meant to be', () => {
    const withField = (policy: string, config: object) => ({ loadBalancingConfig: [{ [policy]: config }] });
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { decay_tme: '5s' }))).toThrow(
      'peak_ewma_experimental: field "decay_tme" is not a field of this policy (did you mean "decay_time"?): grpc-js would ignore it',
    );
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { rotationgate: 1.2 }))).toThrow(/field "rotationgate" .*did you mean "rotationGate"/);
    expect(() => validateServiceConfig(withField('least_request_experimental', { choiseCount: 3 }))).toThrow(
      /^least_request_experimental: field "choiseCount" .*did you mean "choiceCount"/,
    );
    // A duration named by its unit, as PEAK_EWMA_DEFAULTS names them (decayMs, slowStartMs): too far to spell, near by meaning.
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { decayMs: 2000 }))).toThrow(/field "decayMs" .*did you mean "decayTime"/);
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { slowStartMs: 5000 }))).toThrow(/field "slowStartMs" .*did you mean "slowStartWindow"/);
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { max_ejection_ms: 500 }))).toThrow(/did you mean "max_ejection_time"/);
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { defaultRttMs: 10 }))).toThrow(/field "defaultRttMs" .*did you mean "defaultRtt"/);
    expect(() => validateServiceConfig(withField('peak_ewma_experimental', { colour: 'blue' }))).toThrow(
      'peak_ewma_experimental: field "colour" is not a field of this policy: grpc-js would ignore it',
    );
    // Inside another policy's child list too, where grpc-js's own parser never looks at our fields.
    const nested = { loadBalancingConfig: [{ outlier_detection: { child_policy: [{ peak_ewma_experimental: { decayTme: '5s' } }] } }] };
    expect(() => validateServiceConfig(nested)).toThrow(/field "decayTme" .*did you mean "decayTime"/);
    // ...while grpc-js itself takes the same config, keeping the default: the silence this catches.
    expect(PeakEwmaLoadBalancingConfig.parse({ decay_tme: '5s' }).settings.decayMs).toBe(PEAK_EWMA_DEFAULTS.decayMs);
    // Every documented field, in either casing, is known.
    expect(validateServiceConfig(withField('peak_ewma_experimental', spelledOutDefaults()))).toBe(1);
    const snakeCased = Object.fromEntries(Object.entries(spelledOutDefaults()).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()), v]));
    expect(validateServiceConfig(withField('peak_ewma_experimental', snakeCased))).toBe(1);
    expect(validateServiceConfig(withField('least_request_experimental', { choice_count: 3, selection_method: 'FULL_SCAN' }))).toBe(1);
  });

  it('rejects a misspelt key inside a {seconds, nanos} duration, which would leave the duration short, and logs it at run time', () => {
    const withPeak = (config: object) => ({ loadBalancingConfig: [{ peak_ewma_experimental: config }] });
    expect(() => validateServiceConfig(withPeak({ decayTime: { seconds: 2, nano: 500_000_000 } }))).toThrow(
      'peak_ewma_experimental: field "decayTime.nano" is not a field of "decayTime" (did you mean "decayTime.nanos"?): grpc-js would ignore it',
    );
    expect(() => validateServiceConfig(withPeak({ max_ejection_time: { seconds: 1, nanos: 0, milliseconds: 500 } }))).toThrow(
      'peak_ewma_experimental: field "max_ejection_time.milliseconds" is not a field of "max_ejection_time": grpc-js would ignore it',
    );
    // A duration that reads as zero names its keys, where it said only "got an object".
    expect(() => validateServiceConfig(withPeak({ decayTime: { second: 2 } }))).toThrow(
      'peak_ewma_experimental: field "decayTime" must be greater than zero, got an object that reads as zero (its keys: "second")',
    );
    // A frozen config (a deep-frozen constant) parses as before, and its nested keys are still read.
    const frozen = Object.freeze({ decayTime: Object.freeze({ seconds: 3, nanos: 0 }) });
    expect(PeakEwmaLoadBalancingConfig.parse(frozen).settings.decayMs).toBe(3_000);
    expect(validateServiceConfig(withPeak(frozen))).toBe(1);
    expect(() => validateServiceConfig(withPeak(Object.freeze({ decayTime: Object.freeze({ seconds: 3, nano: 5 }) })))).toThrow(/field "decayTime.nano"/);
    // A key with a dot in it is a top-level field, not a path.
    expect(() => validateServiceConfig(withPeak({ 'decayTime.nanos': 5 }))).toThrow('field "decayTime.nanos" is not a field of this policy');
    expect(validateServiceConfig(withPeak({ decayTime: { seconds: '2', nanos: 500_000_000 }, maxEjectionTime: {} }))).toBe(1);
    // A channel's own parse keeps A21: the key is ignored (1 s, not 1.5 s) and logged.
    const lines: string[] = [];
    setLogger({ error: (...args: unknown[]) => lines.push(args.join(' ')) });
    setLogVerbosity(logVerbosity.ERROR);
    try {
      const parsed = experimental.parseLoadBalancingConfig({ peak_ewma_experimental: { maxEjectionTime: { seconds: 1, nano: 500_000_000 } } });
      expect((parsed as PeakEwmaLoadBalancingConfig).settings.maxEjectionMs).toBe(1_000);
      expect(lines).toEqual([
        'grpc-js-peak-ewma: peak_ewma_experimental: field "maxEjectionTime.nano" is not a field of "maxEjectionTime" ' +
          '(did you mean "maxEjectionTime.nanos"?), so it is ignored (validateServiceConfig rejects it)',
      ]);
    } finally {
      setLogger(console);
    }
  });

  it('rejects a policy name grpc-js would skip by mistake, and a list grpc-js knows nothing of', () => {
    expect(() => validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimentl: {} }, { round_robin: {} }] })).toThrow(
      'loadBalancingConfig[0]: no policy is registered as "peak_ewma_experimentl"; did you mean "peak_ewma_experimental"? (grpc-js skips a policy it does not know)',
    );
    expect(() => validateServiceConfig({ loadBalancingConfig: [{ Round_Robin: {} }] })).toThrow(/did you mean "round_robin"/);
    expect(() => validateServiceConfig({ loadBalancingConfig: [{ outlier_detection: { child_policy: [{ pick_frist: {} }] } }] })).toThrow(
      /^loadBalancingConfig\[0\]\.outlier_detection\.child_policy\[0\]: .*"pick_frist"; did you mean "pick_first"/,
    );
    expect(() => validateServiceConfig({ loadBalancingConfig: [{ some_go_only_policy: {} }] })).toThrow(
      'loadBalancingConfig: none of its policies ("some_go_only_policy") is registered with grpc-js, so a channel would use pick_first',
    );
    // A policy of another gRPC implementation, with a fallback grpc-js knows, is what the list is for.
    expect(validateServiceConfig({ loadBalancingConfig: [{ some_go_only_policy: {} }, { peak_ewma_experimental: {} }] })).toBe(1);
    expect(validateServiceConfig({ loadBalancingConfig: [] })).toBe(0);
  });

  it('rejects top-level fields that leave grpc-js on pick_first: loadBalancingPolicy alone, and near misses of the service config\'s fields', () => {
    // grpc-js 1.14 parses loadBalancingPolicy and never reads it (test/policy/fallback-visibility.e2e.test.ts).
    expect(() => validateServiceConfig({ loadBalancingPolicy: 'peak_ewma_experimental' })).toThrow(
      'loadBalancingPolicy: grpc-js ignores this field and would use pick_first; write "loadBalancingConfig": [{"peak_ewma_experimental": {}}] instead',
    );
    expect(() => validateServiceConfig('{"load_balancing_config": [{"peak_ewma_experimental": {}}]}')).toThrow(
      'service config: field "load_balancing_config" is not read by grpc-js (did you mean "loadBalancingConfig"?)',
    );
    expect(() => validateServiceConfig({ loadBalancingConfigs: [{ peak_ewma_experimental: {} }] })).toThrow(/did you mean "loadBalancingConfig"/);
    expect(() => validateServiceConfig({ loadBalancingConfig: [], methodconfig: [] })).toThrow(/did you mean "methodConfig"/);
    // Any case, as other implementations read it; pick_first is what grpc-js runs anyway; not a string, grpc-js
    // rejects the service config.
    expect(() => validateServiceConfig({ loadBalancingPolicy: 'ROUND_ROBIN' })).toThrow('[{"round_robin": {}}]');
    expect(validateServiceConfig({ loadBalancingPolicy: 'pick_first' })).toBe(0);
    expect(() => validateServiceConfig({ loadBalancingPolicy: 5, loadBalancingConfig: [] })).toThrow(
      'loadBalancingPolicy must be a string, got 5: grpc-js rejects the whole service config',
    );
    // Beside loadBalancingConfig it is harmless (the list wins everywhere); other implementations' fields and
    // names far from every field pass (gRFC A21).
    expect(validateServiceConfig({ loadBalancingPolicy: 'round_robin', loadBalancingConfig: [{ peak_ewma_experimental: {} }] })).toBe(1);
    expect(validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimental: {} }], healthCheckConfig: { serviceName: '' }, retryThrottling: { maxTokens: 10, tokenRatio: 0.1 }, x_vendor_extension: true })).toBe(1);
  });

  it('a channel\'s own parse logs a misspelt field at ERROR, once per field, and keeps the default as grpc-js must', () => {
    const lines: string[] = [];
    setLogger({ error: (...args: unknown[]) => lines.push(args.join(' ')) });
    setLogVerbosity(logVerbosity.ERROR);
    try {
      const parsed = experimental.parseLoadBalancingConfig({ peak_ewma_experimental: { decayTme: '5s', choiceCount: 3 } });
      expect(parsed).toBeInstanceOf(PeakEwmaLoadBalancingConfig);
      expect((parsed as PeakEwmaLoadBalancingConfig).settings.decayMs).toBe(PEAK_EWMA_DEFAULTS.decayMs);
      expect((parsed as PeakEwmaLoadBalancingConfig).choiceCount).toBe(3);
      expect(lines).toEqual([
        'grpc-js-peak-ewma: peak_ewma_experimental: field "decayTme" is not a field of this policy (did you mean "decayTime"?), ' +
          'so it is ignored (validateServiceConfig rejects it)',
      ]);
      // grpc-js parses the config again at every resolver update: one line per process says it.
      experimental.parseLoadBalancingConfig({ peak_ewma_experimental: { decayTme: '5s' } });
      experimental.parseLoadBalancingConfig({ least_request_experimental: { choiceCount: 2, colour: 'blue' } });
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^grpc-js-peak-ewma: least_request_experimental: field "colour" is not a field of this policy, so it is ignored/);
      // Known fields, in either casing, log nothing.
      experimental.parseLoadBalancingConfig({ peak_ewma_experimental: { decay_time: '5s', rotationGate: 1.5 } });
      expect(lines).toHaveLength(2);
    } finally {
      setLogger(console);
    }
  });

  it('says to call register() when our policy is not registered yet, which grpc-js would skip', () => {
    jest.isolateModules(() => {
      // A fresh @grpc/grpc-js and a fresh copy of ours: nothing registered.
      const fresh = require('../../src') as typeof import('../../src');
      const grpc = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
      expect(grpc.experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(false);
      expect(() => fresh.validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimental: {} }] })).toThrow(
        'loadBalancingConfig[0]: "peak_ewma_experimental" is not registered with grpc-js yet: call register() from grpc-js-peak-ewma before creating channels',
      );
      fresh.register();
      expect(fresh.validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimental: {} }] })).toBe(1);
    });
  });

  it('runs registered policies through grpc-js\'s own parser too', () => {
    const stringDuration = { loadBalancingConfig: [{ outlier_detection: { interval: '10s', child_policy: [{ round_robin: {} }] } }] };
    expect(() => validateServiceConfig(stringDuration)).toThrow(/loadBalancingConfig\[0\]: outlier_detection: .*interval/);
  });
});

describe('validateLoadBalancingConfigList', () => {
  it('rejects an entry with more than one key (grpc-js\'s own parser takes one policy name per entry), at top level and inside a child policy list', () => {
    expect(() => validateLoadBalancingConfigList([{ round_robin: {}, peak_ewma_experimental: {} }])).toThrow(
      'loadBalancingConfig[0] must be an object with exactly one key, the policy name',
    );
    expect(() => validateLoadBalancingConfigList([{ outlier_detection: { child_policy: [{ round_robin: {}, peak_ewma_experimental: {} }] } }])).toThrow(
      'loadBalancingConfig[0].outlier_detection.child_policy[0] must be an object with exactly one key, the policy name',
    );
    expect(() => validateLoadBalancingConfigList([{}])).toThrow('loadBalancingConfig[0] must be an object with exactly one key, the policy name');
    expect(validateLoadBalancingConfigList([{ outlier_detection: { child_policy: [{ peak_ewma_experimental: {} }] } }])).toBe(1);
  });

  it("leaves alone what a policy grpc-js does not know keeps under a child key, and checks a registered policy's", () => {
    // grpc-js skips another implementation's policy whole and takes round_robin; this threw "must be an array" (review, 2026-12-07).
    expect(validateServiceConfig({ loadBalancingConfig: [{ some_other_impl: { childPolicy: 'x' } }, { round_robin: {} }] })).toBe(0);
    // An array under an unknown policy is still read: our entries in it are checked.
    expect(() =>
      validateServiceConfig({ loadBalancingConfig: [{ some_other_impl: { childPolicy: [{ peak_ewma_experimental: { decayTime: -1 } }] } }, { round_robin: {} }] }),
    ).toThrow(/some_other_impl\.childPolicy|decayTime/);
    expect(() => validateServiceConfig({ loadBalancingConfig: [{ outlier_detection: { child_policy: 'x' } }] })).toThrow(
      'loadBalancingConfig[0].outlier_detection.child_policy must be an array',
    );
  });

  it("places a nested policy's field error as it places a nested policy's name error; a top-level one keeps its message", () => {
    // Before 2026-12-07 the nested error read only 'peak_ewma_experimental: field "decayTme" …' (a new user's walkthrough).
    expect(() => validateServiceConfig({ loadBalancingConfig: [{ outlier_detection: { child_policy: [{ peak_ewma_experimental: { decayTme: '5s' } }] } }] })).toThrow(
      'loadBalancingConfig[0].outlier_detection.child_policy[0]: peak_ewma_experimental: field "decayTme" is not a field of this policy (did you mean "decayTime"?)',
    );
    expect(() => validateLoadBalancingConfigList([{ round_robin: {} }, { outlier_detection: { child_policy: [{ least_request_experimental: { choiceCount: 1 } }] } }])).toThrow(
      'loadBalancingConfig[1].outlier_detection.child_policy[0]: least_request_experimental: field "choiceCount" must be at least 2, got 1',
    );
    let nested: unknown;
    try {
      validateLoadBalancingConfigList([{ outlier_detection: { child_policy: [{ peak_ewma_experimental: { decayTime: '-1s' } }] } }]);
    } catch (error) {
      nested = error;
    }
    expect(nested).toBeInstanceOf(ConfigError);
    expect(nested).toMatchObject({ policyName: 'peak_ewma_experimental', field: 'decayTime', where: 'loadBalancingConfig[0].outlier_detection.child_policy[0]' });
    expect(() => validateLoadBalancingConfigList([{ peak_ewma_experimental: { decayTime: '-1s' } }])).toThrow(/^peak_ewma_experimental: field "decayTime" must be a duration/);
  });

  it('takes child policies nested 32 levels deep and rejects 33', () => {
    const nested = nestedPolicies;
    // 32 child lists: the innermost entry is still read (and counted).
    expect(validateLoadBalancingConfigList([nested(32)])).toBe(1);
    expect(() => validateLoadBalancingConfigList([nested(33)])).toThrow(
      'loadBalancingConfig' + '[0].outlier_detection.child_policy'.repeat(33) + ': child policies nested deeper than 32 levels',
    );
  });
});
