/**
 * Faults through the fake xDS control plane (scripts/xds), Envoy's PeakEwma
 * from CDS at the top level (xds-fixtures/clusters/peak-ewma.yaml):
 * - the control plane goes away: the client keeps its last config and keeps
 *   serving; it comes back on the same address (a port outside the ephemeral
 *   range, test/support/ports.ts): the client resubscribes and takes an
 *   endpoint change made meanwhile;
 * - EDS churn (the short soak): an endpoint replaced every 100 ms under
 *   traffic, graceful removals, zero failed RPCs (60 s version: npm run soak).
 * An invalid cluster pushed, then a valid one, is test/xds/nack.e2e.test.ts.
 * One file, so that @grpc/grpc-js-xds (seconds to load) loads once.
 */
import { credentials, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { edsSource } from '../../scripts/soak/address-sources';
import { runChurnSoak } from '../../scripts/soak/churn-soak';
import { violationsOf } from '../../scripts/soak/churn-report';
import { createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { FakeControlPlane } from '../../scripts/xds/control-plane';
import { clusterLoadAssignment, loadBootstrap } from '../../scripts/xds/fixtures';
import { getLoadBalancerStats, STATS_LABEL_OPTION } from '../../src';
import { registerXds } from '../../src/xds';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { startOnStablePort } from '../support/ports';
import { observeCall, ObservedCall, sleep, waitFor } from './support/observed-calls';

const DURATION_MS = Number(process.env.CHURN_TEST_MS ?? 3_000);

beforeAll(() => {
  setLogVerbosity(logVerbosity.NONE);
  registerXds();
});

async function startControlPlane(port: number, addresses: readonly string[]): Promise<FakeControlPlane> {
  const controlPlane = await FakeControlPlane.start({ port });
  controlPlane.putFromFile('listener.yaml');
  controlPlane.putFromFile('clusters/peak-ewma.yaml');
  controlPlane.setEndpoints([clusterLoadAssignment('endpoints1', [{ region: 'region-a', zone: 'zone-1', addresses }])]);
  return controlPlane;
}

/** Calls one after another until `stop()`; collects every outcome. */
function background(client: ProbeClient) {
  const results: ObservedCall[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      results.push(await observeCall(client, 5_000));
      await sleep(5);
    }
  })();
  return {
    results,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe('xDS faults', () => {
  let backends: TestBackend[] = [];
  let controlPlane: FakeControlPlane | null = null;
  let client: ProbeClient | null = null;

  afterEach(() => {
    client?.close();
    controlPlane?.close();
    stopBackends(backends);
  });

  it('control plane gone: the client keeps its config and serves; back on the same port: it resubscribes and applies a change', async () => {
    backends = await startBackends(3, 'cp');
    const [b0, b1, b2] = backends;
    // Not port 0: a freed ephemeral port can be handed to another server in the meantime.
    controlPlane = await startOnStablePort((port) => startControlPlane(port, [b0.address, b1.address]));
    const port = controlPlane.port;
    client = createProbeClient('xds:///listener1', credentials.createInsecure(), {
      ...controlPlane.channelOptions(loadBootstrap(controlPlane.address)),
      [STATS_LABEL_OPTION]: 'cp-gone',
    });
    const endpoints = () => {
      const balancers = getLoadBalancerStats().filter((stats) => stats.label === 'cp-gone');
      return balancers.length === 1 ? balancers[0].endpoints.map((endpoint) => endpoint.address).sort() : [];
    };
    expect((await observeCall(client, 10_000)).error).toBeNull();
    expect(endpoints()).toEqual([b0.address, b1.address].sort());

    const traffic = background(client);
    try {
      controlPlane.close();
      controlPlane = null;
      // Gone for 2 s at least: the ADS stream has ended and the reconnects (backoff from 1 s) are refused...
      await sleep(2_000);
      // ...and until 20 calls have been served meanwhile, however slow the machine: a count, not a rate
      // (a loaded machine has managed 32 in those 2 s, against 150 on a quiet one).
      await waitFor('20 calls while the control plane is gone', () => traffic.results.length >= 20, 30_000, 20);
      expect(endpoints()).toEqual([b0.address, b1.address].sort()); // same balancer, same endpoints

      // Back on the same address, with b2 added meanwhile. b0 and b1 slower than b2's defaultRtt (10 ms)
      // from now on, so that P2C takes b2 whenever it draws it: otherwise b2 gets its first call only
      // once an event-loop stall has pushed both other estimates above 10 ms, which a quiet machine may
      // not do before the wait below gives up.
      for (const backend of [b0, b1]) backend.behaviour.delayMs = 20;
      controlPlane = await startControlPlane(port, [b0.address, b1.address, b2.address]);
      // The ADS channel reconnects on grpc-js's backoff (1 s × 1.6^n, ±20 %): the next attempt is at most
      // about 0.75 × the outage away, so 40 s covers an outage of up to 50 s.
      await waitFor('the client to resubscribe and see b2', () => endpoints().length === 3, 40_000, 50);
      await waitFor('b2 to serve', () => b2.calls > 0, 10_000);
    } finally {
      // Stopped on failure too: calls left running would outlive the test and its client.
      await traffic.stop();
    }

    // Every call (including the 20+ while the control plane was gone) succeeded.
    expect(traffic.results.filter((result) => result.error !== null)).toEqual([]);
    expect(controlPlane.nacks()).toEqual([]);
  }, 120_000);

  it(`EDS churn, an endpoint replaced every 100 ms for ${DURATION_MS / 1000} s, graceful removals: zero failed RPCs, stats exact, outstanding zero at rest`, async () => {
    const report = await runChurnSoak({
      mode: 'graceful',
      source: await edsSource(),
      label: 'churn-eds',
      durationMs: DURATION_MS,
      minTicks: 20, // however slow the machine: each update waits for the ADS ACK
      tickMs: 100,
      activeEndpoints: 4,
      concurrency: 8,
      deadlineMs: 10_000,
    });
    expect(violationsOf(report)).toEqual([]);
    expect(report.unexpectedFailures + report.allowedFailures).toBe(0);
    expect(report.ticks).toBeGreaterThanOrEqual(20);
    expect(report.distinctBackendsServed).toBeGreaterThan(report.ticks / 2);
    expect(report.outstandingAtRest).toEqual([0, 0, 0, 0]);
  });
});
