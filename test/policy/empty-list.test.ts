/**
 * An empty address list: refused once the balancer has served a list
 * (grpc-js's DNS resolver then keeps resolving by itself, as it does for
 * grpc-java's least_request and grpc-js's own pick_first), accepted as the
 * first list (refusing that would leave the channel without a config, and
 * calls would wait out their deadline). Either way calls fail fast: the
 * balancer publishes TRANSIENT_FAILURE "No addresses resolved". What the
 * choice buys is measured by scripts/bench/empty-answer.ts.
 */
import { connectivityState, experimental, Metadata, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, LEAST_REQUEST_POLICY_NAME, PEAK_EWMA_POLICY_NAME, register } from '../../src';
import { fakeEndpoints, readyChannelHelper } from '../../scripts/bench/fake-channel';

register();

describe.each([PEAK_EWMA_POLICY_NAME, LEAST_REQUEST_POLICY_NAME])('%s and an empty address list', (policy) => {
  let published: { state: connectivityState; picker: experimental.Picker } | null;
  let handler: experimental.ChildLoadBalancerHandler;
  const config = () => experimental.parseLoadBalancingConfig({ [policy]: {} });
  const update = (count: number) =>
    handler.updateAddressList(experimental.statusOrFromValue(fakeEndpoints(count)), config(), {}, 'empty-list test');
  const failsFast = () => {
    expect(published!.state).toBe(connectivityState.TRANSIENT_FAILURE);
    const pick = published!.picker.pick({ metadata: new Metadata(), extraPickInfo: {} });
    expect(pick.pickResultType).toBe(experimental.PickResultType.TRANSIENT_FAILURE);
    expect(pick.status?.code).toBe(status.UNAVAILABLE);
    expect(pick.status?.details).toMatch(new RegExp(`^${policy}: No addresses resolved`));
  };

  beforeEach(() => {
    published = null;
    handler = new experimental.ChildLoadBalancerHandler(
      readyChannelHelper((state, picker) => (published = { state, picker })),
    );
  });
  afterEach(() => handler.destroy());

  it('accepts it as the first list, and fails calls fast', () => {
    expect(update(0)).toBe(true);
    expect(getLoadBalancerStats().some((s) => s.policy === policy && s.state === 'TRANSIENT_FAILURE')).toBe(true);
    failsFast();
  });

  it('refuses it after a served list (the resolver then retries), and still fails calls fast', async () => {
    expect(update(3)).toBe(true);
    for (let i = 0; i < 10 && published?.state !== connectivityState.READY; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(published!.state).toBe(connectivityState.READY);
    expect(update(0)).toBe(false);
    failsFast();
    // Refused again while it stays empty; a list is accepted again.
    expect(update(0)).toBe(false);
    expect(update(2)).toBe(true);
  });
});
