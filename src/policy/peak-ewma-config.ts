/**
 * Service-config for `peak_ewma_experimental`:
 *
 *   { "peak_ewma_experimental": { "choiceCount": 2, "decayTime": "10s", "defaultRtt": "0.01s",
 *                                 "penaltyValue": 1000000, "errorPenaltyFactor": 2 } }
 *
 * camelCase is canonical, snake_case accepted; unknown keys are ignored.
 */
import { LoadBalancingEngine } from '../core/engine';
import { LoadModel, PeakEwmaModel, PeakEwmaSettings } from '../core/cost';
import {
  msToDurationString,
  readChoiceCount,
  readDurationMs,
  readNumber,
  requireObject,
} from './config-fields';
import { createFromJsonReporting, EndpointPickingConfig } from './endpoint-picking-config';

export const PEAK_EWMA_POLICY_NAME = 'peak_ewma_experimental';

export const PEAK_EWMA_DEFAULTS = {
  choiceCount: 2,
  /** Finagle's, Envoy's and linkerd's 10 s. */
  decayMs: 10_000,
  /** Envoy's 10 ms. */
  defaultRttMs: 10,
  /** Envoy's 1e6, in cost units (ms × calls). */
  penaltyValue: 1_000_000,
  errorPenaltyFactor: 2,
} as const;

export const PEAK_EWMA_LIMITS = {
  maxDecayMs: 3_600_000,
  maxDefaultRttMs: 60_000,
  maxPenaltyValue: 1e12,
  maxErrorPenaltyFactor: 1_000,
} as const;

export class PeakEwmaLoadBalancingConfig implements EndpointPickingConfig {
  readonly countsStreams = false;
  readonly settings: PeakEwmaSettings;

  constructor(
    readonly choiceCount: number = PEAK_EWMA_DEFAULTS.choiceCount,
    settings: Partial<PeakEwmaSettings> = {},
  ) {
    this.settings = {
      decayMs: settings.decayMs ?? PEAK_EWMA_DEFAULTS.decayMs,
      defaultRttMs: settings.defaultRttMs ?? PEAK_EWMA_DEFAULTS.defaultRttMs,
      penaltyValue: settings.penaltyValue ?? PEAK_EWMA_DEFAULTS.penaltyValue,
      errorPenaltyFactor: settings.errorPenaltyFactor ?? PEAK_EWMA_DEFAULTS.errorPenaltyFactor,
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
      },
    };
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
    return createFromJsonReporting(obj, PeakEwmaLoadBalancingConfig.parse);
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
    });
  }
}
