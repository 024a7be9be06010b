/**
 * Unary Probe calls observed from the client: the outcome, the peer the call
 * went to (so a failure can be blamed on one backend), and how long it took.
 * Plus polling helpers and stats lookups by channel label.
 */
import { ClientUnaryCall, Metadata, ServiceError, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, STATS_LABEL_OPTION } from '../../../src';
import type { BalancerStats, EndpointStats } from '../../../src';
import { ProbeClient } from '../../../scripts/lib/probe-service';

export interface ObservedCall {
  /** The serving backend's id on success. */
  readonly servedBy: string | null;
  readonly error: ServiceError | null;
  /** host:port the call was sent to, or the channel target if it never reached a subchannel. */
  readonly peer: string;
  readonly elapsedMs: number;
}

export interface ObservedCallHandle {
  readonly call: ClientUnaryCall;
  readonly done: Promise<ObservedCall>;
}

/** Starts one unary call; `done` always resolves. */
export function startCall(client: ProbeClient, deadlineMs: number, payload = Buffer.alloc(0)): ObservedCallHandle {
  const startedAt = performance.now();
  let resolveDone!: (observed: ObservedCall) => void;
  const done = new Promise<ObservedCall>((resolve) => (resolveDone = resolve));
  const call: ClientUnaryCall = client.call(payload, new Metadata(), { deadline: Date.now() + deadlineMs }, (error, response) => {
    resolveDone({
      servedBy: error ? null : response!.toString('utf8'),
      error: error ?? null,
      peer: call.getPeer(),
      elapsedMs: performance.now() - startedAt,
    });
  });
  return { call, done };
}

export function observeCall(client: ProbeClient, deadlineMs: number): Promise<ObservedCall> {
  return startCall(client, deadlineMs).done;
}

export { sleep, waitFor } from '../../support/wait';

/** The one live balancer of ours on the channel labelled `label`. */
export function statsFor(label: string): BalancerStats {
  const found = getLoadBalancerStats().filter((stats) => stats.label === label);
  if (found.length !== 1) {
    throw new Error(`expected one balancer labelled ${label}, found ${found.length}`);
  }
  return found[0];
}

export function endpointStats(label: string, address: string): EndpointStats {
  const endpoint = statsFor(label).endpoints.find((candidate) => candidate.address === address);
  if (!endpoint) {
    throw new Error(`no endpoint ${address} in balancer ${label}`);
  }
  return endpoint;
}

/** Channel options: a stats label, and reconnect backoff short enough for tests. */
export function channelOptions(label: string): Record<string, string | number> {
  return {
    [STATS_LABEL_OPTION]: label,
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 500,
  };
}

export function codeName(code: status | undefined): string {
  return code === undefined ? 'OK' : status[code];
}
