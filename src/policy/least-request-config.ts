/**
 * Service-config for `least_request_experimental` (gRFC A48):
 *
 *   { "least_request_experimental": { "choiceCount": 2, "selectionMethod": "N_CHOICES" } }
 *
 * `selectionMethod` carries Envoy LeastRequest's field: "N_CHOICES" (power of
 * choiceCount choices, the default) or "FULL_SCAN" (compare every endpoint).
 */
import { LoadBalancingEngine } from '../core/engine';
import { leastRequestModel } from '../core/least-request-model';
import { LoadModel } from '../core/load-model';
import { ConfigError, readChoiceCount, readEnum, requireObject } from './config-fields';
import { createFromJsonReporting, EndpointPickingConfig } from './endpoint-picking-config';

/** The policy's name in a service config's `loadBalancingConfig`. */
export const LEAST_REQUEST_POLICY_NAME = 'least_request_experimental';

/** Envoy LeastRequest's `selection_method` values. */
export const SELECTION_METHODS = ['N_CHOICES', 'FULL_SCAN'] as const;
/** `N_CHOICES`: compare `choiceCount` sampled endpoints; `FULL_SCAN`: compare all. */
export type SelectionMethod = (typeof SELECTION_METHODS)[number];

/** A parsed, valid `least_request_experimental` config. Build one with `createFromJson` or `parse`. */
export class LeastRequestLoadBalancingConfig implements EndpointPickingConfig {
  // gRFC A48 counts every call in flight, streams included.
  readonly countsStreams = true;

  /**
   * @param configuredChoiceCount endpoints sampled per pick (2–10) under N_CHOICES
   * @param selectionMethod N_CHOICES or FULL_SCAN
   */
  constructor(
    readonly configuredChoiceCount: number = 2,
    readonly selectionMethod: SelectionMethod = 'N_CHOICES',
  ) {}

  /** Candidates compared per pick: all of them under FULL_SCAN. */
  get choiceCount(): number {
    return this.selectionMethod === 'FULL_SCAN' ? Infinity : this.configuredChoiceCount;
  }

  getLoadBalancerName(): string {
    return LEAST_REQUEST_POLICY_NAME;
  }

  toJsonObject(): object {
    return {
      [LEAST_REQUEST_POLICY_NAME]: {
        choiceCount: this.configuredChoiceCount,
        selectionMethod: this.selectionMethod,
      },
    };
  }

  createModel(): LoadModel {
    return leastRequestModel;
  }

  configure(engine: LoadBalancingEngine): void {
    engine.choiceCount = this.choiceCount;
    engine.model = leastRequestModel;
  }

  /** grpc-js's entry point: parses `obj`, logging a rejection at ERROR (grpc-js itself would not). */
  static createFromJson(obj: unknown): LeastRequestLoadBalancingConfig {
    return createFromJsonReporting(LEAST_REQUEST_POLICY_NAME, obj, LeastRequestLoadBalancingConfig.parse);
  }

  /** Parses the JSON config; throws a {@link ConfigError} naming the field and the rule. */
  static parse(obj: unknown): LeastRequestLoadBalancingConfig {
    const name = LEAST_REQUEST_POLICY_NAME;
    const fields = requireObject(name, obj);
    return new LeastRequestLoadBalancingConfig(
      readChoiceCount(name, fields),
      readEnum(name, fields, 'selectionMethod', SELECTION_METHODS, 'N_CHOICES'),
    );
  }
}
