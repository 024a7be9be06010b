/**
 * Service-config for `peak_ewma_experimental`:
 *
 *   { "peak_ewma_experimental": { "choiceCount": 2, "decayTime": "2s", "defaultRtt": "0.01s",
 *                                 "penaltyValue": 1000000, "errorPenaltyFactor": 5,
 *                                 "ejectionRatio": 1.5, "maxEjectionTime": "1s" } }
 *
 * camelCase is canonical, snake_case accepted; unknown keys are ignored.
 * Every field is optional; PEAK_EWMA_DEFAULTS says what each defaults to and
 * why. The fleet-relative mechanisms (docs/tuning.md) each have a value
 * that turns them off (0, false, "peak", "zero"); all off is the textbook
 * peak EWMA with two random choices (docs/configuration.md).
 */
import { LoadBalancingEngine } from '../core/engine';
import { LoadModel } from '../core/load-model';
import { PeakEwmaModel } from '../core/peak-ewma-model';
import { DecayTarget, EjectionSignal, MethodScoring, PeakEwmaSettings } from '../core/peak-ewma-settings';
import {
  ConfigError,
  describe,
  msToDurationString,
  readField,
  readChoiceCount,
  readDurationMs,
  readEnum,
  readNumber,
  requireObject,
} from './config-fields';
import { createFromJsonReporting, EndpointPickingConfig } from './endpoint-picking-config';

export const PEAK_EWMA_POLICY_NAME = 'peak_ewma_experimental';

