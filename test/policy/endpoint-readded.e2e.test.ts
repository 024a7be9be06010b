/**
 * An endpoint removed from the address list and added back while its calls
 * still run (DNS answering a subset of the pods, EDS churn, an empty answer
 * during a redeploy) must come back with its own record: those calls end on
 * it, so a fresh record would show outstanding 0 while they run and the
 * endpoint would draw new calls as if idle.
 */
import { credentials } from '@grpc/grpc-js';
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
    let calls: Promise<string | Error>[] = [];
    try {
      // Both connected first, so the calls spread over both.
      await callOnce(client, 5_000);
      await waitFor('both endpoints READY', () => getLoadBalancerStats().find((s) => s.label === label)!.endpoints.every((e) => e.state === 'READY'));
      calls = Array.from({ length: CALLS }, () => callOnce(client, 10_000).catch((error: Error) => error));
      // Every call has reached its server (was a fixed 300 ms): only then do
      // the server's count and the balancer's agree.
      await waitFor('all calls on the servers', () => backends[0].inFlight + backends[1].inFlight === CALLS, CALL_MS);
      const onB = backends[1].inFlight;
      expect(onB).toBeGreaterThan(0);
      expect(endpoint(b)!.outstanding).toBe(onB);
      const startedOnB = endpoint(b)!.callsStarted;

      // ManualTarget delivers synchronously; waiting on the outcome (was a
      // fixed 100 ms each) also holds if that ever changes.
      remove(target, a);
      await waitFor('b removed', () => endpoint(b) === undefined);
      target.setEndpoints([a, b]);
      await waitFor('b back', () => endpoint(b) !== undefined);
      // Its calls from before the removal are still running, and counted.
      expect(backends[1].inFlight).toBe(onB);
      expect(endpoint(b)!.outstanding).toBe(onB);
      expect(endpoint(b)!.callsStarted).toBe(startedOnB);

      const results = await Promise.all(calls);
      const stillOk = results.filter((r) => typeof r === 'string');
      // Calls may or may not survive the removal (that is grpc-js's business);
      // whichever way each ended, it ended on the record that counted it.
      expect(stillOk.length + results.filter((r) => r instanceof Error).length).toBe(CALLS);
      expect(endpoint(b)!.outstanding).toBe(0);
      expect(endpoint(a)!.outstanding).toBe(0);
    } finally {
      await Promise.all(calls);
      client.close();
    }
  });
});
