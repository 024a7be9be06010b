/**
 * The load test's resolver (scripts/bench/fleet-resolver.ts) answers a
 * channel's first resolution and every list the parent sets, and nothing
 * else: a re-resolution request, which pick_first makes while an endpoint's
 * connection is refused, got an answer each time before 2026-12-07, and the
 * answer made the channel ask again at once (s19 spun every client).
 */
import { experimental } from '@grpc/grpc-js';
import { registerFleetResolver, setFleetAddresses } from '../../scripts/bench/fleet-resolver';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the load test fleet resolver', () => {
  beforeAll(() => registerFleetResolver());

  it('answers the first resolution, not the re-resolutions after it; each new list and a wake from idle are answered', async () => {
    setFleetAddresses(['127.0.0.1:1001', '127.0.0.1:1002']);
    const lists: number[] = [];
    const listener: experimental.ResolverListener = (endpoints: experimental.StatusOr<experimental.Endpoint[]>) => {
      lists.push(endpoints.ok ? endpoints.value.length : -1);
      return true;
    };
    const resolver = experimental.createResolver({ scheme: 'bench-fleet', path: '/fleet' }, listener, {});
    resolver.updateResolution();
    await tick();
    expect(lists).toEqual([2]);
    for (let i = 0; i < 100; i++) resolver.updateResolution();
    await tick();
    expect(lists).toEqual([2]);
    setFleetAddresses(['127.0.0.1:1001']);
    expect(lists).toEqual([2, 1]);
    resolver.destroy();
    resolver.updateResolution();
    await tick();
    expect(lists).toEqual([2, 1, 1]);
    resolver.destroy();
  });
});
