/**
 * An address update over an unchanged list must cost O(n), not O(n²): each
 * reused child re-reports its state while the update runs, and a balancer
 * that rescans every endpoint on each of those reports does n² work, blocking
 * the event loop on every DNS or EDS update (61 ms at 1,000 endpoints, 203 ms
 * at 2,000). Counted, not timed: the number of child-state reads per update.
 * The timing, beside round_robin, is scripts/bench/update-time.ts.
 */
import { connectivityState, experimental } from '@grpc/grpc-js';
import { register } from '../../src';
import { fakeEndpoints, readyChannelHelper } from '../../scripts/bench/fake-channel';

register();

/** Child-state reads (LeafLoadBalancer.getConnectivityState) during one update of an unchanged list of `count` READY endpoints. */
async function stateReadsPerUpdate(policy: string, count: number): Promise<number> {
  let state = connectivityState.IDLE as connectivityState;
  const handler = new experimental.ChildLoadBalancerHandler(readyChannelHelper((published) => (state = published)));
  const config = experimental.parseLoadBalancingConfig({ [policy]: {} });
  const update = () =>
    handler.updateAddressList(experimental.statusOrFromValue(fakeEndpoints(count)), config, {}, 'update-cost test');
  try {
    update();
    for (let i = 0; i < 10 && state !== connectivityState.READY; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(state).toBe(connectivityState.READY);
    const reads = jest.spyOn(experimental.LeafLoadBalancer.prototype, 'getConnectivityState');
    try {
      update();
      await new Promise((resolve) => setImmediate(resolve));
      expect(state).toBe(connectivityState.READY);
      return reads.mock.calls.length;
    } finally {
      reads.mockRestore();
    }
  } finally {
    handler.destroy();
  }
}

describe.each(['peak_ewma_experimental', 'least_request_experimental'])('%s re-resolution cost', (policy) => {
  it('reads each child state a bounded number of times per update (linear in the endpoint count)', async () => {
    const at200 = await stateReadsPerUpdate(policy, 200);
    const at400 = await stateReadsPerUpdate(policy, 400);
    // One scan at the end of the update (n reads today; 2n leaves room),
    // not one scan per child report (n², 40,400 at 200 before the fix).
    expect(at200).toBeGreaterThanOrEqual(200);
    expect(at200).toBeLessThanOrEqual(2 * 200);
    expect(at400).toBeLessThanOrEqual(2 * 400);
  });
});
