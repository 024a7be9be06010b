/**
 * `--retry-attempts`: the load test's callers retry UNAVAILABLE (gRFC A6),
 * each attempt picked afresh by the policy under test. Real grpc-js servers
 * on loopback, the bench's own channel (probe-channel.ts).
 */
import { status } from '@grpc/grpc-js';
import { parseArgs } from '../../scripts/bench/args';
import { newProbeClient } from '../../scripts/bench/probe-channel';
import { serviceConfigJson } from '../../scripts/bench/policies';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../src';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { runTraffic } from '../support/traffic';

register();

const CALLS = 60;

describe('callers that retry (--retry-attempts)', () => {
  let backends: TestBackend[];

  beforeAll(async () => {
    backends = await startBackends(2, 'r');
    backends[0].behaviour.failWith = status.UNAVAILABLE;
  });
  afterAll(() => stopBackends(backends));

  async function run(label: string, retryAttempts?: number) {
    for (const backend of backends) {
      backend.calls = 0;
    }
    const client = newProbeClient(
      { policy: 'peak_ewma', addresses: backends.map((b) => b.address), dynamicAddresses: false, timeFactor: 1, ...(retryAttempts ? { retryAttempts } : {}) },
      { [STATS_LABEL_OPTION]: label },
    );
    try {
      const result = await runTraffic(client, { concurrency: 1, maxCalls: CALLS, maxDurationMs: 30_000 });
      const attempts = backends[0].calls + backends[1].calls;
      // Read while the channel is open: a closed channel's balancer reports nothing.
      const policy = getLoadBalancerStats().find((s) => s.label === label)?.policy;
      return { result, attempts, failingCalls: backends[0].calls, policy };
    } finally {
      client.close();
    }
  }

  it('retries a call the failing backend refused on the other one, through peak_ewma', async () => {
    const once = await run('no-retry');
    // Without retries every call that reached the failing backend failed.
    expect(once.failingCalls).toBeGreaterThan(0);
    expect(once.result.failures.length).toBe(once.failingCalls);
    expect(once.attempts).toBe(CALLS);

    const retried = await run('retry-3', 3);
    // Each refused attempt was retried: more attempts than calls, and a call
    // fails only if all three of its attempts met the failing backend.
    expect(retried.failingCalls).toBeGreaterThan(0);
    expect(retried.attempts).toBe(CALLS + retried.failingCalls - retried.result.failures.length);
    expect(retried.result.failures.length).toBeLessThan(retried.failingCalls);
    for (const failure of retried.result.failures) {
      expect(failure.code).toBe(status.UNAVAILABLE);
    }
    // Our policy placed the attempts, not a silent pick_first.
    expect(once.policy).toBe('peak_ewma_experimental');
    expect(retried.policy).toBe('peak_ewma_experimental');
  });

  it('writes a retry policy for every method only when asked, and keeps such runs out of the report', () => {
    expect(JSON.parse(serviceConfigJson('least_request', 1)).methodConfig).toBeUndefined();
    expect(JSON.parse(serviceConfigJson('least_request', 1, undefined, 4)).methodConfig).toEqual([
      expect.objectContaining({ name: [{}], retryPolicy: expect.objectContaining({ maxAttempts: 4, retryableStatusCodes: ['UNAVAILABLE'] }) }),
    ]);
    expect(parseArgs(['--retry-attempts', '3']).retryAttempts).toBe(3);
    expect(() => parseArgs(['--retry-attempts', '6'])).toThrow(/--retry-attempts must be a whole number from 2 to 5/);
    expect(() => parseArgs(['--retry-attempts', '1'])).toThrow(/from 2 to 5/);
    expect(() => parseArgs(['--retry-attempts', '3', '--report'])).toThrow(/--retry-attempts measures callers that retry/);
  });
});