export const PEAK_EWMA_DEFAULTS = {
  choiceCount: 2,
  /**
   * 2 s, not Finagle's, Envoy's and linkerd's 10 s: with probing bounded by
   * maxEjectionTime, τ sets how long one slow tail sample keeps a backend
   * expensive, so it sets how much each backend's share swings; 10 s misses
   * the 4 s recovery target (6.8 s mean over 5 seeds in s03), 2 s meets it
   * (3.6 s), 1 s starts to cost p99 (docs/tuning-log.md §6).
   */
  decayMs: 2_000,
  /** Envoy's 10 ms. */
  defaultRttMs: 10,
  /** Envoy's 1e6, in cost units (ms × calls). */
  penaltyValue: 1_000_000,
  /**
   * 5: one failure then lifts the estimate past the ejection ratio, so a
   * crash-looping backend is skipped at once (docs/tuning-log.md §5: s04 errors
   * 0.15 % with 2 → 0.075 % with 5).
   */
  errorPenaltyFactor: 5,
  /**
   * Cost × (estimate / fleet average)^s above the fleet average: 1 keeps a
   * backend just under the ejection ratio from winning on its queue alone
   * (uniform s10 p99 1.310 → 1.289 × s02 at τ 2 s; docs/tuning-log.md §4).
   */
  fleetPenaltyExponent: 1,
  /**
   * Skip (redraw) a candidate judged above 1.5 × the fleet average: its
   * mean answer, with ejectionSignal "mean". 1.5 since 2026-12-05, with the
   * memory in calls and the margin 0.15 (the three were the many-callers
   * switch: docs/tuning-log.md §35, §38); 1.8 before (§14), 2.5 with the peak
   * signal until 2026-12-02 (§12).
   */
  ejectionRatio: 1.5,
  /**
   * At most 40 % of the READY endpoints ejected at once, the slowest, and
   * always at least one (core/ejection-budget.ts): an ejected endpoint's
   * calls go to the others, which a fleet of three to five, or one near its
   * capacity, cannot carry. At 5 backends × 90 % load p99 49.6 → 44.8 ms
   * (10 seeds), at 3 backends × 2 slots the brownout's errors 4.3 → 0.7 %.
   * 40, above the 30 % of slow pods in the simulator's uneven fleet, so
   * that the budget binds only on ejections the slow pods do not explain:
   * in the regime grid (20 backends) it moves only 1 slot × 64 clients, by
   * at most 1 %, where 30 cost up to 3 % (docs/tuning-log.md §39). 100 = off.
   */
  maxEjectionPercent: 40,
  /** An estimate with no sample for 1 s counts at most as the fleet average: the probe interval. */
  maxEjectionMs: 1_000,
  /**
   * ... and only once the endpoint has missed 10 fair shares of this
   * balancer's calls (10 × READY endpoints started since its last sample),
   * so a slow client's probes stay at most 1/10 of an endpoint's fair share
   * instead of one per second. Not a service-config field: it binds only
   * below 10 × endpoints calls per maxEjectionTime (docs/tuning-log.md §2).
   */
  probeFairShares: 10,
  /**
   * The probe back-off's cap: after j failed calls in a row an endpoint's
   * probe interval in calls is min(2^j, 8) × K once the last was an error
   * (min(2^(j−1), 8) × K after slow answers that left it ejected), and its
   * failure penalty min(2^(j−1), 8) × (core/probe-backoff.ts). s04 with 64
   * clients: errors 0.48 → 0.12 % (docs/tuning-log.md §11), 0.105 → 0.090 %
   * with the interval a step ahead (§16); runs without errors unchanged.
   * 0 or 1 = off.
   */
  maxProbeBackoff: 8,
  /** Calls waiting without an answer count toward the estimate. */
  pendingAware: true,
  /**
   * The rotation (core/rotation.ts): the next endpoint in a per-balancer
   * rotation takes the call while its mean answer is at most 1.45 × the
   * fleet average, no call of this client is in flight to it and it has
   * not failed lately; even then a random challenger below 0.15 × its cost
   * takes the call. Two random draws gave an identical fleet of one-slot
   * backends twice round_robin's p99; with the rotation every identical
   * fleet of the regime grid is within 2 % of round_robin (docs/tuning-log.md
   * §14). The gate 1.45 since the fleet average weighs calls (§24). The
   * margin is narrow because one queued answer prices a healthy one-slot
   * pod at several times an idle peer, and a wider margin then hands its
   * turns to random challengers, which queue like independent arrivals;
   * 0.15 since the memory in calls keeps such an answer for longer (§25,
   * §35, §38). 0 and 0 = off (both candidates random).
   */
  rotationMargin: 0.15,
  rotationGate: 1.45,
  /**
   * The estimate decays toward the fleet average, not 0, so an endpoint not
   * heard from counts as typical rather than best (core/memory.ts; with 64
   * clients at one slot, uneven fleet 165 → 133 ms, docs/tuning-log.md §14).
   */
  decayToward: 'fleet' as DecayTarget,
  /**
   * Memory in the client's own calls (core/memory.ts): an estimate forgets
   * at most 1/e per 20 fair shares of this balancer's calls, so a client
   * sending each endpoint under a call per τ (64 clients at one slot) keeps
   * what it learnt; at the reference's ~1,300 calls/s per client τ rules.
   * 20 since 2026-12-05 (the uneven fleet at 1 slot × 64 clients 120 →
   * 87 ms, 2 × 64 61 → 55; docs/tuning-log.md §35, §38). 0 = time only.
   */
  decayFairShares: 20,
  /**
   * Per-method scoring for calls the `callMarker` interceptor marks
   * (core/methods.ts): samples judged against their method's fleet
   * average. In s13 (five methods, 1 ms–1 s) it lowers every method's p99
   * in both layouts over 5 seeds (ping 300 → 242 ms uniform, 422 → 256 ms
   * reference; docs/simulation.md); with one method, or without the
   * interceptor, it changes nothing (bit-identical). "work" also counts
   * in-flight work: no clear gain over "latency" there, so not the default.
   */
  methodScoring: 'latency' as MethodScoring,
  /**
   * Candidates compared per pick while the marked methods are a mix
   * (typical latencies 4× apart or more, judged each second or 1,000
   * calls; core/methods.ts). In s13 (five
   * methods, 1 ms–1 s), 5-seed means, uniform / reference layout: ping
   * 92 → 34 / 92 → 59 ms, List 222 → 138 / 182 → 139 (docs/tuning-log.md
   * §22). With one method, or without the interceptor, choiceCount
   * always (bit-identical). Set it to choiceCount to turn it off.
   */
  mixedChoiceCount: 10,
  /**
   * What ejectionRatio judges: "mean", a moving average of the endpoint's
   * answers that only a probe resets (core/ejection.ts). Alone it missed
   * the reference layout's recovery target (s04 5-seed mean 6.0 s) by
   * overshooting onto a healed pod; with the rotation beside it recovery
   * is 3.9 / 3.6 / 4.0 s (worst 4) over 10 seeds (docs/tuning-log.md §12, §14).
   */
  ejectionSignal: 'mean' as EjectionSignal,
  /**
   * Slow start (core/slow-start.ts): for 10 s after its first call ends, an
   * endpoint that joins a running fleet is not ejected for its latency and
   * takes the turns its mean loses with weight (F / its latency)², so a pod
   * that warms up with work (a JVM, cold caches) gets the work, and one
   * that is simply slow little of it (docs/tuning-log.md §57). The regime
   * grid has no joiners and is unchanged. "0s" = off.
   */
  slowStartMs: 10_000,
} as const;

