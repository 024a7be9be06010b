/**
 * Which gRPC method each of a workload's methods is sent on.
 *
 * A workload of one method goes on `/loadtest.Probe/Call`, as the load test
 * always sent it. A workload of several sends each on a path of its own,
 * `/loadtest.Probe/<name>` (e.g. `/loadtest.Probe/U5_cheap`), so a channel
 * with the `callMarker` interceptor tells the picker which method a call is,
 * as a user's channel does, and per-method scoring (`methodScoring`) has
 * something to score. The service time still comes from the request body
 * (probe-request.ts): the path is the method's name, the backend model is the
 * simulator's (scripts/model) either way.
 */
import { probePath } from '../lib/probe-service';
import type { MethodSpec } from '../model';
import type { MethodGroup } from './load-recorder';

/** The method the load test always sent: a one-method workload stays on it. */
export const SINGLE_METHOD_NAME = 'Call';

/**
 * The method groups of a workload: one per method when there are several,
 * none for one method (it stays on Call, unrecorded per method: its group
 * would be the all-calls figures again). Names must differ: two methods of
 * one name would share a path and a histogram.
 */
export function methodGroups(methods: readonly MethodSpec[]): string[] {
  if (methods.length <= 1) {
    return [];
  }
  const names = methods.map((m) => m.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) {
    throw new RangeError(`method mix: method name "${repeated}" appears twice; each method needs a name of its own`);
  }
  return names;
}

/** The path each method is sent on, in the order of `methods`. */
export function methodPaths(methods: readonly MethodSpec[]): string[] {
  const groups = methodGroups(methods);
  return groups.length === 0 ? methods.map(() => probePath(SINGLE_METHOD_NAME)) : groups.map(probePath);
}

/** The method groups a run's recorder keeps apart, each with its method's deadline. */
export function recordedMethodGroups(methods: readonly MethodSpec[]): MethodGroup[] {
  const groups = methodGroups(methods);
  return methods.filter((m) => groups.includes(m.name)).map((m) => ({ name: m.name, deadlineMs: m.deadlineMs }));
}
