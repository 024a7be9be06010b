/**
 * The metrics hook against real balancers on 127.0.0.1, collected through a
 * Meter typed with the real @opentelemetry/api interfaces: the values that
 * reach the meter are the balancer's own (calls each backend really served,
 * calls really in flight, the estimate of a backend of known latency).
 */
import { createNoopMeter } from '@opentelemetry/api';
import { callOnce } from '../../scripts/lib/probe-service';
import {
  BALANCER_METRIC_SPECS,
  callMarker,
  getLoadBalancerStats,
  METHOD_METRIC_SPECS,
  METRIC_SPECS,
  PICKS_METRIC,
  register,
  registerLoadBalancerMetrics,
  STATS_LABEL_OPTION,
} from '../../src';
import { startBackends, stopBackends, TestBackend } from '../support/backends';
import { clientFor, runTraffic, sleep } from '../support/traffic';
import { Observation, RecordingMeter } from './support/recording-meter';

register();

const FAST_MS = 5;
const SLOW_MS = 60;

function valuesOf(observations: Observation[], name: string, label: string): Map<string, number> {
  return new Map(
    observations
      .filter((o) => o.name === name && o.attributes['grpc.lb.label'] === label)
      .map((o) => [String(o.attributes['grpc.lb.endpoint']), o.value]),
  );
}

