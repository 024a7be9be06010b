/**
 * outlier_detection (gRFC A50) as grpc-js implements it
 * (load-balancer-outlier-detection.ts), wrapped around a child policy: per
 * endpoint two buckets of success/failure counts (success = status OK), and
 * every `interval` the success-rate and failure-percentage checks, bounded by
 * max_ejection_percent. An ejected endpoint reaches the child as not READY.
 * It returns at the first check at least base × multiplier (≤ max(base, max))
 * after its ejection; the multiplier drops by one per check it spends
 * un-ejected.
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { RandomSource } from '../../src/core/random';
import { Scheduler } from '../model/scheduler';
import { ClientPolicy } from './client-policy';

export interface OutlierDetectionSettings {
  intervalMs: number;
  baseEjectionMs: number;
  maxEjectionMs: number;
  maxEjectionPercent: number;
  successRate: { stdevFactor: number; enforcementPercent: number; minimumHosts: number; requestVolume: number } | null;
  failurePercentage: { threshold: number; enforcementPercent: number; minimumHosts: number; requestVolume: number } | null;
}

/** The reference's lr_od settings (reference-load-test.md §1). */
export const REFERENCE_OUTLIER_DETECTION: OutlierDetectionSettings = {
  intervalMs: 10_000,
  baseEjectionMs: 30_000,
  maxEjectionMs: 300_000,
  maxEjectionPercent: 20,
  successRate: { stdevFactor: 1900, enforcementPercent: 100, minimumHosts: 5, requestVolume: 100 },
  failurePercentage: { threshold: 50, enforcementPercent: 100, minimumHosts: 5, requestVolume: 50 },
};

interface Entry {
  successes: number;
  failures: number;
  lastSuccesses: number;
  lastFailures: number;
  ejectedAtMs: number; // NaN: not ejected
  multiplier: number;
}

export class OutlierDetectionPolicy implements ClientPolicy {
  private readonly entries = new Map<number, Entry>();
  private addresses: readonly number[] = [];
  /** Ejections so far (for reports). */
  ejections = 0;

  constructor(
    private readonly child: ClientPolicy,
    private readonly scheduler: Scheduler,
    private readonly random: RandomSource,
    private readonly settings: OutlierDetectionSettings = REFERENCE_OUTLIER_DETECTION,
  ) {
    scheduler.schedule(scheduler.nowMs() + settings.intervalMs, this.runChecks);
  }

  setReady(backendIds: readonly number[]): void {
    this.addresses = backendIds.slice();
    const present = new Set(backendIds);
    for (const id of backendIds) {
      if (!this.entries.has(id)) {
        this.entries.set(id, { successes: 0, failures: 0, lastSuccesses: 0, lastFailures: 0, ejectedAtMs: NaN, multiplier: 0 });
      }
    }
    for (const id of [...this.entries.keys()]) {
      if (!present.has(id)) {
        this.entries.delete(id);
      }
    }
    this.updateChild();
  }

  pick(method: number): number {
    return this.child.pick(method);
  }

  started(backendId: number, method: number): number {
    return this.child.started(backendId, method);
  }

  ended(backendId: number, outcome: CallOutcome, ok: boolean, token: number): void {
    const entry = this.entries.get(backendId);
    if (entry !== undefined) {
      if (ok) {
        entry.successes++;
      } else {
        entry.failures++;
      }
    }
    this.child.ended(backendId, outcome, ok, token);
  }

  isEjected(backendId: number): boolean {
    const entry = this.entries.get(backendId);
    return entry !== undefined && !Number.isNaN(entry.ejectedAtMs);
  }

  private updateChild(): void {
    this.child.setReady(this.addresses.filter((id) => !this.isEjected(id)));
  }

  private ejectedPercent(): number {
    let ejected = 0;
    for (const entry of this.entries.values()) {
      if (!Number.isNaN(entry.ejectedAtMs)) {
        ejected++;
      }
    }
    return (ejected * 100) / this.entries.size;
  }

  private readonly runChecks = (): void => {
    const nowMs = this.scheduler.nowMs();
    this.scheduler.schedule(nowMs + this.settings.intervalMs, this.runChecks);
    for (const entry of this.entries.values()) {
      entry.lastSuccesses = entry.successes;
      entry.lastFailures = entry.failures;
      entry.successes = 0;
      entry.failures = 0;
    }
    let changed = this.successRateCheck(nowMs);
    changed = this.failurePercentageCheck(nowMs) || changed;
    const { baseEjectionMs, maxEjectionMs } = this.settings;
    for (const entry of this.entries.values()) {
      if (Number.isNaN(entry.ejectedAtMs)) {
        if (entry.multiplier > 0) {
          entry.multiplier--;
        }
      } else {
        const returnMs = entry.ejectedAtMs + Math.min(baseEjectionMs * entry.multiplier, Math.max(baseEjectionMs, maxEjectionMs));
        if (returnMs <= nowMs) {
          entry.ejectedAtMs = NaN;
          changed = true;
        }
      }
    }
    if (changed) {
      this.updateChild();
    }
  };

  private successRateCheck(nowMs: number): boolean {
    const config = this.settings.successRate;
    if (config === null) {
      return false;
    }
    const rates: number[] = [];
    for (const entry of this.entries.values()) {
      const volume = entry.lastSuccesses + entry.lastFailures;
      if (volume >= config.requestVolume) {
        rates.push(entry.lastSuccesses / volume);
      }
    }
    if (rates.length < config.minimumHosts) {
      return false;
    }
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    const variance = rates.reduce((sum, rate) => sum + (rate - mean) ** 2, 0) / rates.length;
    const threshold = mean - Math.sqrt(variance) * (config.stdevFactor / 1000);
    return this.ejectOutliers(config, nowMs, (entry, volume) => entry.lastSuccesses / volume < threshold);
  }

  private failurePercentageCheck(nowMs: number): boolean {
    const config = this.settings.failurePercentage;
    if (config === null) {
      return false;
    }
    let withVolume = 0;
    for (const entry of this.entries.values()) {
      if (entry.lastSuccesses + entry.lastFailures >= config.requestVolume) {
        withVolume++;
      }
    }
    if (withVolume < config.minimumHosts) {
      return false;
    }
    return this.ejectOutliers(config, nowMs, (entry, volume) => (entry.lastFailures * 100) / volume > config.threshold);
  }

  /**
   * The ejection pass both algorithms share (gRFC A50): in entry order, stop
   * at maxEjectionPercent, skip entries under requestVolume, eject an outlier
   * with probability enforcementPercent.
   */
  private ejectOutliers(
    config: { requestVolume: number; enforcementPercent: number },
    nowMs: number,
    isOutlier: (entry: Entry, volume: number) => boolean,
  ): boolean {
    let changed = false;
    for (const entry of this.entries.values()) {
      if (this.ejectedPercent() >= this.settings.maxEjectionPercent) {
        break;
      }
      const volume = entry.lastSuccesses + entry.lastFailures;
      if (volume < config.requestVolume) {
        continue;
      }
      if (isOutlier(entry, volume) && this.random() * 100 < config.enforcementPercent) {
        changed = this.eject(entry, nowMs) || changed;
      }
    }
    return changed;
  }

  private eject(entry: Entry, nowMs: number): boolean {
    // grpc-js re-stamps an already ejected endpoint too (and bumps its multiplier).
    const wasEjected = !Number.isNaN(entry.ejectedAtMs);
    entry.ejectedAtMs = nowMs;
    entry.multiplier++;
    this.ejections++;
    return !wasEjected;
  }
}
