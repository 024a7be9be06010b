/** What a churn soak run measured, and which of it counts as a violation. */
import type { SourceKind } from './address-sources';
import type { ChurnMode } from './churn-backends';

export interface FailureRecord {
  readonly code: string;
  readonly details: string;
  readonly peer: string;
}

export interface ChurnReport {
  readonly mode: ChurnMode;
  readonly source: SourceKind;
  readonly durationMs: number;
  readonly ticks: number;
  readonly endpointsAdded: number;
  readonly endpointsRemoved: number;
  readonly endpointsCrashed: number;
  readonly rpcsSent: number;
  readonly rpcsOk: number;
  /** Failures the mode allows: calls sent to a crashed backend, ending after its crash. */
  readonly allowedFailures: number;
  /** Of those, calls started after the crash, before the client had noticed it. */
  readonly allowedStartedAfterCrash: number;
  readonly unexpectedFailures: number;
  /** The first few unexpected failures. */
  readonly unexpectedSamples: FailureRecord[];
  /** Updates the balancer showed only after polling (EDS: the ADS round trip). */
  readonly lateStatsUpdates: number;
  /** Updates after which the stats never listed exactly the published endpoints (within the source's settle time). */
  readonly statsMismatches: number;
  /** Outstanding counts below zero or below the server's count. */
  readonly outstandingViolations: number;
  readonly violationSamples: string[];
  readonly outstandingSamples: number;
  readonly maxOutstandingTotal: number;
  /** At rest (traffic stopped, all calls ended). */
  readonly balancersAtRest: number;
  readonly outstandingAtRest: number[];
  readonly endpointsAtRest: number;
  readonly distinctBackendsServed: number;
  /** Forced-GC heapUsed once connected and at rest, bytes (null without a probe). */
  readonly heapBeforeBytes: number | null;
  readonly heapAfterBytes: number | null;
}

/** Violations a report shows, as sentences; empty if the soak passed. */
export function violationsOf(report: ChurnReport): string[] {
  const problems: string[] = [];
  if (report.unexpectedFailures > 0) {
    problems.push(
      `${report.unexpectedFailures} RPCs failed that ${report.mode} removal does not allow: ${JSON.stringify(report.unexpectedSamples)}`,
    );
  }
  if (report.statsMismatches > 0) {
    problems.push(`${report.statsMismatches} updates after which the stats did not list exactly the published endpoints`);
  }
  if (report.outstandingViolations > 0) {
    problems.push(`${report.outstandingViolations} outstanding-count violations: ${report.violationSamples.join('; ')}`);
  }
  if (report.balancersAtRest !== 1) problems.push(`${report.balancersAtRest} balancers at rest, expected 1`);
  if (report.outstandingAtRest.some((count) => count !== 0)) {
    problems.push(`outstanding at rest not all zero: ${report.outstandingAtRest}`);
  }
  if (report.endpointsAtRest !== report.endpointsAdded - report.endpointsRemoved) {
    problems.push(`${report.endpointsAtRest} endpoints in stats at rest, expected ${report.endpointsAdded - report.endpointsRemoved}`);
  }
  if (report.rpcsOk === 0) problems.push('no traffic got through');
  return problems;
}
