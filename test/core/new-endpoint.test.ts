/**
 * A new endpoint is probed promptly whatever the service's speed (issue 14
 * item 2). Before the fix an endpoint that had never answered cost a fixed
 * defaultRtt (10 ms) that never decays, so with two choices it lost to every
 * sampled peer cheaper than that: with a 2 ms service and 3 calls in flight
 * a pod added to 4 warm ones got 0 of 80,000 calls.
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, seededRandom } from '../../src/core';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

/**
 * A closed loop in virtual time: `inFlight` calls always outstanding, each
 * lasting `serviceMs` × a lognormal factor (σ 0.3), the next picked as one
 * ends. Returns the calls each endpoint got.
 */
function closedLoop(
  engine: LoadBalancingEngine,
  clock: ManualClock,
  loads: EndpointLoad[],
  calls: number,
  inFlight: number,
  serviceMs: number,
  sigma: number,
  seed: number,
): { perEndpoint: number[]; firstCallOf: number[] } {
  const noise = seededRandom(seed);
  const lognormal = (): number => Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - noise())) * Math.cos(2 * Math.PI * noise()));
  const perEndpoint = new Array<number>(loads.length).fill(0);
  const firstCallOf = new Array<number>(loads.length).fill(-1);
  let picks = 0;
  const running: { endsAtMs: number; load: EndpointLoad; startedAtMs: number }[] = [];
  const start = (): void => {
    const index = engine.pick(loads);
    if (firstCallOf[index] < 0) firstCallOf[index] = picks;
    picks++;
    perEndpoint[index]++;
    running.push({ endsAtMs: clock.now() + serviceMs * lognormal(), load: loads[index], startedAtMs: engine.callStarted(loads[index]) });
  };
  for (let i = 0; i < inFlight; i++) {
    start();
  }
  for (let done = inFlight; done < calls; done++) {
    let first = 0;
    for (let i = 1; i < running.length; i++) {
      if (running[i].endsAtMs < running[first].endsAtMs) first = i;
    }
    const [call] = running.splice(first, 1);
    clock.set(call.endsAtMs);
    engine.callEnded(call.load, CallOutcome.SUCCESS, call.startedAtMs);
    start();
  }
  // Drain, so every started call ends.
  for (const call of running.sort((a, b) => a.endsAtMs - b.endsAtMs)) {
    clock.set(call.endsAtMs);
    engine.callEnded(call.load, CallOutcome.SUCCESS, call.startedAtMs);
  }
  return { perEndpoint, firstCallOf };
}

/**
 * The product's defaults, and the same without the rotation: the rotation
 * offers every endpoint its turn whatever its cost, so under the defaults a
 * new endpoint is probed even if its cost were the old fixed defaultRtt;
 * without it the cost alone must let it in, which is what issue 14 fixed.
 */
const CONFIGS: readonly [string, () => PeakEwmaLoadBalancingConfig][] = [
  ['product defaults', () => new PeakEwmaLoadBalancingConfig()],
  ['no rotation', () => PeakEwmaLoadBalancingConfig.parse({ rotationGate: 0, rotationMargin: 0 })],
];

describe.each(CONFIGS)('a new endpoint joins a warm fleet (%s)', (_name, makeConfig) => {
  function engineFor(seed: number): { engine: LoadBalancingEngine; clock: ManualClock } {
    const config = makeConfig();
    const clock = new ManualClock();
    const engine = new LoadBalancingEngine({ model: config.createModel(), choiceCount: config.choiceCount, clock: clock.now, random: seededRandom(seed) });
    return { engine, clock };
  }

  it.each([
    // service ms, σ, seed: the case (a steady 2 ms service), then noisy, faster and slower ones.
    [2, 0, 1],
    [2, 0.3, 2],
    [1, 0.3, 3],
    [20, 0.3, 4],
  ])('%s ms service, σ %s, seed %s: probed within 20 picks and a fair share of 80,000 calls with 3 in flight', (serviceMs, sigma, seed) => {
    const { engine, clock } = engineFor(seed);
    const loads = [0, 1, 2, 3].map(() => new EndpointLoad());
    closedLoop(engine, clock, loads, 20_000, 3, serviceMs, sigma, seed);
    loads.push(new EndpointLoad());
    const { perEndpoint, firstCallOf } = closedLoop(engine, clock, loads, 80_000, 3, serviceMs, sigma, seed + 100);
    // Drawn with probability 2/5 per pick, it wins the first time: 20 picks miss it with 0.6^20 = 4e-5.
    expect(firstCallOf[4]).toBeGreaterThanOrEqual(0);
    expect(firstCallOf[4]).toBeLessThan(20);
    // Fair is 1/5 = 16,000 calls; identical endpoints, so anything near fair will do.
    expect(perEndpoint[4]).toBeGreaterThan(0.8 * 16_000);
    expect(perEndpoint[4]).toBeLessThan(1.2 * 16_000);
  });

  it('is probed at the first pick that draws it, one call at a time until its first answer', () => {
    const { engine, clock } = engineFor(5);
    const loads = [0, 1, 2, 3].map(() => new EndpointLoad());
    closedLoop(engine, clock, loads, 20_000, 3, 2, 0.3, 5);
    const fresh = new EndpointLoad();
    loads.push(fresh);
    // Pick without ending calls: the fresh endpoint is the pick whenever
    // drawn, then never again while its first call is out.
    let firstPick = -1;
    for (let i = 0; i < 50; i++) {
      const index = engine.pick(loads);
      if (index === 4) {
        if (firstPick < 0) firstPick = i;
        engine.callStarted(fresh);
      }
    }
    expect(firstPick).toBeGreaterThanOrEqual(0);
    // Two distinct draws of 5: drawn with probability 2/5 per pick, so 50 picks miss it with 0.6^50.
    expect(fresh.outstanding).toBe(1);
  });
});
