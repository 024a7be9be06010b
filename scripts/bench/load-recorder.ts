/**
 * What one client records during a run (reference-load-test.md §5, Metrics):
 * latency from the intended start, OK calls in one histogram and all calls in
 * another (failures counted at the deadline), for the whole measurement window
 * and each phase, plus per-second counts with the calls each backend got.
 *
 * Latency histograms (window and phases) take a call by its completion, as
 * the reference's 1 s interval histograms and the simulator's phases do: a
 * call completing at t belongs to the phase containing t, and the window is
 * the calls completing in [0, measureS). The per-second counts (who got the
 * calls, the faulty backends' share, detection and recovery) take a call by
 * its intended start: they describe where the policy *sent* each second's
 * calls, which a slow backend's late answers must not smear into later
 * seconds. Calls intended before t = 0 are warm-up and kept out of the
 * per-second counts.
 *
 * Times are in timeline seconds of `secondMs` real ms each (1000 × the time
 * factor, scale.ts), so a time-scaled run keeps the reference's buckets.
 */
import { encodeHistogram, Histogram, newHistogram, recordMs } from './histogram';

export interface Phase {
  readonly name: string;
  /** [fromS, toS), seconds after the start of measurement. */
  readonly fromS: number;
  readonly toS: number;
}

export interface SecondBucket {
  sent: number;
  ok: number;
  failed: number;
  /** Calls per backend index (by the backend that got the call, OK or not); grows as backends join. */
  readonly perBackend: number[];
  /** Calls whose backend is unknown (failed before a stream was opened). */
  unattributed: number;
}

/** A recorder's contents, ready to cross a process boundary. */
export interface RecordedRun {
  readonly okHistogram: string;
  readonly allHistogram: string;
  readonly phases: readonly { readonly name: string; readonly okHistogram: string; readonly allHistogram: string; readonly ok: number; readonly failed: number }[];
  readonly seconds: readonly SecondBucket[];
  readonly ok: number;
  readonly failed: number;
  /** Failures by gRPC status code. */
  readonly failuresByCode: Readonly<Record<string, number>>;
}

export class LoadRecorder {
  private readonly ok = newHistogram();
  private readonly all = newHistogram();
  private readonly phaseOk: Histogram[];
  private readonly phaseAll: Histogram[];
  private readonly phaseCounts: { ok: number; failed: number }[];
  private readonly seconds: SecondBucket[];
  private okCount = 0;
  private failedCount = 0;
  private readonly failuresByCode: Record<string, number> = {};

  constructor(
    readonly measureS: number,
    readonly phases: readonly Phase[],
    /** Backends at the start; later ones (churn) extend the per-second arrays. */
    readonly backendCount: number,
    /** Failures are recorded in the all-calls histogram as at least this latency. */
    readonly deadlineMs: number,
    /** Real ms per timeline second. */
    readonly secondMs = 1000,
  ) {
    this.phaseOk = phases.map(() => newHistogram());
    this.phaseAll = phases.map(() => newHistogram());
    this.phaseCounts = phases.map(() => ({ ok: 0, failed: 0 }));
    this.seconds = Array.from({ length: Math.ceil(measureS) }, () => ({
      sent: 0,
      ok: 0,
      failed: 0,
      perBackend: new Array<number>(backendCount).fill(0),
      unattributed: 0,
    }));
  }

  /** The second a call intended at `intendedS` belongs to, or -1 outside the window. */
  secondOf(intendedS: number): number {
    if (!(intendedS >= 0) || intendedS >= this.measureS) {
      return -1;
    }
    return Math.floor(intendedS);
  }

  /**
   * One finished call. `intendedMs`: its intended start, real ms after t = 0;
   * `latencyMs`: completion − intended start; `backend`: index or -1.
   */
  record(intendedMs: number, latencyMs: number, ok: boolean, backend: number, code = 0): void {
    const second = this.secondOf(intendedMs / this.secondMs);
    if (second >= 0) {
      const bucket = this.seconds[second];
      bucket.sent++;
      if (backend >= 0) {
        while (bucket.perBackend.length <= backend) {
          bucket.perBackend.push(0);
        }
        bucket.perBackend[backend]++;
      } else {
        bucket.unattributed++;
      }
      if (ok) bucket.ok++;
      else bucket.failed++;
    }
    const completedS = (intendedMs + latencyMs) / this.secondMs;
    if (this.secondOf(completedS) < 0) {
      return;
    }
    const allMs = ok ? latencyMs : Math.max(latencyMs, this.deadlineMs);
    recordMs(this.all, allMs);
    if (ok) {
      this.okCount++;
      recordMs(this.ok, latencyMs);
    } else {
      this.failedCount++;
      this.failuresByCode[code] = (this.failuresByCode[code] ?? 0) + 1;
    }
    for (let i = 0; i < this.phases.length; i++) {
      const phase = this.phases[i];
      if (completedS >= phase.fromS && completedS < phase.toS) {
        recordMs(this.phaseAll[i], allMs);
        if (ok) {
          recordMs(this.phaseOk[i], latencyMs);
          this.phaseCounts[i].ok++;
        } else {
          this.phaseCounts[i].failed++;
        }
      }
    }
  }

  /** Progress so far: calls, failures and the OK p99 in ms (NaN before any). */
  progress(): { ok: number; failed: number; okP99Ms: number } {
    const okP99Ms = this.okCount > 0 ? this.ok.getValueAtPercentile(99) / 1000 : NaN;
    return { ok: this.okCount, failed: this.failedCount, okP99Ms };
  }

  bucket(second: number): SecondBucket | undefined {
    return this.seconds[second];
  }

  export(): RecordedRun {
    return {
      okHistogram: encodeHistogram(this.ok),
      allHistogram: encodeHistogram(this.all),
      phases: this.phases.map((phase, i) => ({
        name: phase.name,
        okHistogram: encodeHistogram(this.phaseOk[i]),
        allHistogram: encodeHistogram(this.phaseAll[i]),
        ...this.phaseCounts[i],
      })),
      seconds: this.seconds,
      ok: this.okCount,
      failed: this.failedCount,
      failuresByCode: { ...this.failuresByCode },
    };
  }
}
