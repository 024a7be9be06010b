/**
 * Closed-loop unary traffic for e2e tests: `concurrency` workers each call,
 * wait for the answer, and call again, until stopped. Counts who served each
 * call and keeps every failure.
 */
import { ServiceError } from '@grpc/grpc-js';
import { callOnce, ProbeClient } from '../../../scripts/lib/probe-service';

export interface TrafficSummary {
  ok: number;
  failures: string[];
  servedBy: Map<string, number>;
}

export class Traffic {
  private stopped = false;
  private readonly workers: Promise<void>[];
  readonly summary: TrafficSummary = { ok: 0, failures: [], servedBy: new Map() };

  /** Stops by itself after `maxMs` at the latest, so a forgotten stop() can't hang a test run. */
  constructor(
    private readonly client: ProbeClient,
    concurrency = 4,
    private readonly deadlineMs = 5_000,
    maxMs = 60_000,
  ) {
    const endAt = Date.now() + maxMs;
    this.workers = Array.from({ length: concurrency }, () => this.work(endAt));
  }

  private async work(endAt: number): Promise<void> {
    while (!this.stopped && Date.now() < endAt) {
      try {
        const backend = await callOnce(this.client, this.deadlineMs);
        this.summary.ok++;
        this.summary.servedBy.set(backend, (this.summary.servedBy.get(backend) ?? 0) + 1);
      } catch (error) {
        const serviceError = error as ServiceError;
        this.summary.failures.push(`${serviceError.code}: ${serviceError.details ?? serviceError.message}`);
      }
    }
  }

  /** Calls completed so far (ok + failed). */
  get completed(): number {
    return this.summary.ok + this.summary.failures.length;
  }

  /** Resolves once `count` more calls have completed (bounded by `timeoutMs`). */
  async moreCalls(count: number, timeoutMs = 10_000): Promise<void> {
    const target = this.completed + count;
    const endAt = Date.now() + timeoutMs;
    while (this.completed < target) {
      if (Date.now() > endAt) {
        throw new Error(`only ${this.completed - (target - count)} of ${count} calls completed in ${timeoutMs} ms`);
      }
      await sleep(10);
    }
  }

  async stop(): Promise<TrafficSummary> {
    this.stopped = true;
    await Promise.all(this.workers);
    return this.summary;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns a value other than undefined (bounded). */
export async function eventually<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const endAt = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > endAt) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(20);
  }
}
