/**
 * The client's own decisions are not endpoint failures. A hedge loser is the client's decision, not the endpoint's failure. grpc-js
 * ends every losing hedge attempt with CANCELLED "Discarded in favor of other
 * hedged attempt"; counted as a failure, each one would lift its endpoint's
 * estimate past the ejection ratio, so every endpoint that lost a race would
 * be ejected, fast or not.
 */
import { monitorEventLoopDelay } from 'perf_hooks';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../src';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { startBackends, startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { clientFor, runTraffic } from '../support/traffic';

register();

// The set-up is 10 ms backends with a 5 ms hedging delay; the same
// ratio at 50 / 25 ms hedges as often, but an event-loop stall has to last
// over 75 ms (not 15 ms) to make a healthy endpoint's peak pass 2.5 × the
// fleet and eject it for a probe interval. At 10 ms a routine stall on a
// loaded machine did that and one endpoint's share fell to 0.17 of 200 calls
// (npm run test:stress -- --hog). Losers scored as failures still count as
// 5 × the fleet average each, 250 ms here, far past the bound below.
const SERVICE_MS = 50;
const HEDGING_DELAY = '0.025s';
const CALLS = 200;

describe('peak_ewma_experimental under a hedgingPolicy', () => {
  let backends: TestBackend[];

  beforeAll(async () => {
    backends = await startBackendsAnswering([SERVICE_MS, SERVICE_MS]);
  });
  afterAll(() => stopBackends(backends));

  it('ejects neither of two equal 50 ms backends', async () => {
    const label = 'hedging';
    const serviceConfig = {
      loadBalancingConfig: [{ peak_ewma_experimental: {} }],
      methodConfig: [{ name: [{ service: 'loadtest.Probe' }], hedgingPolicy: { maxAttempts: 2, hedgingDelay: HEDGING_DELAY } }],
    };
    const client = clientFor(backends, serviceConfig.loadBalancingConfig, {
      'grpc.service_config': JSON.stringify(serviceConfig),
      [STATS_LABEL_OPTION]: label,
    });
    // This process's longest event-loop stall during the run (ns → ms).
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    try {
      loopDelay.enable();
      const result = await runTraffic(client, { concurrency: 2, maxCalls: CALLS, maxDurationMs: 30_000 });
      loopDelay.disable();
      const longestStallMs = loopDelay.max / 1e6;
      expect(result.failures).toEqual([]);
      // Hedging ran: a 50 ms call outlives the 25 ms hedging delay, so most
      // calls reached both backends.
      const attempts = backends.reduce((sum, backend) => sum + backend.calls, 0);
      expect(attempts).toBeGreaterThan(1.5 * result.total);
      const stats = getLoadBalancerStats().find((s) => s.label === label)!;
      expect(stats.policy).toBe('peak_ewma_experimental');
      expect(stats.fleetRttMs).not.toBeNull();
      // Whatever the event loop did: no call failed, so no endpoint may count a failure. A hedge loser
      // scored as one would leave its endpoint failed in a row (every call has a loser) and make the
      // rotation refuse it turns for a recent failure.
      expect(stats.refusals!.failure).toBe(0);
      expect(stats.endpoints.map((endpoint) => endpoint.failuresInARow)).toEqual([0, 0]);
      for (const endpoint of stats.endpoints) {
        // Our policy placed the attempts: both endpoints took a fair part.
        expect(endpoint.shareOfCalls).toBeGreaterThan(0.3);
        // Not ejected: the estimate stays within the ejection ratio of the
        // fleet, or is one this process's own stall explains. A stall during
        // the last calls gives the endpoint that answered them a sample of
        // SERVICE_MS + the stall (the peak rule takes it at once) while the
        // fleet average moves at most 1/16 per call, so on a loaded machine
        // the bare ratio failed (295 ms against 182, reproduced with
        // test/support/event-loop-stall.js). Losers scored as failures would
        // count as errorPenaltyFactor × the fleet average each (5 F, twice the
        // ejection ratio): past this bound whenever the process did not stall.
        const stallMadeMs = 2 * (SERVICE_MS + longestStallMs);
        expect(endpoint.estimateMs!).toBeLessThan(Math.max(PEAK_EWMA_DEFAULTS.ejectionRatio * stats.fleetRttMs!, stallMadeMs));
        expect(endpoint.outstanding).toBe(0);
      }
    } finally {
      client.close();
    }
  });
});