export const METHOD_SCORINGS: readonly MethodScoring[] = ['off', 'latency', 'work'];
export const EJECTION_SIGNALS: readonly EjectionSignal[] = ['peak', 'mean'];
export const DECAY_TARGETS: readonly DecayTarget[] = ['zero', 'fleet'];

export const PEAK_EWMA_LIMITS = {
  maxDecayMs: 3_600_000,
  maxDefaultRttMs: 60_000,
  maxPenaltyValue: 1e12,
  maxErrorPenaltyFactor: 1_000,
  maxFleetPenaltyExponent: 10,
  maxEjectionRatio: 1_000,
  maxEjectionPercent: 100,
  maxEjectionMs: 3_600_000,
  maxRotationMargin: 1,
  maxRotationGate: 1_000,
  maxProbeBackoff: 1_000,
  maxDecayFairShares: 1_000_000,
  maxSlowStartMs: 3_600_000,
} as const;

/**
 * The fields toJsonObject writes only when the config gave them or they
 * differ from PEAK_EWMA_DEFAULTS, in this order (the durations after them).
 */
const WRITTEN_WHEN_SET = [
  'methodScoring',
  'mixedChoiceCount',
  'rotationMargin',
  'rotationGate',
  'maxProbeBackoff',
  'decayFairShares',
  'pendingAware',
  'fleetPenaltyExponent',
  'ejectionRatio',
  'maxEjectionPercent',
  'ejectionSignal',
  'decayToward',
] as const;

/** The duration fields written the same way, each with the setting (ms, 0 = off) it is read into. */
const DURATIONS_WRITTEN_WHEN_SET = [
  ['maxEjectionTime', 'maxEjectionMs'],
  ['slowStartWindow', 'slowStartMs'],
] as const;

export class PeakEwmaLoadBalancingConfig implements EndpointPickingConfig {
  readonly countsStreams = false;
  readonly settings: PeakEwmaSettings;

  /** The JSON fields the config named; not part of its value (two configs with the same settings are equal). */
  readonly #givenFields: ReadonlySet<string>;

  /**
   * `givenFields`: the JSON fields the config named (parse() passes them),
   * so that toJsonObject writes a value given equal to our default too.
   */
  constructor(
    readonly choiceCount: number = PEAK_EWMA_DEFAULTS.choiceCount,
    settings: Partial<PeakEwmaSettings> = {},
    givenFields: ReadonlySet<string> = new Set(),
  ) {
    this.#givenFields = givenFields;
    this.settings = {
      decayMs: settings.decayMs ?? PEAK_EWMA_DEFAULTS.decayMs,
      defaultRttMs: settings.defaultRttMs ?? PEAK_EWMA_DEFAULTS.defaultRttMs,
      penaltyValue: settings.penaltyValue ?? PEAK_EWMA_DEFAULTS.penaltyValue,
      errorPenaltyFactor: settings.errorPenaltyFactor ?? PEAK_EWMA_DEFAULTS.errorPenaltyFactor,
      fleetPenaltyExponent: settings.fleetPenaltyExponent ?? PEAK_EWMA_DEFAULTS.fleetPenaltyExponent,
      ejectionRatio: settings.ejectionRatio ?? PEAK_EWMA_DEFAULTS.ejectionRatio,
      maxEjectionPercent: settings.maxEjectionPercent ?? PEAK_EWMA_DEFAULTS.maxEjectionPercent,
      maxEjectionMs: settings.maxEjectionMs ?? PEAK_EWMA_DEFAULTS.maxEjectionMs,
      pendingAware: settings.pendingAware ?? PEAK_EWMA_DEFAULTS.pendingAware,
      probeFairShares: settings.probeFairShares ?? PEAK_EWMA_DEFAULTS.probeFairShares,
      maxProbeBackoff: settings.maxProbeBackoff ?? PEAK_EWMA_DEFAULTS.maxProbeBackoff,
      rotationMargin: settings.rotationMargin ?? PEAK_EWMA_DEFAULTS.rotationMargin,
      rotationGate: settings.rotationGate ?? PEAK_EWMA_DEFAULTS.rotationGate,
      decayToward: settings.decayToward ?? PEAK_EWMA_DEFAULTS.decayToward,
      decayFairShares: settings.decayFairShares ?? PEAK_EWMA_DEFAULTS.decayFairShares,
      methodScoring: settings.methodScoring ?? PEAK_EWMA_DEFAULTS.methodScoring,
      mixedChoiceCount: settings.mixedChoiceCount ?? PEAK_EWMA_DEFAULTS.mixedChoiceCount,
      ejectionSignal: settings.ejectionSignal ?? PEAK_EWMA_DEFAULTS.ejectionSignal,
      slowStartMs: settings.slowStartMs ?? PEAK_EWMA_DEFAULTS.slowStartMs,
    };
  }

