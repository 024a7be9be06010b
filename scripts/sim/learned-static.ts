/**
 * `learned-static`: oracle-static's schedule (oracle-static.ts) with speeds
 * the client learns from its own answers instead of reading them. A research
 * yardstick, not a product policy: does the shape that meets the 1–2-slot
 * cells survive learning?
 *
 * Per backend, the mean M of its last `window` answers (a failure counts as
 * `failureFactor` × the fleet's mean, since it failed fast). Every
 * `updateMs` the weights are frozen anew:
 *
 *     w = 1 while M ≤ gate · F,  else max(floor, (gate · F / M)^k)
 *
 * F the mean of the backends' M (each backend once), a backend with no
 * answer yet weighing 1. Between updates the weights do not move, so a
 * client's schedule is a steady smooth weighted round robin in the READY
 * order every client shares; `floor` keeps a slow backend sampled.
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { RandomSource } from '../../src/core/random';
import { ClientPolicy } from './client-policy';
import { SmoothRotation } from './smooth-rotation';

export interface LearnedStaticSettings {
  window: number;
  gate: number;
  exponent: number;
  floor: number;
  updateMs: number;
  failureFactor: number;
}

export const LEARNED_STATIC_DEFAULTS: LearnedStaticSettings = { window: 32, gate: 1.3, exponent: 4, floor: 0.02, updateMs: 1000, failureFactor: 3 };

/** The defaults with `config`'s fields over them; an unknown field, or a value that is not a finite number > 0 (floor ≤ 1), throws naming it. */
export function learnedStaticSettings(config: Record<string, unknown>): LearnedStaticSettings {
  const settings: LearnedStaticSettings = { ...LEARNED_STATIC_DEFAULTS };
  for (const [field, value] of Object.entries(config)) {
    if (!(field in LEARNED_STATIC_DEFAULTS)) {
      throw new RangeError(`learned-static: unknown field "${field}" (expected ${Object.keys(LEARNED_STATIC_DEFAULTS).join(', ')})`);
    }
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value) || (field === 'floor' && value > 1)) {
      throw new RangeError(`learned-static: "${field}" must be a finite number > 0${field === 'floor' ? ' and ≤ 1' : ''}, got ${JSON.stringify(value)}`);
    }
    settings[field as keyof LearnedStaticSettings] = value;
  }
  return settings;
}

export class LearnedStaticPolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  private readonly rotation = new SmoothRotation();
  private weights: number[] = [];
  private readonly meanMs = new Map<number, { mean: number; answers: number }>();
  private updatedAtMs = -Infinity;

  constructor(
    private readonly nowMs: () => number,
    private readonly random: RandomSource,
    private readonly settings: LearnedStaticSettings,
  ) {}

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
    this.rotation.reset(backendIds.length, this.random);
    this.updateWeights();
  }

  private fleetMeanMs(): number {
    let sum = 0;
    let count = 0;
    for (const id of this.ready) {
      const m = this.meanMs.get(id);
      if (m !== undefined) {
        sum += m.mean;
        count++;
      }
    }
    return count > 0 ? sum / count : NaN;
  }

  private updateWeights(): void {
    const { gate, exponent, floor } = this.settings;
    const fleet = this.fleetMeanMs();
    this.weights = this.ready.map((id) => {
      const m = this.meanMs.get(id);
      if (m === undefined || !(fleet > 0) || m.mean <= gate * fleet) return 1;
      return Math.max(floor, ((gate * fleet) / m.mean) ** exponent);
    });
    this.updatedAtMs = this.nowMs();
  }

  pick(): number {
    const ready = this.ready;
    if (ready.length === 0) return -1;
    if (this.nowMs() - this.updatedAtMs >= this.settings.updateMs) this.updateWeights();
    // Every weight is at least `floor` > 0, so something is chosen.
    return ready[this.rotation.next((i) => this.weights[i])];
  }

  started(): number {
    return this.nowMs();
  }

  ended(backendId: number, _outcome: CallOutcome, ok: boolean, token: number): void {
    let sample = this.nowMs() - token;
    if (!ok) {
      const fleet = this.fleetMeanMs();
      sample = Math.max(sample, fleet > 0 ? this.settings.failureFactor * fleet : sample);
    }
    const m = this.meanMs.get(backendId);
    if (m === undefined) {
      this.meanMs.set(backendId, { mean: sample, answers: 1 });
      return;
    }
    m.answers = Math.min(m.answers + 1, this.settings.window);
    m.mean += (sample - m.mean) / m.answers;
  }
}
