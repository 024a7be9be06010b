/**
 * The tests' resolver (scripts/lib/manual-resolver.ts) answers re-resolution
 * requests at most every 250 ms. pick_first asks for one at every address
 * update while an endpoint's connection is refused, so a resolver that
 * answered each at once fed the channel 15-20 thousand updates a second
 * while a backend was down (round_robin alike), and the e2e tests that stop
 * backends measured shares and timings beside that spin. Found by a cold
 * review (2026-12-07). Real grpc-js client and servers on 127.0.0.1.
 */
import { credentials } from '@grpc/grpc-js';
import { PEAK_EWMA_POLICY_NAME, PeakEwmaLoadBalancer, register } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { ManualTarget } from '../../scripts/lib/manual-resolver';
import { TestBackend } from '../support/backends';
import { sleep } from '../support/wait';

register();

it('a stopped backend makes the channel re-resolve a few times a second, not in a loop; a push still lands at once', async () => {
  let updates = 0;
  const original = PeakEwmaLoadBalancer.prototype.updateAddressList;
  PeakEwmaLoadBalancer.prototype.updateAddressList = function (this: PeakEwmaLoadBalancer, ...args: Parameters<typeof original>) {
    updates++;
    return original.apply(this, args);
  };
  const up = await new TestBackend('up').start();
  const down = await new TestBackend('down').start();
  const target = new ManualTarget('manual-resolver-resend');
  target.setEndpoints([up.address, down.address]);
  const client = createProbeClient(target.target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [PEAK_EWMA_POLICY_NAME]: {} }] }),
  });
  try {
    await callOnce(client, 2_000);
    // Our balancer took the list (the policy ran, not a pick_first fallback).
    expect(updates).toBeGreaterThanOrEqual(1);
    down.stop();
    await sleep(500);
    const before = updates;
    await sleep(1_000);
    const perSecond = updates - before;
    // Still answered (about 4 a second), never in a loop (16,204 a second before).
    expect(perSecond).toBeGreaterThanOrEqual(1);
    expect(perSecond).toBeLessThanOrEqual(10);
    const beforePush = updates;
    target.setEndpoints([up.address]);
    expect(updates).toBe(beforePush + 1);
  } finally {
    client.close();
    up.stop();
    target.release();
    PeakEwmaLoadBalancer.prototype.updateAddressList = original;
  }
});
