/**
 * The load test's per-method path over real gRPC: ProbeBackends (the
 * simulator's backend model under real timers) on 127.0.0.1, a client channel
 * built as a load-test client builds it (probe-channel.ts, the package build
 * the load test measures), the open loop sending a two-method mix. The picker
 * must see both methods (peak_ewma's own per-method view in
 * getLoadBalancerStats), the recorder must keep each method's calls apart,
 * and a one-method workload must stay on /loadtest.Probe/Call, unmarked.
 * Counts, not latencies: on a starved machine a call may miss its 500 ms
 * deadline, so a failure is allowed only as DEADLINE_EXCEEDED; a call sent
 * on a path the backend does not serve would fail UNIMPLEMENTED.
 */
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import { probeServiceDefinition } from '../../scripts/lib/probe-service';
import { LoadRecorder } from '../../scripts/bench/load-recorder';
import { LogicalClockScheduler } from '../../scripts/bench/logical-scheduler';
import { methodPaths, recordedMethodGroups } from '../../scripts/bench/method-paths';
import { runOpenLoop } from '../../scripts/bench/open-loop';
import { loadPackage } from '../../scripts/bench/package-under-test';
import { registerPolicies } from '../../scripts/bench/policies';
import { newProbeClient } from '../../scripts/bench/probe-channel';
import { ProbeBackend } from '../../scripts/bench/probe-backend';
import { MethodSpec, parseMethodMix, SINGLE_METHOD } from '../../scripts/model';
import { seededRandom } from '../../src/core/random';

const TWO_METHODS = parseMethodMix('U2_cheap:80,U20_costly:20');
const RATE_RPS = 100;
const WARMUP_S = 0.5;
const MEASURE_S = 2;

/** Failure codes other than DEADLINE_EXCEEDED (4): a stalled machine's only excuse. */
const nonDeadlineFailures = (run: { failuresByCode: Readonly<Record<string, number>> }): string[] =>
  Object.keys(run.failuresByCode).filter((code) => code !== String(status.DEADLINE_EXCEEDED));

async function sendMix(addresses: string[], methods: readonly MethodSpec[], label: string, markMethods: boolean) {
  const pkg = loadPackage();
  const client = newProbeClient(
    { policy: 'peak_ewma', addresses, dynamicAddresses: false, timeFactor: 1, markMethods },
    { [pkg.STATS_LABEL_OPTION]: label },
  );
  try {
    const recorder = new LoadRecorder(MEASURE_S, [{ name: 'all', fromS: 0, toS: MEASURE_S }], addresses.length, 500, 1000, recordedMethodGroups(methods));
    await runOpenLoop({
      client: () => client,
      rateRps: RATE_RPS,
      methods,
      zeroAtMs: performance.now() + WARMUP_S * 1000,
      warmupS: WARMUP_S,
      measureS: MEASURE_S,
      phaseOffset: 0,
      random: seededRandom(7),
      recorder,
      backendOf: (id) => (id === null ? -1 : Number(id.slice(1))),
    });
    const stats = pkg.getLoadBalancerStats().find((s) => s.label === label);
    return { run: recorder.export(), stats };
  } finally {
    client.close();
  }
}

describe('the load test sends each method of a mix on its own path, through callMarker', () => {
  const scheduler = new LogicalClockScheduler();
  let backends: ProbeBackend[];
  let addresses: string[];
  beforeAll(async () => {
    registerPolicies();
    const names = TWO_METHODS.map((m) => m.name);
    backends = [0, 1].map(
      (i) => new ProbeBackend({ id: `b${i}`, scheduler, random: seededRandom(100 + i), behaviour: {}, methodNames: names }),
    );
    addresses = (await Promise.all(backends.map((b) => b.start()))).map((port) => `127.0.0.1:${port}`);
  });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.stop(0)));
    scheduler.stop();
  });

  it("peak_ewma's picker sees both methods, and the recorder keeps their calls apart", async () => {
    const { run, stats } = await sendMix(addresses, TWO_METHODS, 'pm-load-two', true);
    expect(nonDeadlineFailures(run)).toEqual([]);
    // Our policy ran (not a pick_first fallback) and scored per method: its method view lists both paths.
    expect(stats?.policy).toBe('peak_ewma_experimental');
    const seen = new Map(stats!.methods.map((m) => [m.method, m.calls]));
    expect(Array.from(seen.keys()).sort()).toEqual(methodPaths(TWO_METHODS).sort());
    expect(methodPaths(TWO_METHODS)).toEqual(['/loadtest.Probe/U2_cheap', '/loadtest.Probe/U20_costly']);
    const started = stats!.endpoints.reduce((sum, e) => sum + e.callsStarted, 0);
    // Every call was marked with its method (warm-up included).
    expect(seen.get('/loadtest.Probe/U2_cheap')! + seen.get('/loadtest.Probe/U20_costly')!).toBe(started);
    expect(seen.get('/loadtest.Probe/U2_cheap')!).toBeGreaterThan(2 * seen.get('/loadtest.Probe/U20_costly')!);
    // The recorder's groups hold the window's calls between them, by method.
    expect(run.methods?.map((m) => m.name)).toEqual(['U2_cheap', 'U20_costly']);
    const [cheap, costly] = run.methods!;
    expect(cheap.ok + costly.ok).toBe(run.ok);
    expect(cheap.failed + costly.failed).toBe(run.failed);
    expect(cheap.ok).toBeGreaterThan(2 * costly.ok);
    expect(costly.ok).toBeGreaterThan(0);
  });

  it('keeps a one-method workload on /loadtest.Probe/Call, unmarked, with no method groups', async () => {
    // A server with only the Probe service's own methods: a call on any other path would fail UNIMPLEMENTED.
    const server = new Server();
    const backend = backends[0];
    server.addService(probeServiceDefinition, {
      call: (_call: unknown, callback: (error: null, reply: Buffer) => void) => callback(null, Buffer.from(backend.id)),
      watch: (call: { end(): void }) => call.end(),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    try {
      expect(methodPaths(SINGLE_METHOD)).toEqual(['/loadtest.Probe/Call']);
      const { run, stats } = await sendMix([`127.0.0.1:${port}`], SINGLE_METHOD, 'pm-load-one', false);
      expect(nonDeadlineFailures(run)).toEqual([]);
      expect(run.ok).toBeGreaterThan(100);
      expect(run.methods).toBeUndefined();
      // No marker: the policy saw no method, exactly as before per-method groups.
      expect(stats?.policy).toBe('peak_ewma_experimental');
      expect(stats!.methods).toEqual([]);
    } finally {
      server.forceShutdown();
    }
  });
});
