/**
 * One client, 20 endpoints; endpoint 0 fails every call at once (s04), the
 * others answer in 0.25–0.75 ms. One call every 1000/rate ms, each done
 * before the next. From `healAtMs` on (default never) endpoint 0 answers
 * like the others. Returns the chosen endpoint of every call.
 */
import { CallOutcome, EndpointLoad, LoadBalancingEngine, ManualClock, PeakEwmaModel, PeakEwmaSettings, seededRandom } from '../../src/core';

export function crashLoop(settings: PeakEwmaSettings, callsPerSecond: number, seconds: number, healAtMs = Infinity): number[] {
  const clock = new ManualClock();
  const engine = new LoadBalancingEngine({ model: new PeakEwmaModel(settings), choiceCount: 2, clock: clock.now, random: seededRandom(7) });
  const loads = Array.from({ length: 20 }, () => new EndpointLoad());
  const latency = seededRandom(3);
  const periodMs = 1_000 / callsPerSecond;
  const chosen: number[] = [];
  for (let i = 0; i < seconds * callsPerSecond; i++) {
    clock.set(i * periodMs);
    const index = engine.pick(loads);
    const started = engine.callStarted(loads[index]);
    const failing = index === 0 && clock.now() < healAtMs;
    clock.advance(failing ? 0.1 : 0.25 + 0.5 * latency());
    engine.callEnded(loads[index], failing ? CallOutcome.FAILURE : CallOutcome.SUCCESS, started);
    chosen.push(index);
  }
  return chosen;
}

/** Calls to endpoint 0 from call `fromCall` (to `toCall`, default the end) on. */
export const probesBetween = (chosen: number[], fromCall: number, toCall = chosen.length): number =>
  chosen.slice(fromCall, toCall).filter((index) => index === 0).length;
