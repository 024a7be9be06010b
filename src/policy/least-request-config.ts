/**
 * Service-config for `least_request_experimental` (gRFC A48):
 *
 *   { "least_request_experimental": { "choiceCount": 2, "selectionMethod": "N_CHOICES" } }
 *
 * `selectionMethod` carries Envoy LeastRequest's field: "N_CHOICES" (power of
 * choiceCount choices, the default) or "FULL_SCAN" (compare every endpoint).
 */
import { LoadBalancingEngine } from '../core/engine';
import { LoadModel, leastRequestModel } from '../core/cost';
import { readChoiceCount, readEnum, requireObject } from './config-fields';
import { createFromJsonReporting, EndpointPickingConfig } from './endpoint-picking-config';

export const LEAST_REQUEST_POLICY_NAME = 'least_request_experimental';

export const SELECTION_METHODS = ['N_CHOICES', 'FULL_SCAN'] as const;
export type SelectionMethod = (typeof SELECTION_METHODS)[number];

export class LeastRequestLoadBalancingConfig implements EndpointPickingConfig {
  // gRFC A48 counts every call in flight, streams included.
  readonly countsStreams = true;

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

  static createFromJson(obj: unknown): LeastRequestLoadBalancingConfig {
    return createFromJsonReporting(obj, LeastRequestLoadBalancingConfig.parse);
  }

  static parse(obj: unknown): LeastRequestLoadBalancingConfig {
    const name = LEAST_REQUEST_POLICY_NAME;
    const fields = requireObject(name, obj);
    return new LeastRequestLoadBalancingConfig(
      readChoiceCount(name, fields),
      readEnum(name, fields, 'selectionMethod', SELECTION_METHODS, 'N_CHOICES'),
    );
  }
}
