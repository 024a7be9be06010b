/**
 * Slow start over real gRPC on 127.0.0.1 (src/core/slow-start.ts): a backend
 * added to a running channel's address list, 2.4 × as slow as the three it
 * joins, is weighed by its cost instead of ejected for `slowStartWindow`,
 * takes a share of its rotation turns, and `getLoadBalancerStats()` says so
 * (`slowStartMsLeft`). With `slowStartWindow: "0s"` it is ejected on its
 * first answers and gets its probes only, as before 2026-12-06. A client
 * sends calls one after another, so its own calls in flight never refuse a
 * turn: every turn the joiner loses is its mean's.
 */
import { credentials, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, PEAK_EWMA_POLICY_NAME, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { ManualTarget } from '../../scripts/lib/manual-resolver';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { fastOutlierDetection } from '../support/traffic';
import { waitFor } from '../support/wait';

register();

/**
 * The fleet's and the joiner's service times: 10 ms, not 5, and 2.4 × apart,
 * not 2, so that loopback's noise beside other work (a few ms) cannot hide
 * the joiner's slowness; at 5 and 12 ms a CPU hog let the joiner without
 * slow start take 6-36 of its turns (2 quiet).
 */
const FLEET_MS = 10;
const JOINER_MS = 24;
/** Calls before the join: well past 2 fair shares of three and `maxEjectionTime` (1 s) of the channel's life. */
const CALLS_BEFORE = 300;
const CALLS_AFTER = 240;

/** A channel on `addresses` with peak_ewma `config` (beneath `parent`'s policy, if any), its stats under `label`. */
function openChannel(config: object, label: string, addresses: readonly string[], parent = (child: object): object => child) {
  const target = new ManualTarget(label);
  target.setEndpoints([...addresses]);
  const client = createProbeClient(target.target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [parent({ [PEAK_EWMA_POLICY_NAME]: config })] }),
    [STATS_LABEL_OPTION]: label,
  });
  const stats = () => getLoadBalancerStats().find((entry) => entry.label === label)!;
  const close = (): void => {
    client.close();
    target.release();
  };
  return { target, client, stats, close };
}

type ProbeClient = ReturnType<typeof openChannel>['client'];

/**
 * The most calls an ejected endpoint takes over `elapsedMs`: the first answers
 * that eject it, then at most one probe per probe interval (`maxEjectionTime`,
 * 1 s; the back-off only stretches it). Up to three first answers: a process
 * restarted in place starts from the mean the channel knew. Bounded by time,
 * not by a count, because a busy machine slows the calls and not the probe
 * clock: the 240 calls take ~3 s and the bound reads 6 (3 measured, quiet or
 * beside a CPU hog), where a slow-start joiner takes 13-16.
 */
function probedOnlyBound(elapsedMs: number): number {
  return 3 + Math.ceil(elapsedMs / 1_000);
}

/** `count` calls one after another. */
async function callMany(client: ProbeClient, count: number): Promise<void> {
  for (let call = 0; call < count; call++) await callOnce(client, 5_000);
}

/** Calls for `ms`, one after another; a call that fails (one in flight to a stopped server) is let go. */
async function callFor(client: ProbeClient, ms: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < ms) await callOnce(client, 5_000).catch(() => undefined);
}

