/**
 * Faults end to end: real grpc-js clients and servers on 127.0.0.1 running
 * peak_ewma_experimental. Every test reads getLoadBalancerStats() for its own
 * channel (by label), so it proves our policy ran, not a pick_first fallback.
 * Configs are explicit: defaults may be retuned.
 */
import { credentials, status } from '@grpc/grpc-js';
import { register } from '../../src';
import { createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { startOnStablePort } from '../support/ports';
import { startCrashableBackends } from './support/crashable-backend';
import {
  channelOptions,
  endpointStats,
  observeCall,
  ObservedCall,
  sleep,
  startCall,
  statsFor,
  waitFor,
} from './support/observed-calls';

register();

/** decayTime 3600 s: an estimate barely decays during a test, so it can be compared with what caused it. */
const STEADY = { decayTime: '3600s', defaultRtt: '0.01s', errorPenaltyFactor: 1 };

function peakClient(backends: readonly { address: string }[], label: string, config: object): ProbeClient {
  const target = 'ipv4:' + backends.map((backend) => backend.address).join(',');
  return createProbeClient(target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ peak_ewma_experimental: config }] }),
    ...channelOptions(label),
  });
}

async function callsInParallel(client: ProbeClient, count: number, deadlineMs: number): Promise<ObservedCall[]> {
  return Promise.all(Array.from({ length: count }, () => observeCall(client, deadlineMs)));
}