describe('peak_ewma_experimental learns from the hedges an endpoint loses', () => {
  let backends: TestBackend[];

  beforeAll(async () => {
    backends = await startBackendsAnswering([10, 10, 300]);
  });
  afterAll(() => stopBackends(backends));

  // A losing attempt had not answered after its elapsed time: a lower bound
  // (CallOutcome.OUTLASTED). Taken as no news, the 300 ms backend, whose
  // attempts always lost to the 50 ms hedge, never got a sample above its
  // peers' and kept a quarter of the first attempts or more (below), each
  // call waiting for its hedge.
  it('gives a backend that loses every race few first attempts', async () => {
    const label = 'hedging-slow';
    const serviceConfig = {
      loadBalancingConfig: [{ peak_ewma_experimental: {} }],
      methodConfig: [{ name: [{ service: 'loadtest.Probe' }], hedgingPolicy: { maxAttempts: 2, hedgingDelay: '0.05s' } }],
    };
    const client = clientFor(backends, serviceConfig.loadBalancingConfig, {
      'grpc.service_config': JSON.stringify(serviceConfig),
      [STATS_LABEL_OPTION]: label,
    });
    try {
      const result = await runTraffic(client, { concurrency: 1, maxCalls: 150, maxDurationMs: 30_000 });
      expect(result.failures).toEqual([]);
      const stats = getLoadBalancerStats().find((s) => s.label === label)!;
      expect(stats.policy).toBe('peak_ewma_experimental');
      // First attempts: a hedge goes 50 ms later to another endpoint, but on a loaded machine
      // the 10 ms backends' answers pass 50 ms too, and some of their hedges go to the slow one
      // (0-9 of its attempts beside a stall of 60 ms in every 100). Now its probes, about one a
      // second (maxEjectionTime): 4–9 of 150 here; before, 37–39 of 150 and 12–60 of 90 calls;
      // and 21–28 attempts beside a CPU hog (5 runs in 8) while an endpoint that had only lost
      // races had no mean and so passed the rotation's gate (ejection.ts meanSignalMs).
      expect(backends[2].firstAttempts).toBeLessThanOrEqual(15);
      // Losing never counts as failing.
      expect(stats.endpoints.map((endpoint) => endpoint.failuresInARow)).toEqual([0, 0, 0]);
    } finally {
      client.close();
    }
  });
});

describe("peak_ewma_experimental and the client's own message-size limit", () => {
  let backends: TestBackend[];

  beforeAll(async () => {
    backends = await startBackends(2);
  });
  afterAll(() => stopBackends(backends));

  it('takes a reply over grpc.max_receive_message_length as no news about the endpoint', async () => {
    const label = 'max-receive';
    // Every reply is the backend's id ("b0", 2 bytes): over a 1-byte limit.
    const client = clientFor(backends, [{ peak_ewma_experimental: {} }], {
      'grpc.max_receive_message_length': 1,
      [STATS_LABEL_OPTION]: label,
    });
    try {
      const result = await runTraffic(client, { concurrency: 1, maxCalls: 20, maxDurationMs: 10_000 });
      expect(result.failures.map((failure) => failure.details)).toEqual(
        Array(20).fill('Received message larger than max (2 vs 1)'),
      );
      const stats = getLoadBalancerStats().find((s) => s.label === label)!;
      expect(stats.endpoints.reduce((sum, endpoint) => sum + endpoint.callsStarted, 0)).toBe(20);
      for (const endpoint of stats.endpoints) {
        // No sample at all: neither a latency nor a failure penalty.
        expect(endpoint.msSinceLastSample).toBeNull();
        expect(endpoint.outstanding).toBe(0);
      }
    } finally {
      client.close();
    }
  });
});