/** Calls, 100 ms at a time, until `condition` holds (10 s at most). */
async function callUntil(client: ProbeClient, what: string, condition: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out after 10 s waiting for ${what}`);
    await callFor(client, 100);
  }
}

/** CALLS_BEFORE calls, and on until the channel has run for a probe interval, whatever the machine's speed. */
async function runAProbeInterval(client: ProbeClient): Promise<void> {
  const started = Date.now();
  await callMany(client, CALLS_BEFORE);
  await callFor(client, 1_100 - (Date.now() - started));
}

async function joinRunningFleet(config: object, label: string) {
  const backends: TestBackend[] = await startBackendsAnswering([FLEET_MS, FLEET_MS, FLEET_MS, JOINER_MS]);
  const joiner = backends[3];
  const { target, client, stats, close } = openChannel(config, label, backends.slice(0, 3).map((backend) => backend.address));
  try {
    await runAProbeInterval(client);
    target.setEndpoints(backends.map((backend) => backend.address));
    await waitFor('the joiner READY', () => stats().endpoints.some((e) => e.address === joiner.address && e.state === 'READY'));
    const before = joiner.calls;
    const started = Date.now();
    await callMany(client, CALLS_AFTER);
    const elapsedMs = Date.now() - started;
    const view = stats();
    return { view, joinerView: view.endpoints.find((e) => e.address === joiner.address)!, joinerCalls: joiner.calls - before, elapsedMs };
  } finally {
    close();
    stopBackends(backends);
  }
}

describe('peak_ewma_experimental: a slower backend that joins a running channel', () => {
  it(`by default (slowStartWindow 10 s) is not ejected, is reported in slow start, and takes a share of its turns`, async () => {
    const { view, joinerView, joinerCalls } = await joinRunningFleet({}, 'slow-start-default');
    // Our policy ran, with the defaults.
    expect(view.policy).toBe(PEAK_EWMA_POLICY_NAME);
    expect(joinerView.slowStartMsLeft).not.toBeNull();
    expect(joinerView.slowStartMsLeft!).toBeGreaterThan(0);
    expect(joinerView.slowStartMsLeft!).toBeLessThanOrEqual(10_000);
    expect(joinerView.ejected).toBe(false);
    // The gate refused it for its mean (the fleet's pods are typical, and this client never has a call
    // in flight at a pick), so what it took it took as slow start's share, not as a typical pod.
    expect(view.refusals!.mean).toBeGreaterThan(0);
    // 240 calls among four: 60 turns; its mean about 2.2 × the fleet's (25-27 against 11-13 ms
    // measured over loopback), so (1 / 2.2)² of them, ~12 (13-16 measured, quiet or beside a CPU
    // hog), where over its probes alone (the "0s" case) it got 3.
    expect(joinerCalls).toBeGreaterThanOrEqual(9);
    // Those turns are counted apart, and each went to the joiner (on a quiet machine most of its
    // calls; beside other work loopback's noise lets it take some turns as a typical pod).
    expect(view.picks!.slowStart).toBeGreaterThan(0);
    expect(view.picks!.slowStart).toBeLessThanOrEqual(joinerCalls);
  });

  it('with slowStartWindow "0s" is ejected on its first answers and probed only', async () => {
    const { view, joinerView, joinerCalls, elapsedMs } = await joinRunningFleet({ slowStartWindow: '0s' }, 'slow-start-off');
    expect(view.policy).toBe(PEAK_EWMA_POLICY_NAME);
    expect(view.config).toMatchObject({ [PEAK_EWMA_POLICY_NAME]: { slowStartWindow: '0s' } });
    expect(joinerView.slowStartMsLeft).toBeNull();
    expect(view.picks!.slowStart).toBe(0);
    expect(joinerCalls).toBeLessThanOrEqual(probedOnlyBound(elapsedMs));
  });
});

/**
 * Four 5 ms backends in a running channel; the fourth's server is stopped
 * and, 1.5 s later, a new one 2.4 × as slow starts on its port: a process
 * restarted in place, on the address the channel knew.
 */
async function restartInPlace(config: object, label: string) {
  const backends: TestBackend[] = await startBackendsAnswering([FLEET_MS, FLEET_MS, FLEET_MS, FLEET_MS]);
  const { client, stats, close } = openChannel(config, label, backends.map((backend) => backend.address));
  const [old] = backends.splice(3, 1);
  let restarted: TestBackend | undefined;
  try {
    await runAProbeInterval(client);
    old.stop();
    // The channel keeps calling the other three meanwhile (a call in flight to the old server may fail).
    await callFor(client, 1_500);
    restarted = new TestBackend('restarted');
    restarted.behaviour.delayMs = JOINER_MS;
    await restarted.start(old.port);
    await waitFor('the restarted backend READY', () => stats().endpoints.some((e) => e.address === restarted!.address && e.state === 'READY'), 10_000);
    const slowStartBefore = stats().picks!.slowStart;
    const started = Date.now();
    await callMany(client, CALLS_AFTER);
    const elapsedMs = Date.now() - started;
    const view = stats();
    return {
      view,
      endpoint: view.endpoints.find((e) => e.address === restarted!.address)!,
      calls: restarted.calls,
      elapsedMs,
      slowStartPicks: view.picks!.slowStart - slowStartBefore,
    };
  } finally {
    close();
    stopBackends(restarted ? [...backends, restarted] : backends);
  }
}

describe('peak_ewma_experimental: a backend restarted in place (its address kept), slower at first', () => {
  it('by default is a joiner again: in slow start, not ejected, and takes a share of its turns', async () => {
    const { view, endpoint, calls, slowStartPicks } = await restartInPlace({}, 'slow-start-restart');
    expect(view.policy).toBe(PEAK_EWMA_POLICY_NAME);
    expect(endpoint.slowStartMsLeft).not.toBeNull();
    expect(endpoint.slowStartMsLeft!).toBeGreaterThan(0);
    expect(endpoint.ejected).toBe(false);
    // A restarted process takes F / S of its turns, not a newcomer's (F / S)²: ~27 of 240 calls
    // (28-31 measured), some as slow start's turns; its probes alone give 3.
    expect(calls).toBeGreaterThanOrEqual(9);
    expect(slowStartPicks).toBeGreaterThan(0);
    expect(slowStartPicks).toBeLessThanOrEqual(calls);
  });

  it('with slowStartWindow "0s" is ejected on its first answers and probed only, as before 2026-12-07', async () => {
    const { endpoint, calls, elapsedMs, slowStartPicks } = await restartInPlace({ slowStartWindow: '0s' }, 'slow-start-restart-off');
    expect(endpoint.slowStartMsLeft).toBeNull();
    expect(slowStartPicks).toBe(0);
    // No call is sent while the test waits for it READY: all it took, it took during the 240 calls.
    expect(calls).toBeLessThanOrEqual(probedOnlyBound(elapsedMs));
  });
});

describe('peak_ewma_experimental: an address that leaves the list and comes back (DNS or EDS churn, no restart)', () => {
  it('is no joiner: a slow backend dropped for 1.5 s and listed again is judged on what the channel knew', async () => {
    const label = 'slow-start-churn';
    const backends = await startBackendsAnswering([FLEET_MS, FLEET_MS, FLEET_MS, 4 * FLEET_MS]);
    const { target, client, stats, close } = openChannel({}, label, backends.map((backend) => backend.address));
    const slow = backends[3];
    const slowView = () => stats().endpoints.find((e) => e.address === slow.address);
    try {
      await runAProbeInterval(client);
      // Out on its mean: read until seen so (10 s at most), not at one instant. Its standing changes
      // around each of its probes, and a clean-clone CI once read it in at the instant the interval ended.
      await callUntil(client, 'the slow backend ejected', () => slowView()!.ejected);
      target.setEndpoints(backends.slice(0, 3).map((backend) => backend.address));
      await callFor(client, 1_500);
      target.setEndpoints(backends.map((backend) => backend.address));
      await waitFor('the listed-again backend READY', () => slowView()?.state === 'READY', 10_000);
      const slowStartBefore = stats().picks!.slowStart;
      await callMany(client, CALLS_AFTER);
      expect(stats().policy).toBe(PEAK_EWMA_POLICY_NAME);
      expect(slowView()!.slowStartMsLeft).toBeNull();
      expect(stats().picks!.slowStart).toBe(slowStartBefore);
    } finally {
      close();
      stopBackends(backends);
    }
  });
});

/**
 * outlier_detection that ejects a failing endpoint for 1 s, from one call:
 * peak_ewma itself keeps a failing endpoint to its probes, so it gets few.
 */
const quickOutlierDetection = (child: object): object => fastOutlierDetection(child, { baseEjectionS: 1, requestVolume: 1 });

describe('peak_ewma_experimental beneath outlier_detection: an endpoint let back after its ejection', () => {
  it('is no joiner: its connection stayed up, so a slow endpoint is judged on what the channel knew', async () => {
    const label = 'slow-start-od';
    const backends = await startBackendsAnswering([FLEET_MS, FLEET_MS, FLEET_MS, FLEET_MS]);
    const { client, stats, close } = openChannel({}, label, backends.map((backend) => backend.address), quickOutlierDetection);
    const ejected = backends[3];
    const view = () => stats().endpoints.find((e) => e.address === ejected.address)!;
    try {
      await runAProbeInterval(client);
      ejected.behaviour.failWith = status.UNAVAILABLE;
      await callUntil(client, 'outlier_detection to eject it', () => view().state === 'TRANSIENT_FAILURE');
      // Healthy again but slow, as it comes back: a restart in place would be in slow start now.
      ejected.behaviour.failWith = null;
      ejected.behaviour.delayMs = 4 * FLEET_MS;
      await callUntil(client, 'its ejection to end', () => view().state === 'READY');
      const slowStartBefore = stats().picks!.slowStart;
      await callMany(client, CALLS_AFTER);
      expect(stats().policy).toBe(PEAK_EWMA_POLICY_NAME);
      expect(view().slowStartMsLeft).toBeNull();
      expect(stats().picks!.slowStart).toBe(slowStartBefore);
    } finally {
      close();
      stopBackends(backends);
    }
  });
});