describe('registerLoadBalancerMetrics', () => {
  let backends: TestBackend[];
  beforeAll(async () => {
    backends = await startBackends(2, 'm');
    backends[0].behaviour.delayMs = FAST_MS;
    backends[1].behaviour.delayMs = SLOW_MS;
  });
  afterAll(() => stopBackends(backends));

  it('creates every grpc.lb.peak_ewma.* and grpc.lb.least_request.* instrument with a unit and description', () => {
    const meter = new RecordingMeter();
    const handle = registerLoadBalancerMetrics(meter);
    const expected = [...Object.values(METRIC_SPECS).flat(), ...METHOD_METRIC_SPECS, PICKS_METRIC, ...BALANCER_METRIC_SPECS];
    expect(meter.instruments.map((i) => [i.name, i.kind])).toEqual(expected.map((spec) => [spec.name, spec.kind]));
    expect(meter.instruments.map((i) => i.name)).toEqual(
      expect.arrayContaining([
        'grpc.lb.peak_ewma.rtt_estimate',
        'grpc.lb.peak_ewma.cost',
        'grpc.lb.peak_ewma.outstanding_calls',
        'grpc.lb.peak_ewma.calls_started',
        'grpc.lb.peak_ewma.sample_age',
        'grpc.lb.least_request.outstanding_calls',
        'grpc.lb.least_request.calls_started',
        'grpc.lb.peak_ewma.method_calls',
        'grpc.lb.peak_ewma.method_baseline',
        'grpc.lb.peak_ewma.picks',
        'grpc.lb.peak_ewma.ejected',
        'grpc.lb.peak_ewma.fleet_rtt',
        'grpc.lb.peak_ewma.ejection_line',
        'grpc.lb.peak_ewma.max_ejected',
      ]),
    );
    expect(meter.instruments.find((i) => i.name === 'grpc.lb.peak_ewma.calls_started')!.kind).toBe('counter');
    for (const instrument of meter.instruments) {
      expect(instrument.options?.unit).toMatch(/^(ms|\{call\}|\{pick\}|\{endpoint\})$/);
      expect(instrument.options?.description?.length).toBeGreaterThan(20);
    }
    handle.unregister();
  });

  it('reports a peak_ewma channel: calls each backend served, the slow backend estimated above its delay, cost = estimate × max(1, estimate ÷ fleet) when idle', async () => {
    const label = 'metrics-peak';
    const client = clientFor(backends, [{ peak_ewma_experimental: {} }], { [STATS_LABEL_OPTION]: label });
    const meter = new RecordingMeter();
    const handle = registerLoadBalancerMetrics(meter);
    try {
      const traffic = await runTraffic(client, { concurrency: 4, maxCalls: 100, maxDurationMs: 10_000 });
      expect(traffic.failures).toEqual([]);
      const observations = await meter.collect();
      const started = valuesOf(observations, 'grpc.lb.peak_ewma.calls_started', label);
      // Exactly what each backend's server counted: the meter sees the balancer's own accounting.
      expect(started.get(backends[0].address)).toBe(backends[0].calls);
      expect(started.get(backends[1].address)).toBe(backends[1].calls);
      expect(backends[0].calls).toBeGreaterThan(backends[1].calls); // and peak_ewma steered to the fast one
      const estimate = valuesOf(observations, 'grpc.lb.peak_ewma.rtt_estimate', label);
      // Every sample from the slow backend is >= its delay, and the estimate
      // jumps to each sample above it.
      expect(estimate.get(backends[1].address)).toBeGreaterThan(SLOW_MS * 0.9);
      // Each endpoint's estimate is the balancer's own for that endpoint (read
      // a moment apart, so the decay differs a hair). This replaces "the fast
      // one's estimate is below the slow one's", which was about the engine,
      // not the meter, and failed on a loaded machine (150.6 against 132.9 ms,
      // issue 19 stress run of 2026-12-01): one event-loop stall longer than
      // the slow delay during a late call to the fast backend lifts its peak
      // past the slow one's. Steering is the call-count check above.
      //
      // The two snapshots are taken apart, and the estimate decays toward the fleet average F in between
      // (τ = 2 s): a process descheduled for 11 ms beside a CPU hog made the ratio 1.0054 and failed
      // `toBeCloseTo(1, 2)`. How far apart they were is no guess: each snapshot's sample age says when it
      // was taken. So the stats' estimate must be the meter's, decayed toward F for at most that gap:
      // (E_stats − F) = (E_meter − F) × r with e^(−gap/τ) ≤ r ≤ 1 (r nearer 1 where the calls, not the
      // time, bound the decay: decayFairShares, and no call started in between).
      const balancerNow = getLoadBalancerStats().find((s) => s.label === label)!;
      const endpointStats = balancerNow.endpoints;
      const ageAtCollection = valuesOf(observations, 'grpc.lb.peak_ewma.sample_age', label);
      expect(estimate.size).toBe(2);
      for (const [address, value] of estimate) {
        const now = endpointStats.find((e) => e.address === address)!;
        const gapMs = now.msSinceLastSample! - ageAtCollection.get(address)!;
        expect(gapMs).toBeGreaterThanOrEqual(0);
        const fromFleetThen = value - balancerNow.fleetRttMs!;
        const fromFleetNow = now.estimateMs! - balancerNow.fleetRttMs!;
        const slack = 1e-9 * value;
        expect(Math.abs(fromFleetNow)).toBeLessThanOrEqual(Math.abs(fromFleetThen) + slack);
        expect(Math.abs(fromFleetNow)).toBeGreaterThanOrEqual(Math.abs(fromFleetThen) * Math.exp(-gapMs / 2_000) - slack);
        expect(fromFleetNow * fromFleetThen).toBeGreaterThanOrEqual(0); // the same side of F
      }
      const outstanding = valuesOf(observations, 'grpc.lb.peak_ewma.outstanding_calls', label);
      expect([...outstanding.values()]).toEqual([0, 0]);
      const cost = valuesOf(observations, 'grpc.lb.peak_ewma.cost', label);
      const fleetRttMs = getLoadBalancerStats().find((stats) => stats.label === label)!.fleetRttMs!;
      expect(fleetRttMs).toBeGreaterThan(0);
      // The balancer's fleet average, one series per balancer (no endpoint):
      // nothing answered between the collection and the stats, so it is the
      // same number.
      const fleetSeries = observations.filter((o) => o.name === 'grpc.lb.peak_ewma.fleet_rtt' && o.attributes['grpc.lb.label'] === label);
      expect(fleetSeries.map((o) => [o.value, o.attributes['grpc.lb.endpoint']])).toEqual([[fleetRttMs, undefined]]);
      for (const [address, value] of estimate) {
        // Nothing in flight: cost = E × 1, times E ÷ fleet above the fleet
        // (fleetPenaltyExponent 1), where E is the estimate floored at the
        // mean answer M while fresh (docs/tuning-log.md §19; M does not decay, so
        // it reads the same a moment later). Without the floor this failed
        // once in three clean-clone runs (1.196: an endpoint whose decayed
        // peak had fallen below its mean). Read a moment apart, so the decay
        // differs: e^(Δt/τ), 1.044 for an 85 ms gap seen beside another test
        // file's traffic on a loaded machine. ±5 % still tells the formula from
        // one without the fleet factor (the slow backend's estimate ÷ fleet
        // is ~2–3 here).
        const meanMs = endpointStats.find((e) => e.address === address)!.meanMs!;
        expect(meanMs).toBeGreaterThan(0);
        const floored = Math.max(value, meanMs);
        expect(cost.get(address)! / (floored * Math.max(1, floored / fleetRttMs))).toBeCloseTo(1, 1);
      }
      const age = valuesOf(observations, 'grpc.lb.peak_ewma.sample_age', label);
      expect(age.size).toBe(2);
      for (const value of age.values()) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThan(5_000);
      }
      // Picks by path, one series per path: the balancer's own counts, every call's pick among them.
      const picks = new Map(
        observations
          .filter((o) => o.name === 'grpc.lb.peak_ewma.picks' && o.attributes['grpc.lb.label'] === label)
          .map((o) => [String(o.attributes['grpc.lb.pick_path']), o.value]),
      );
      expect([...picks.keys()]).toEqual(['turn', 'challenged', 'refused', 'ejected', 'drawn', 'slowStart']);
      expect(Object.fromEntries(picks)).toEqual(getLoadBalancerStats().find((stats) => stats.label === label)!.picks);
      const pickTotal = [...picks.values()].reduce((a, b) => a + b, 0);
      expect(pickTotal).toBeGreaterThanOrEqual(100);
      expect(pickTotal).toBeLessThanOrEqual(110); // a pick grpc-js repeats before the call starts counts again
      // The rotation ran: with 4 calls in flight over 2 backends the incumbent
      // nearly always has one of this client's calls out, so the gate refuses
      // its turn and the draw, which sees those calls, decides (rotation.ts).
      // Seen: refused 85, challenged 10–11, turn 0–1, drawn 4.
      expect(picks.get('refused')).toBeGreaterThan(pickTotal / 2);
      // Drawn only while a single backend was READY (the first calls, before the second connected).
      expect(picks.get('drawn')).toBeLessThan(pickTotal / 4);
      const instanceId = getLoadBalancerStats().find((stats) => stats.label === label)!.instanceId;
      for (const o of observations.filter((o) => o.attributes['grpc.lb.label'] === label)) {
        expect(o.attributes['grpc.lb.policy']).toBe('peak_ewma_experimental');
        expect(o.attributes['grpc.lb.instance']).toBe(instanceId);
      }
    } finally {
      handle.unregister();
      client.close();
    }
  });

  it('reports per-method series for a channel scoring per method: each method\'s calls and baseline, as the balancer counts them', async () => {
    const label = 'metrics-methods';
    const client = clientFor(backends, [{ peak_ewma_experimental: { methodScoring: 'latency' } }], {
      [STATS_LABEL_OPTION]: label,
      interceptors: [callMarker],
    });
    const meter = new RecordingMeter();
    const handle = registerLoadBalancerMetrics(meter);
    try {
      const traffic = await runTraffic(client, { concurrency: 2, maxCalls: 30, maxDurationMs: 10_000 });
      expect(traffic.failures).toEqual([]);
      // Nothing is in flight now, so the collection and the stats read the same counts and averages.
      const observations = await meter.collect();
      const methods = getLoadBalancerStats().find((stats) => stats.label === label)!.methods;
      // callMarker named every call's method: Probe's Call, each of the 30 started on this channel.
      expect(methods.map((m) => m.method)).toEqual(['/loadtest.Probe/Call']);
      expect(methods[0].calls).toBeGreaterThanOrEqual(30);
      expect(methods[0].baselineMs).toBeGreaterThan(0);
      const perMethod = (name: string): Map<string, number> =>
        new Map(
          observations
            .filter((o) => o.name === name && o.attributes['grpc.lb.label'] === label)
            .map((o) => [String(o.attributes['grpc.lb.method']), o.value]),
        );
      const expectedCalls = new Map(methods.map((m) => [m.method, m.calls]));
      const expectedBaseline = new Map(methods.map((m) => [m.method, m.baselineMs]));
      expect(perMethod('grpc.lb.peak_ewma.method_calls')).toEqual(expectedCalls);
      expect(perMethod('grpc.lb.peak_ewma.method_baseline')).toEqual(expectedBaseline);
    } finally {
      handle.unregister();
      client.close();
    }
  });

  it('reports calls in flight while they are in flight', async () => {
    const label = 'metrics-in-flight';
    const client = clientFor([backends[1]], [{ peak_ewma_experimental: {} }], { [STATS_LABEL_OPTION]: label });
    const meter = new RecordingMeter();
    const handle = registerLoadBalancerMetrics(meter);
    try {
      await callOnce(client, 5_000); // connected
      backends[1].behaviour.delayMs = 1_000;
      const calls = Array.from({ length: 3 }, () => callOnce(client, 5_000));
      // Wait until the balancer has started all three (bounded).
      for (let i = 0; i < 100 && getLoadBalancerStats().find((s) => s.label === label)?.endpoints[0].outstanding !== 3; i++) {
        await sleep(10);
      }
      const during = valuesOf(await meter.collect(), 'grpc.lb.peak_ewma.outstanding_calls', label);
      expect(during.get(backends[1].address)).toBe(3);
      await Promise.all(calls);
      const after = valuesOf(await meter.collect(), 'grpc.lb.peak_ewma.outstanding_calls', label);
      expect(after.get(backends[1].address)).toBe(0);
    } finally {
      backends[1].behaviour.delayMs = SLOW_MS;
      handle.unregister();
      client.close();
    }
  });

  it('reports a least_request channel under grpc.lb.least_request.*, without peak_ewma-only metrics', async () => {
    const label = 'metrics-lr';
    const client = clientFor(backends, [{ least_request_experimental: {} }], { [STATS_LABEL_OPTION]: label });
    const meter = new RecordingMeter();
    const handle = registerLoadBalancerMetrics(meter);
    try {
      const before = backends.map((backend) => backend.calls);
      await runTraffic(client, { concurrency: 2, maxCalls: 40, maxDurationMs: 10_000 });
      const observations = (await meter.collect()).filter((o) => o.attributes['grpc.lb.label'] === label);
      expect(new Set(observations.map((o) => o.name))).toEqual(
        new Set(['grpc.lb.least_request.outstanding_calls', 'grpc.lb.least_request.calls_started']),
      );
      const started = valuesOf(observations, 'grpc.lb.least_request.calls_started', label);
      backends.forEach((backend, i) => expect(started.get(backend.address)).toBe(backend.calls - before[i]));
      expect([...started.values()].reduce((a, b) => a + b, 0)).toBe(40);
    } finally {
      handle.unregister();
      client.close();
    }
  });

  it('filters balancers, and stops reporting once unregistered', async () => {
    const client = clientFor(backends, [{ peak_ewma_experimental: {} }], { [STATS_LABEL_OPTION]: 'metrics-kept' });
    const other = clientFor(backends, [{ peak_ewma_experimental: {} }], { [STATS_LABEL_OPTION]: 'metrics-dropped' });
    const meter = new RecordingMeter();
    const handle = registerLoadBalancerMetrics(meter, { filter: (stats) => stats.label === 'metrics-kept' });
    try {
      await Promise.all([callOnce(client, 5_000), callOnce(other, 5_000)]);
      const labels = new Set((await meter.collect()).map((o) => o.attributes['grpc.lb.label']));
      expect(labels).toEqual(new Set(['metrics-kept']));
      handle.unregister();
      handle.unregister(); // idempotent
      expect(meter.callbackCount).toBe(0);
      expect(await meter.collect()).toEqual([]);
    } finally {
      client.close();
      other.close();
    }
  });

  it("accepts @opentelemetry/api's own no-op Meter", () => {
    const handle = registerLoadBalancerMetrics(createNoopMeter());
    expect(() => handle.unregister()).not.toThrow();
  });
});
