/**
 * What the shared balancer needs from a policy's config: how many candidates
 * to compare, which cost model, whether streams count.
 */
import { experimental, logVerbosity } from '@grpc/grpc-js';
import { LoadModel } from '../core/load-model';
import { LoadBalancingEngine } from '../core/engine';
import { describe } from './config-fields';
import { parseNotingUnknownFields, UnknownField } from './unknown-fields';

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
 * Parses `policyName`'s config with `parse`, logging a rejection, and a field
 * the parser does not know (ignored, as gRFC A21 says, but most often a
 * misspelling that leaves a setting at its default). The error thrown leaves
 * out the policy name, which grpc-js's parseLoadBalancingConfig prefixes
 * itself.
 */
export function createFromJsonReporting<T>(policyName: string, obj: unknown, parse: (obj: unknown) => T): T {
  try {
    return parseReportingUnknownFields(policyName, obj, parse);
  } catch (error) {
    reportConfigError(error as Error);
    // grpc-js puts the policy name before the message itself: ours (a ConfigError's, requireObject's) would make it twice.
    const prefix = `${policyName}: `;
    throw error instanceof Error && error.message.startsWith(prefix) ? new Error(error.message.slice(prefix.length)) : error;
  }
}

/** Parses with `parse` (throwing its error), logging each field it does not know once. */
export function parseReportingUnknownFields<T>(policyName: string, obj: unknown, parse: (obj: unknown) => T): T {
  const { value, unknownFields } = parseNotingUnknownFields(obj, parse);
  for (const field of unknownFields) {
    reportUnknownField(policyName, field);
  }
  return value;
}

// (policy, field) pairs already reported: grpc-js parses a channel's config
// again at each resolver update, and one line per process says it.
const reportedUnknownFields = new Set<string>();
const MAX_REPORTED_UNKNOWN_FIELDS = 256;

function reportUnknownField(policyName: string, field: UnknownField): void {
  const key = JSON.stringify([policyName, field.name]);
  if (reportedUnknownFields.has(key) || reportedUnknownFields.size >= MAX_REPORTED_UNKNOWN_FIELDS) {
    return;
  }
  reportedUnknownFields.add(key);
  experimental.log(
    logVerbosity.ERROR,
    `grpc-js-peak-ewma: ${policyName}: field ${describe(field.name)} ${field.rule}, ` +
      'so it is ignored (validateServiceConfig rejects it)',
  );
}
