/**
 * streamingCallMarker must leave the caller's own Metadata alone: apps build
 * one Metadata (an auth header) and reuse it for every call. Marking that
 * object would make every later unary call with it look like a stream, and
 * peak_ewma would never account it again.
 */
import { Metadata } from '@grpc/grpc-js';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION, streamingCallMarker } from '../../src';
import { callOnce } from '../../scripts/lib/probe-service';
import { isUntimed, markUntimed } from '../../src/policy/streaming';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { clientFor } from '../support/traffic';

register();

const callsStarted = (label: string) =>
  getLoadBalancerStats()
    .find((stats) => stats.label === label)!
    .endpoints.reduce((sum, endpoint) => sum + endpoint.callsStarted, 0);

describe('streamingCallMarker and a Metadata object the caller reuses', () => {
  let backends: TestBackend[];

  beforeAll(async () => {
    backends = await startBackends(2);
  });
  afterAll(() => stopBackends(backends));

  it('accounts all 20 unary calls around one server stream that shares their Metadata', async () => {
    const label = 'shared-md';
    const client = clientFor(backends, [{ peak_ewma_experimental: {} }], {
      [STATS_LABEL_OPTION]: label,
      interceptors: [streamingCallMarker],
    });
    const md = new Metadata();
    md.set('authorization', 'Bearer shared');
    const optionsBefore = md.getOptions();
    try {
      for (let i = 0; i < 10; i++) {
        await callOnce(client, 5_000, md);
      }
      expect(callsStarted(label)).toBe(10);
      await new Promise<void>((resolve, reject) => {
        const stream = client.watch(Buffer.from('50'), md);
        stream.on('data', () => undefined);
        stream.on('status', () => resolve());
        stream.on('error', reject);
      });
      // The stream itself is not accounted (it is marked)...
      expect(callsStarted(label)).toBe(10);
      for (let i = 0; i < 10; i++) {
        await callOnce(client, 5_000, md);
      }
      // ...but the unary calls that reuse its Metadata still are.
      expect(callsStarted(label)).toBe(20);
      expect(md.getOptions()).toBe(optionsBefore);
      expect(isUntimed(md)).toBe(false);
    } finally {
      client.close();
    }
  });
});

/**
 * The marker relies on a grpc-js internal: the Metadata reaching the picker
 * is a clone of the one the interceptor passed on, and Metadata.clone()
 * hands the copy the same options object. If a grpc-js release changes
 * that, these fail instead of streams silently counting as latency.
 */
describe('the grpc-js internal the marker relies on', () => {
  it('Metadata.clone() shares the options object, so a mark survives cloning', () => {
    const marked = new Metadata();
    markUntimed(marked);
    const copy = marked.clone();
    expect(copy.getOptions()).toBe(marked.getOptions());
    expect(isUntimed(copy)).toBe(true);
    expect(isUntimed(new Metadata())).toBe(false);
  });
});
