/**
 * An endpoint removed from the address list and added back while its calls
 * still run (DNS answering a subset of the pods, EDS churn, an empty answer
 * during a redeploy) must come back with its own record: those calls end on
 * it, so a fresh record would show outstanding 0 while they run and the
 * endpoint would draw new calls as if idle.
 */
import { credentials, ServiceError } from '@grpc/grpc-js';
import { getLoadBalancerStats, PEAK_EWMA_POLICY_NAME, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { ManualTarget } from '../../scripts/lib/manual-resolver';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { waitFor } from '../support/wait';

register();

const CALL_MS = 1_500;
const CALLS = 6;

describe.each([
  ['removed from the list', (target: ManualTarget, keep: string) => target.setEndpoints([keep])],
  ['an empty answer', (target: ManualTarget) => target.setEndpoints([])],
])('%s, then added back while its calls run', (_name, remove) => {
  let backends: TestBackend[];
  let target: ManualTarget;

  beforeEach(async () => {
    backends = await startBackendsAnswering([CALL_MS, CALL_MS]);
  });
  afterEach(() => {
    stopBackends(backends);
    target.release();
  });

  it('keeps its in-flight count and its history', async () => {
    const [a, b] = backends.map((backend) => backend.address);
    const label = `readded-${_name.replace(/\W+/g, "-")}`;
    target = new ManualTarget(label);
    target.setEndpoints([a, b]);
    const client = createProbeClient(target.target, credentials.createInsecure(), {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [PEAK_EWMA_POLICY_NAME]: {} }] }),
      [STATS_LABEL_OPTION]: label,
    });
    const endpoint = (address: string) =>
      getLoadBalancerStats()
        .find((s) => s.label === label)!
        .endpoints.find((e) => e.address === address);
    let calls: Promise<string | ServiceError>[] = [];
    try {
      await callOnce(client, 5_000);
      await waitFor('both endpoints READY', () => getLoadBalancerStats().find((s) => s.label === label)!.endpoints.every((e) => e.state === 'READY'));
      calls = Array.from({ length: CALLS }, () => callOnce(client, 10_000).catch((error: ServiceError) => error));
      // Every call has reached its server (was a fixed 300 ms): only then do
      // the server's count and the balancer's agree. Which endpoint takes them
      // is the cost model's business (all on one, most often): the one that
      // holds calls is removed.
      await waitFor('all calls on the servers', () => backends[0].inFlight + backends[1].inFlight === CALLS, CALL_MS);
      const holder = backends.find((backend) => backend.inFlight > 0)!;
      const other = backends.find((backend) => backend !== holder)!;
      const onHolder = holder.inFlight;
      const onOther = other.inFlight;
      expect(endpoint(holder.address)!.outstanding).toBe(onHolder);
      const startedOnHolder = endpoint(holder.address)!.callsStarted;

      // ManualTarget delivers synchronously; waiting on the outcome (was a
      // fixed 100 ms each) also holds if that ever changes.
      remove(target, other.address);
      await waitFor('the holder removed', () => endpoint(holder.address) === undefined);
      target.setEndpoints([a, b]);
      await waitFor('the holder back', () => endpoint(holder.address) !== undefined);
      // Its calls from before the removal are still running, and counted.
      expect(holder.inFlight).toBe(onHolder);
      expect(endpoint(holder.address)!.outstanding).toBe(onHolder);
      expect(endpoint(holder.address)!.callsStarted).toBe(startedOnHolder);

      const results = await Promise.all(calls);
      // Every call ended where it was counted, OK: grpc-js (1.14) lets a removed subchannel's streams
      // finish on their connection. The servers saw each call once (no retry on the way), the warm-up
      // call besides.
      const served = (backend: TestBackend) => results.filter((result) => result === backend.id).length;
      expect(results.filter((result) => typeof result !== 'string').map((error) => (error as ServiceError).code)).toEqual([]);
      expect([served(holder), served(other)]).toEqual([onHolder, onOther]);
      expect(holder.calls + other.calls).toBe(CALLS + 1);
      expect(endpoint(b)!.outstanding).toBe(0);
      expect(endpoint(a)!.outstanding).toBe(0);
    } finally {
      await Promise.all(calls);
      client.close();
    }
  });
});
