/**
 * What the shared balancer needs from a policy's config: how many candidates
 * to compare, which cost model, whether streams count.
 */
import { experimental, logVerbosity } from '@grpc/grpc-js';
import { LoadModel } from '../core/load-model';
import { LoadBalancingEngine } from '../core/engine';
import { ConfigError } from './config-fields';

/** What both policies' config classes provide to the shared balancer. */
export interface EndpointPickingConfig extends experimental.TypedLoadBalancingConfig {
  /** Candidates compared per pick; Infinity compares all. */
  readonly choiceCount: number;
  /** Whether calls marked as streams count as outstanding. */
  readonly countsStreams: boolean;
  createModel(): LoadModel;
  /** Applies this config to a live engine, keeping per-endpoint state. */
  configure(engine: LoadBalancingEngine): void;
}

/**
 * grpc-js swallows a policy's parse error and falls back to another policy
 * (pick_first, at the end of the list) logging only at DEBUG. Say it at ERROR,
 * which grpc-js prints by default.
 */
export function reportConfigError(error: Error): void {
  experimental.log(
    logVerbosity.ERROR,
    `grpc-js-peak-ewma: rejected load balancing config: ${error.message} ` +
      '(a channel uses the next policy in its list, or pick_first; an xDS client NACKs the cluster)',
  );
}

/**
 * Parses with `parse`, logging a rejection; the error thrown leaves out the
 * policy name, which grpc-js's parseLoadBalancingConfig prefixes itself.
 */
export function createFromJsonReporting<T>(obj: unknown, parse: (obj: unknown) => T): T {
  try {
    return parse(obj);
  } catch (error) {
    reportConfigError(error as Error);
    throw error instanceof ConfigError ? new Error(error.detail) : error;
  }
}
