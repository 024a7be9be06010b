/**
 * A slow episode replayed through the real engine in virtual time: one
 * endpoint, a call every `callIntervalMs`, each taking the backend's latency
 * at the moment it starts; the backend is `baseMs` fast, then `slowMs` slow
 * during [slowFromMs, slowUntilMs), then fast again. The estimate is read
 * every `readEveryMs` exactly as `getLoadBalancerStats()` reads it.
 */
import { ManualClock } from '../../src/core/clock';
import { currentRttMs } from '../../src/core/memory';
import { PeakEwmaSettings } from '../../src/core/peak-ewma-settings';
import { PeakEwmaModel } from '../../src/core/peak-ewma-model';
import { CallOutcome, EndpointLoad } from '../../src/core/endpoint-load';
import { LoadBalancingEngine } from '../../src/core/engine';
import { seededRandom } from '../../src/core/random';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';

export interface EpisodeOptions {
  readonly decayMs: number;
  readonly baseMs: number;
  readonly slowMs: number;
  readonly slowFromMs: number;
  readonly slowUntilMs: number;
  readonly durationMs: number;
  readonly callIntervalMs: number;
  readonly readEveryMs: number;
}

export const DEFAULT_EPISODE: Omit<EpisodeOptions, 'decayMs'> = {
  baseMs: 10,
  slowMs: 100,
  slowFromMs: 5_000,
  slowUntilMs: 10_000,
  durationMs: 30_000,
  callIntervalMs: 100,
  readEveryMs: 50,
};

export interface EpisodeRun {
  readonly options: EpisodeOptions;
  /** [time ms, estimate ms], one per read. */
  readonly estimate: readonly (readonly [number, number])[];
  /** Every latency sample the engine was given: [end time ms, latency ms]. */
  readonly samples: readonly (readonly [number, number])[];
}

/** The backend's latency for a call starting at `atMs`. */
export function latencyAt(options: Omit<EpisodeOptions, 'decayMs'>, atMs: number): number {
  return atMs >= options.slowFromMs && atMs < options.slowUntilMs ? options.slowMs : options.baseMs;
}

export function runEpisode(options: EpisodeOptions): EpisodeRun {
  const clock = new ManualClock();
  const settings: PeakEwmaSettings = {
    decayMs: options.decayMs,
    defaultRttMs: PEAK_EWMA_DEFAULTS.defaultRttMs,
    penaltyValue: PEAK_EWMA_DEFAULTS.penaltyValue,
    errorPenaltyFactor: PEAK_EWMA_DEFAULTS.errorPenaltyFactor,
  };
  const engine = new LoadBalancingEngine({
    model: new PeakEwmaModel(settings),
    choiceCount: PEAK_EWMA_DEFAULTS.choiceCount,
    clock: clock.now,
    random: seededRandom(1),
  });
  const load = new EndpointLoad();
  const inFlight: { endMs: number; startedAtMs: number }[] = [];
  const estimate: [number, number][] = [];
  const samples: [number, number][] = [];
  let nextCallMs = 0;
  let nextReadMs = 0;
  // Three event kinds in time order; at equal times: ends, then starts, then
  // the read, so a read sees everything that happened at its instant.
  while (nextReadMs <= options.durationMs) {
    inFlight.sort((a, b) => a.endMs - b.endMs);
    const nextEndMs = inFlight.length > 0 ? inFlight[0].endMs : Infinity;
    const atMs = Math.min(nextEndMs, nextCallMs, nextReadMs);
    clock.set(atMs);
    if (atMs === nextEndMs) {
      const call = inFlight.shift()!;
      engine.callEnded(load, CallOutcome.SUCCESS, call.startedAtMs);
      samples.push([atMs, atMs - call.startedAtMs]);
    } else if (atMs === nextCallMs) {
      if (engine.pick([load]) !== 0) {
        throw new Error('the engine did not pick the only endpoint');
      }
      const startedAtMs = engine.callStarted(load);
      inFlight.push({ startedAtMs, endMs: startedAtMs + latencyAt(options, startedAtMs) });
      nextCallMs += options.callIntervalMs;
    } else {
      estimate.push([atMs, currentRttMs(load, atMs, settings)]);
      nextReadMs += options.readEveryMs;
    }
  }
  return { options, estimate, samples };
}