  getLoadBalancerName(): string {
    return PEAK_EWMA_POLICY_NAME;
  }

  toJsonObject(): object {
    return {
      [PEAK_EWMA_POLICY_NAME]: {
        choiceCount: this.choiceCount,
        decayTime: msToDurationString(this.settings.decayMs),
        defaultRtt: msToDurationString(this.settings.defaultRttMs),
        penaltyValue: this.settings.penaltyValue,
        errorPenaltyFactor: this.settings.errorPenaltyFactor,
        ...this.fieldsSet(),
      },
    };
  }

  /**
   * The other fields, where the config gave them or they differ from our
   * defaults. This JSON is what another copy of this package reads the config
   * from (foreign-config.ts), with its own defaults, which may not be ours: a
   * value given equal to our default is written so that it is not replaced
   * by the reader's. A field nobody set is left out, so that an older copy is
   * not handed fields it does not know.
   */
  private fieldsSet(): Record<string, number | string | boolean> {
    const fields: Record<string, number | string | boolean> = {};
    const isSet = (field: string, value: unknown, defaultValue: unknown) => this.#givenFields.has(field) || value !== defaultValue;
    for (const field of WRITTEN_WHEN_SET) {
      const value = this.settings[field];
      if (value !== undefined && isSet(field, value, PEAK_EWMA_DEFAULTS[field])) {
        fields[field] = value;
      }
    }
    for (const [field, setting] of DURATIONS_WRITTEN_WHEN_SET) {
      const ms = this.settings[setting];
      if (isSet(field, ms, PEAK_EWMA_DEFAULTS[setting])) {
        fields[field] = ms! > 0 ? msToDurationString(ms!) : '0s';
      }
    }
    return fields;
  }

  createModel(): LoadModel {
    return new PeakEwmaModel(this.settings);
  }

  configure(engine: LoadBalancingEngine): void {
    engine.choiceCount = this.choiceCount;
    if (engine.model instanceof PeakEwmaModel) {
      engine.model.settings = this.settings;
    } else {
      engine.model = this.createModel();
    }
  }

  static createFromJson(obj: unknown): PeakEwmaLoadBalancingConfig {
    return createFromJsonReporting(PEAK_EWMA_POLICY_NAME, obj, PeakEwmaLoadBalancingConfig.parse);
  }

