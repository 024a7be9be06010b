/**
 * What an RPC is told when nothing can serve it. The status must say what
 * failed, once: the endpoints' connection error (not wrapped in a second
 * "No connection established. Last error:"), and a later resolver error too
 * (grpc-go surfaces it; before, it never reached the RPCs while the
 * endpoints were in TRANSIENT_FAILURE).
 */
import { credentials, ServiceError, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, PEAK_EWMA_POLICY_NAME, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { ManualTarget } from '../../scripts/lib/manual-resolver';
import { startBackends, stopBackends } from '../support/backends';
import { sleep } from '../support/traffic';

register();

const occurrences = (text: string, part: string) => text.split(part).length - 1;

async function failedCall(client: ReturnType<typeof createProbeClient>): Promise<ServiceError> {
  try {
    await callOnce(client, 5_000);
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('the call succeeded with no endpoint up');
}

describe('the status of a call nothing can serve', () => {
  it('names the connection error once, and a later resolver error as well', async () => {
    // Two ports nobody listens on any more: connections are refused.
    const gone = await startBackends(2);
    const addresses = gone.map((backend) => backend.address);
    stopBackends(gone);
    const label = 'failure-status';
    const target = new ManualTarget(label);
    target.setEndpoints(addresses);
    const client = createProbeClient(target.target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [PEAK_EWMA_POLICY_NAME]: {} }] }),
      [STATS_LABEL_OPTION]: label,
    });
    try {
      const first = await failedCall(client);
      expect(first.code).toBe(status.UNAVAILABLE);
      expect(getLoadBalancerStats().find((s) => s.label === label)!.state).toBe('TRANSIENT_FAILURE');
      expect(first.details).toMatch(/^peak_ewma_experimental: No connection established\. Last error: .*ECONNREFUSED/);
      expect(occurrences(first.details, 'No connection established')).toBe(1);

      target.fail('DNS server said SERVFAIL');
      await sleep(100);
      const second = await failedCall(client);
      expect(second.code).toBe(status.UNAVAILABLE);
      expect(second.details).toContain('DNS server said SERVFAIL');
      expect(second.details).toContain('ECONNREFUSED');
      expect(occurrences(second.details, 'No connection established')).toBe(1);

      // A good resolution again: the resolver error is history.
      target.setEndpoints(addresses);
      await sleep(100);
      const third = await failedCall(client);
      expect(third.details).not.toContain('SERVFAIL');
    } finally {
      client.close();
      target.release();
    }
  });
});