/** Closed loop: `concurrency` workers, `total` calls. */
async function closedLoop(client: ProbeClient, total: number, concurrency: number, deadlineMs: number) {
  const results: ObservedCall[] = [];
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued++;
      results.push(await observeCall(client, deadlineMs));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

const totalInFlight = (backends: readonly TestBackend[]) => backends.reduce((sum, backend) => sum + backend.inFlight, 0);

describe('faults over real gRPC', () => {
  let backends: TestBackend[] = [];
  let client: ProbeClient | null = null;
  let cleanups: (() => void)[] = [];

  afterEach(() => {
    client?.close();
    client = null;
    stopBackends(backends);
    backends = [];
    cleanups.forEach((cleanup) => cleanup());
    cleanups = [];
  });

  it('a backend killed mid-call (connections reset): its calls fail UNAVAILABLE, its outstanding returns to 0, it leaves READY', async () => {
    const crashables = await startCrashableBackends(3, 'kill');
    const servers = crashables.map((crashable) => crashable.backend);
    cleanups.push(() => crashables.forEach((crashable) => crashable.stop()));
    client = peakClient(crashables, 'kill', STEADY);
    // Equal, delay-dominated estimates, so the burst below spreads over all three.
    for (const server of servers) server.behaviour.delayMs = 30;
    await closedLoop(client, 30, 3, 5_000);
    for (const server of servers) server.behaviour.delayMs = 1_000;

    const calls = Array.from({ length: 12 }, () => startCall(client!, 10_000));
    await waitFor('12 calls to reach the servers', () => totalInFlight(servers) === 12);
    const victim = crashables.reduce((most, crashable) => (crashable.backend.inFlight > most.backend.inFlight ? crashable : most));
    const survivors = crashables.filter((crashable) => crashable !== victim);
    const inFlightAtVictim = victim.backend.inFlight;
    expect(inFlightAtVictim).toBeGreaterThan(0);
    expect(endpointStats('kill', victim.address).outstanding).toBe(inFlightAtVictim);

    victim.crash();
    const results = await Promise.all(calls.map((call) => call.done));

    const failed = results.filter((result) => result.error !== null);
    expect(failed).toHaveLength(inFlightAtVictim);
    for (const result of failed) {
      expect(result.error!.code).toBe(status.UNAVAILABLE);
      expect(result.error!.details).toMatch(/^(Connection dropped|read ECONNRESET)$/);
      expect(result.peer).toBe(victim.address);
    }
    expect(results.filter((result) => result.servedBy !== null)).toHaveLength(12 - inFlightAtVictim);

    expect(statsFor('kill').endpoints.map((endpoint) => endpoint.outstanding)).toEqual([0, 0, 0]);
    await waitFor('the victim to leave READY', () => endpointStats('kill', victim.address).state !== 'READY');
    expect(statsFor('kill').state).toBe('READY');

    // Nothing is sent its way any more (which survivor serves depends on their estimates).
    for (const survivor of survivors) survivor.backend.behaviour.delayMs = 0;
    const victimCalls = endpointStats('kill', victim.address).callsStarted;
    const after = await closedLoop(client, 60, 4, 5_000);
    expect(after.filter((result) => result.error !== null)).toEqual([]);
    expect(after.every((result) => survivors.some((survivor) => survivor.id === result.servedBy))).toBe(true);
    expect(endpointStats('kill', victim.address).callsStarted).toBe(victimCalls);
  });

  it('a backend stopped with grpc-js forceShutdown mid-call: calls end CANCELLED "Call cancelled", scored as a failure (not a client cancel), outstanding 0, leaves READY', async () => {
    backends = await startBackends(2, 'force');
    // defaultRtt 100 ms: the penalty's floor, 10 × max(defaultRtt, fleet average) ≥ 1 000 ms, is then
    // far above anything loopback calls can leave in the estimate short of a one-second stall.
    client = peakClient(backends, 'force', { ...STEADY, errorPenaltyFactor: 10, defaultRtt: '0.1s' });
    await closedLoop(client, 10, 2, 5_000);
    for (const backend of backends) backend.behaviour.delayMs = 1_000;
    const calls = Array.from({ length: 4 }, () => startCall(client!, 10_000));
    await waitFor('the calls to reach the servers', () => totalInFlight(backends) === 4);
    const victim = backends.reduce((most, backend) => (backend.inFlight > most.inFlight ? backend : most));
    const before = endpointStats('force', victim.address);
    victim.stop();
    const failed = (await Promise.all(calls.map((call) => call.done))).filter((result) => result.error !== null);
    expect(failed.length).toBeGreaterThan(0);
    for (const result of failed) {
      // forceShutdown sends RST_STREAM(CANCEL) before closing: the client cannot tell it from its own cancel by code.
      expect([result.error!.code, result.error!.details, result.peer]).toEqual([status.CANCELLED, 'Call cancelled', victim.address]);
    }
    const after = endpointStats('force', victim.address);
    expect(after.outstanding).toBe(0);
    // Not "Cancelled on client": the endpoint failed the call, so the error
    // penalty applies, a sample of at least 10 × max(defaultRtt, fleet) —
    // a client cancel would leave the estimate alone. This was "≥ 5 × the
    // estimate before", which held while the penalty was a multiple of the
    // endpoint's own estimate; since the bounded penalty (docs/tuning-log.md §10)
    // its floor is the fleet's, so a stall-lifted estimate before (31 ms,
    // seen on a loaded machine) made 100 ms fail it (issue 19).
    expect(before.estimateMs!).toBeLessThan(1_000);
    expect(after.estimateMs!).toBeGreaterThanOrEqual(1_000);
    await waitFor('the victim to leave READY', () => endpointStats('force', victim.address).state !== 'READY');
  });

  it('all backends down: UNAVAILABLE carrying the last connection error; back up: recovery', async () => {
    // They come back on the same ports: not port 0, whose freed ports another server can take meanwhile.
    backends = await Promise.all([0, 1].map((i) => startOnStablePort((port) => new TestBackend(`down${i}`).start(port))));
    const ports = backends.map((backend) => backend.port);
    client = peakClient(backends, 'down', STEADY);
    expect((await closedLoop(client, 10, 2, 5_000)).every((result) => result.error === null)).toBe(true);

    stopBackends(backends);
    await waitFor('TRANSIENT_FAILURE', () => statsFor('down').state === 'TRANSIENT_FAILURE', 10_000);
    const whileDown = await callsInParallel(client, 5, 5_000);
    for (const result of whileDown) {
      expect(result.error?.code).toBe(status.UNAVAILABLE);
      // Our picker's message, with the connection error that put the last endpoint in TRANSIENT_FAILURE.
      expect(result.error?.details).toMatch(/^peak_ewma_experimental: No connection established\. Last error: .*(ECONNREFUSED|Failed to connect)/);
      // Failed at the pick, not after waiting: a call that waited would end DEADLINE_EXCEEDED at 5 s, not
      // UNAVAILABLE with the picker's text (no wall-clock bound: a loaded machine stalls for seconds).
    }

    backends = await Promise.all(ports.map((port, i) => new TestBackend(`up${i}`).start(port)));
    await waitFor(
      'both endpoints READY again',
      () => statsFor('down').endpoints.every((endpoint) => endpoint.state === 'READY'),
      10_000,
    );
    // Calls until both have served again (bounded), every one OK. Not a fixed 40 calls: an estimate
    // left high by an event-loop stall before the outage (decayTime 3600 s keeps it) can put one above
    // ejectionRatio × the fleet average, and an ejected endpoint is probed only after maxEjectionTime
    // (1 s) and 10 fair shares of calls, which 40 quick calls need not reach (seen in a full run on a
    // loaded machine: all 40 to up0).
    const recovered: ObservedCall[] = [];
    const bothServed = () => new Set(recovered.map((result) => result.servedBy)).size === 2;
    const giveUpAt = Date.now() + 20_000;
    while (!bothServed() && Date.now() < giveUpAt) {
      recovered.push(...(await closedLoop(client, 40, 4, 5_000)));
    }
    expect(recovered.filter((result) => result.error !== null)).toEqual([]);
    expect(new Set(recovered.map((result) => result.servedBy))).toEqual(new Set(['up0', 'up1']));
  });

  it('a backend that accepts calls and never answers: deadlines end them, count as slow samples, its share collapses', async () => {
    // Far above any sample a healthy backend gives even when a loaded machine stalls the event loop.
    const deadlineMs = 1_000;
    backends = await startBackends(3, 'hang');
    client = peakClient(backends, 'hang', STEADY);
    for (const backend of backends) backend.behaviour.delayMs = 5;
    await closedLoop(client, 60, 3, 5_000);
    // The victim: the one that looks fastest now (an early event-loop stall can leave a high peak on another).
    const estimateOf = (backend: TestBackend) => endpointStats('hang', backend.address).estimateMs!;
    const victim = backends.reduce((best, backend) => (estimateOf(backend) < estimateOf(best) ? backend : best));
    expect(estimateOf(victim)).toBeLessThan(deadlineMs / 2);

    victim.behaviour.hang = true;
    // Right after each of its calls hits the deadline, read its estimate: that call's sample.
    const estimatesAfterDeadline: number[] = [];
    const burst: ObservedCall[] = [];
    let issued = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (issued < 90) {
          issued++;
          const result = await observeCall(client!, deadlineMs);
          burst.push(result);
          if (result.error !== null) {
            await sleep(1); // onCallEnded and the callback run in either order (lb-internals §3)
            estimatesAfterDeadline.push(estimateOf(victim));
          }
        }
      }),
    );
    const timedOut = burst.filter((result) => result.error !== null);
    expect(timedOut.length).toBeGreaterThan(0);
    for (const result of timedOut) {
      expect([result.error!.code, result.peer]).toEqual([status.DEADLINE_EXCEEDED, victim.address]);
    }
    expect(endpointStats('hang', victim.address).outstanding).toBe(0);
    // Each deadline's elapsed time became its estimate (the engine times from stream start, a few ms
    // after the deadline clock started; decay over this test is < 0.1 %).
    for (const estimateMs of estimatesAfterDeadline) {
      expect(estimateMs).toBeGreaterThanOrEqual(deadlineMs * 0.9);
    }

    // With the estimate where it is, the next 200 calls mostly avoid it: a fair share is 1/3, and without
    // deadline samples its estimate would decay toward 0 and it would swallow most calls. An engine that
    // re-probes avoided endpoints at intervals sends it a few (more the longer the phase lasts on a
    // loaded machine), each ended by its deadline; with the engine as committed in 1c728ab it gets none.
    const startedBefore = endpointStats('hang', victim.address).callsStarted;
    const after = await closedLoop(client, 200, 4, 2_000);
    const toVictim = endpointStats('hang', victim.address).callsStarted - startedBefore;
    expect(toVictim / after.length).toBeLessThan(0.15);
    for (const result of after.filter((r) => r.error !== null)) {
      expect([result.error!.code, result.peer]).toEqual([status.DEADLINE_EXCEEDED, victim.address]);
    }
    await waitFor('the server to see every hung call cancelled', () => victim.inFlight === 0);
  });

  it('a deadline counts as a sample of at least the elapsed time; a client cancel is no sample; both decrement outstanding', async () => {
    backends = await startBackends(1, 'cancel');
    const [backend] = backends;
    const address = backend.address;
    // decayTime 1 s: an event-loop stall during the first call decays away in seconds.
    client = peakClient(backends, 'cancel', { ...STEADY, decayTime: '1s' });
    expect((await observeCall(client, 5_000)).error).toBeNull();
    await waitFor('a fast estimate', () => endpointStats('cancel', address).estimateMs! < 50, 10_000, 50);
    const fast = endpointStats('cancel', address);

    backend.behaviour.hang = true;
    // Cancelled by the client after 300 ms: no sample, outstanding back to 0.
    const cancelled = startCall(client, 10_000);
    await waitFor('the call to reach the server', () => backend.inFlight === 1);
    expect(endpointStats('cancel', address).outstanding).toBe(1);
    await sleep(300);
    cancelled.call.cancel();
    const cancelResult = await cancelled.done;
    expect(cancelResult.error?.code).toBe(status.CANCELLED);
    const afterCancel = endpointStats('cancel', address);
    expect(afterCancel.outstanding).toBe(0);
    expect(afterCancel.estimateMs!).toBeLessThanOrEqual(fast.estimateMs!); // only decayed
    expect(afterCancel.msSinceLastSample!).toBeGreaterThanOrEqual(cancelResult.elapsedMs - 1);

    // Ended by its 400 ms deadline: a sample of at least the time it took.
    const deadlined = await observeCall(client, 400);
    expect(deadlined.error?.code).toBe(status.DEADLINE_EXCEEDED);
    await sleep(1);
    const afterDeadline = endpointStats('cancel', address);
    expect(afterDeadline.outstanding).toBe(0);
    expect(afterDeadline.msSinceLastSample!).toBeLessThan(afterCancel.msSinceLastSample!);
    // The engine times a call from its stream start (onCallStarted), a few ms after the deadline clock started.
    expect(afterDeadline.estimateMs!).toBeGreaterThanOrEqual(400 * 0.9);
    expect(afterDeadline.estimateMs!).toBeLessThanOrEqual(deadlined.elapsedMs + 1);
  });

  it('40 calls cancelled or deadlined at random moments all decrement outstanding, exactly once', async () => {
    backends = await startBackends(2, 'mixed');
    client = peakClient(backends, 'mixed', STEADY);
    await closedLoop(client, 10, 2, 5_000);
    for (const backend of backends) backend.behaviour.hang = true;
    // A fixed pseudo-random schedule (no Math.random: reproducible): of every 4 calls one is cancelled by the
    // client 0-249 ms after it starts (before it reaches a server, for some), one ended by a 100-399 ms
    // deadline, two stay open (a 30 s deadline) until the end.
    const plan = Array.from({ length: 40 }, (_, i) => ({
      kind: (['cancel', 'open', 'deadline', 'open'] as const)[i % 4],
      cancelAfterMs: (i * 37) % 250,
      deadlineMs: 100 + ((i * 53) % 300),
    }));
    const handles = plan.map(({ kind, cancelAfterMs, deadlineMs }) => {
      const handle = startCall(client!, kind === 'deadline' ? deadlineMs : 30_000);
      if (kind === 'cancel') setTimeout(() => handle.call.cancel(), cancelAfterMs);
      return { kind, handle };
    });
    const ending = handles.filter(({ kind }) => kind !== 'open');
    const open = handles.filter(({ kind }) => kind === 'open');
    const ended = await Promise.all(ending.map(({ handle }) => handle.done));
    expect(new Set(ended.map((result) => result.error?.code))).toEqual(new Set([status.CANCELLED, status.DEADLINE_EXCEEDED]));
    // The servers have let go of the 20 ended calls and hold the 20 open ones: the balancer must count
    // exactly those, per endpoint. A decrement twice per cancel or deadline would leave it below (the
    // count stops at 0, so "never negative" could not see it).
    await waitFor('the servers to hold exactly the open calls', () => totalInFlight(backends) === open.length);
    const outstanding = () => Object.fromEntries(statsFor('mixed').endpoints.map((endpoint) => [endpoint.address, endpoint.outstanding]));
    expect(outstanding()).toEqual(Object.fromEntries(backends.map((backend) => [backend.address, backend.inFlight])));

    for (const { handle } of open) handle.call.cancel();
    const cancelled = await Promise.all(open.map(({ handle }) => handle.done));
    expect(cancelled.map((result) => result.error?.code)).toEqual(Array(open.length).fill(status.CANCELLED));
    await waitFor('the servers to see every call end', () => totalInFlight(backends) === 0);
    expect(outstanding()).toEqual(Object.fromEntries(backends.map((backend) => [backend.address, 0])));
  });

  it('a fast-failing backend: errorPenaltyFactor 10 keeps its share low where 1 lets the instant failures win', async () => {
    backends = await startBackends(3, 'ff');
    const [failing, ...healthy] = backends;
    for (const backend of healthy) backend.behaviour.delayMs = 10;
    failing.behaviour.failWith = status.UNAVAILABLE;
    // Both the success and the failure paths run once before anything is measured: on a loaded machine with a cold
    // ts-jest cache a first call can take hundreds of ms, and a peak that high, on whichever endpoint drew it, ruled a
    // 5 s run at a 10 s decay (stress run on main: the failing backend's share 0.2 instead of ~2/3).
    const warmUp = peakClient(backends, 'ff-warm-up', { ...STEADY, decayTime: '1s' });
    try {
      await closedLoop(warmUp, 30, 3, 5_000);
    } finally {
      warmUp.close();
    }
    const penalised = peakClient(backends, 'ff-10', { ...STEADY, decayTime: '10s', errorPenaltyFactor: 10 });
    // A short decay, so that a stall's peak on any endpoint is forgotten within the run (~1 s) and the share shows
    // what instant failures earn in steady state, which does not depend on the decay.
    const plain = peakClient(backends, 'ff-1', { ...STEADY, decayTime: '0.25s', errorPenaltyFactor: 1 });
    try {
      const [withPenalty, without] = await Promise.all([
        closedLoop(penalised, 400, 4, 5_000),
        closedLoop(plain, 400, 4, 5_000),
      ]);
      const failureShare = (results: ObservedCall[]) => results.filter((result) => result.error !== null).length / results.length;
      for (const results of [withPenalty, without]) {
        for (const result of results.filter((r) => r.error !== null)) {
          expect(result.error!.code).toBe(status.UNAVAILABLE);
          expect(result.peer).toBe(failing.address);
        }
      }
      // Without the penalty an instant failure is the best latency around: P2C sends it about 2/3 of calls.
      expect(failureShare(without)).toBeGreaterThan(0.4);
      expect(failureShare(withPenalty)).toBeLessThan(0.1);
      // The shares come from our balancers' own accounting.
      expect(endpointStats('ff-1', failing.address).shareOfCalls).toBeCloseTo(failureShare(without), 1);
      expect(endpointStats('ff-10', failing.address).estimateMs!).toBeGreaterThan(10 * 10 * 0.5);
    } finally {
      penalised.close();
      plain.close();
    }
  });
});