  /** Like createFromJson, without logging. */
  static parse(obj: unknown): PeakEwmaLoadBalancingConfig {
    const name = PEAK_EWMA_POLICY_NAME;
    const fields = requireObject(name, obj);
    return new PeakEwmaLoadBalancingConfig(readChoiceCount(name, fields), {
      decayMs: readDurationMs(name, fields, 'decayTime', PEAK_EWMA_DEFAULTS.decayMs, PEAK_EWMA_LIMITS.maxDecayMs),
      defaultRttMs: readDurationMs(
        name,
        fields,
        'defaultRtt',
        PEAK_EWMA_DEFAULTS.defaultRttMs,
        PEAK_EWMA_LIMITS.maxDefaultRttMs,
      ),
      penaltyValue: readNumber(name, fields, 'penaltyValue', PEAK_EWMA_DEFAULTS.penaltyValue, {
        min: 0,
        minExclusive: true,
        max: PEAK_EWMA_LIMITS.maxPenaltyValue,
      }),
      errorPenaltyFactor: readNumber(name, fields, 'errorPenaltyFactor', PEAK_EWMA_DEFAULTS.errorPenaltyFactor, {
        min: 1,
        max: PEAK_EWMA_LIMITS.maxErrorPenaltyFactor,
      }),
      fleetPenaltyExponent: readOffOrUpTo(name, fields, 'fleetPenaltyExponent', PEAK_EWMA_LIMITS.maxFleetPenaltyExponent),
      ejectionRatio: readEjectionRatio(name, fields),
      maxEjectionPercent: readNumber(name, fields, 'maxEjectionPercent', PEAK_EWMA_DEFAULTS.maxEjectionPercent, {
        min: 0,
        max: PEAK_EWMA_LIMITS.maxEjectionPercent,
      }),
      maxEjectionMs: readDurationMs(
        name,
        fields,
        'maxEjectionTime',
        PEAK_EWMA_DEFAULTS.maxEjectionMs,
        PEAK_EWMA_LIMITS.maxEjectionMs,
        true, // "0s" turns the probe bound off
      ),
      pendingAware: readBoolean(name, fields, 'pendingAware', PEAK_EWMA_DEFAULTS.pendingAware),
      rotationMargin: readOffOrUpTo(name, fields, 'rotationMargin', PEAK_EWMA_LIMITS.maxRotationMargin),
      rotationGate: readOffOrUpTo(name, fields, 'rotationGate', PEAK_EWMA_LIMITS.maxRotationGate),
      decayToward: readEnum(name, fields, 'decayToward', DECAY_TARGETS, PEAK_EWMA_DEFAULTS.decayToward),
      maxProbeBackoff: readOffOrUpTo(name, fields, 'maxProbeBackoff', PEAK_EWMA_LIMITS.maxProbeBackoff),
      decayFairShares: readOffOrUpTo(name, fields, 'decayFairShares', PEAK_EWMA_LIMITS.maxDecayFairShares),
      methodScoring: readEnum(name, fields, 'methodScoring', METHOD_SCORINGS, PEAK_EWMA_DEFAULTS.methodScoring),
      mixedChoiceCount: readChoiceCount(name, fields, 'mixedChoiceCount', PEAK_EWMA_DEFAULTS.mixedChoiceCount),
      ejectionSignal: readEnum(name, fields, 'ejectionSignal', EJECTION_SIGNALS, PEAK_EWMA_DEFAULTS.ejectionSignal),
      slowStartMs: readDurationMs(
        name,
        fields,
        'slowStartWindow',
        PEAK_EWMA_DEFAULTS.slowStartMs,
        PEAK_EWMA_LIMITS.maxSlowStartMs,
        true, // "0s" turns slow start off
      ),
    }, givenFieldsOf(fields));
  }
}

/**
 * Which of the fields toJsonObject may leave out `fields` gives a value, by
 * either spelling (null means "the default", as if absent). Only these are
 * read: the unknown-field check counts every key read as known.
 */
function givenFieldsOf(fields: Record<string, unknown>): ReadonlySet<string> {
  const optional = [...WRITTEN_WHEN_SET, ...DURATIONS_WRITTEN_WHEN_SET.map(([field]) => field)];
  return new Set(optional.filter((field) => readField(PEAK_EWMA_POLICY_NAME, fields, field) !== undefined));
}

/** A knob that 0 turns off: a number in [0, max], defaulting to PEAK_EWMA_DEFAULTS. */
function readOffOrUpTo(
  name: string,
  fields: Record<string, unknown>,
  field: 'fleetPenaltyExponent' | 'rotationMargin' | 'rotationGate' | 'maxProbeBackoff' | 'decayFairShares',
  max: number,
): number {
  return readNumber(name, fields, field, PEAK_EWMA_DEFAULTS[field], { min: 0, max });
}

/** ejectionRatio: 0 (off) or a ratio of at least 1. */
function readEjectionRatio(name: string, fields: Record<string, unknown>): number {
  const ratio = readNumber(name, fields, 'ejectionRatio', PEAK_EWMA_DEFAULTS.ejectionRatio, {
    min: 0,
    max: PEAK_EWMA_LIMITS.maxEjectionRatio,
  });
  if (ratio !== 0 && ratio < 1) {
    throw new ConfigError(name, 'ejectionRatio', `must be 0 (off) or at least 1, got ${ratio}`);
  }
  return ratio;
}

function readBoolean(name: string, fields: Record<string, unknown>, field: string, defaultValue: boolean): boolean {
  const value = readField(name, fields, field);
  if (value === undefined) {
    return defaultValue;
  }
  if (typeof value !== 'boolean') {
    throw new ConfigError(name, field, `must be true or false, got ${describe(value)}`);
  }
  return value;
}
