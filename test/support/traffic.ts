/**
 * Closed-loop traffic for tests: `concurrency` workers each making one unary
 * call after another, bounded by a call count and a time limit, counting who
 * served each call.
 */
import { credentials, Metadata, ServiceError } from '@grpc/grpc-js';
import { callOnce, createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { TestBackend } from './backends';

export interface TrafficOptions {
  concurrency: number;
  /** Stop after this many calls in total... */
  maxCalls: number;
  /** ...or after this long, whichever comes first. */
  maxDurationMs: number;
  deadlineMs?: number;
}

export interface TrafficResult {
  /** OK calls per serving backend id. */
  servedBy: Map<string, number>;
  failures: ServiceError[];
  total: number;
}

export async function runTraffic(client: ProbeClient, options: TrafficOptions): Promise<TrafficResult> {
  const result: TrafficResult = { servedBy: new Map(), failures: [], total: 0 };
  const stopAt = Date.now() + options.maxDurationMs;
  let issued = 0;
  const worker = async () => {
    while (issued < options.maxCalls && Date.now() < stopAt) {
      issued++;
      try {
        const id = await callOnce(client, options.deadlineMs ?? 5_000);
        result.servedBy.set(id, (result.servedBy.get(id) ?? 0) + 1);
      } catch (error) {
        result.failures.push(error as ServiceError);
      }
      result.total++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return result;
}

/** Fraction of OK calls served by `backend`. */
export function shareOf(result: TrafficResult, backend: TestBackend): number {
  const ok = result.total - result.failures.length;
  return ok === 0 ? 0 : (result.servedBy.get(backend.id) ?? 0) / ok;
}

/** A Probe client on a static list of backends with `loadBalancingConfig`. */
export function clientFor(
  backends: readonly TestBackend[],
  loadBalancingConfig: object[],
  extraOptions: Record<string, unknown> = {},
): ProbeClient {
  const target = 'ipv4:' + backends.map((backend) => backend.address).join(',');
  return createProbeClient(target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig }),
    ...extraOptions,
  });
}

/**
 * Sends small batches until one completes without a failure (e.g. once
 * outlier_detection has ejected a failing backend), within `maxDurationMs`.
 * Returns whether that happened, and all failures seen on the way.
 */
export async function trafficUntilClean(
  client: ProbeClient,
  maxDurationMs: number,
): Promise<{ clean: boolean; failuresSeen: number }> {
  const stopAt = Date.now() + maxDurationMs;
  let failuresSeen = 0;
  while (Date.now() < stopAt) {
    const batch = await runTraffic(client, { concurrency: 4, maxCalls: 40, maxDurationMs: 2_000 });
    failuresSeen += batch.failures.length;
    if (batch.failures.length === 0 && batch.total === 40) {
      return { clean: true, failuresSeen };
    }
  }
  return { clean: false, failuresSeen };
}

/**
 * outlier_detection around `childPolicy`, tuned to eject a failing backend
 * within a second of test traffic, for `baseEjectionS` (30 s), once it has
 * `requestVolume` calls (5) in an interval. grpc-js's outlier_detection takes
 * durations only as {seconds, nanos}: "0.3s" would make it fall back to
 * pick_first in silence.
 */
export function fastOutlierDetection(childPolicy: object, { baseEjectionS = 30, requestVolume = 5 } = {}): object {
  return {
    outlier_detection: {
      interval: { seconds: 0, nanos: 300_000_000 },
      base_ejection_time: { seconds: baseEjectionS, nanos: 0 },
      max_ejection_percent: 50,
      failure_percentage_ejection: { threshold: 50, enforcement_percentage: 100, minimum_hosts: 3, request_volume: requestVolume },
      child_policy: [childPolicy],
    },
  };
}

export function emptyMetadata(): Metadata {
  return new Metadata();
}

export { sleep } from './wait';
