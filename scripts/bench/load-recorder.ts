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
 * A workload of several methods also gets a histogram pair per method group
 * (the reference's per-method Recorder), over the same window, each method's
 * failures counted at that method's own deadline.
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

/** One group's histograms (OK calls; all calls, failures at the deadline) and counts, encoded. */
export interface RecordedGroup {
  readonly okHistogram: string;
  readonly allHistogram: string;
  readonly ok: number;
  readonly failed: number;
}

/** A method group the recorder keeps apart: its name and the deadline its failures count at. */
export interface MethodGroup {
  readonly name: string;
  readonly deadlineMs: number;
}

/** A recorder's contents, ready to cross a process boundary. */
export interface RecordedRun {
  readonly okHistogram: string;
  readonly allHistogram: string;
  readonly phases: readonly (RecordedGroup & { readonly name: string })[];
  /** Per method group, whole window (absent for a one-method workload and in older result files). */
  readonly methods?: readonly (RecordedGroup & { readonly name: string })[];
  readonly seconds: readonly SecondBucket[];
  readonly ok: number;
  readonly failed: number;
  /** Failures by gRPC status code. */
  readonly failuresByCode: Readonly<Record<string, number>>;
}

/** One group's OK and all-call histograms with their counts: the window, a phase or a method. */
class CallHistograms {
  private readonly okHistogram: Histogram = newHistogram();
  private readonly allHistogram: Histogram = newHistogram();
  ok = 0;
  failed = 0;

  /** A completed call; a failure counts as at least `deadlineMs` in the all-calls histogram. */
  record(latencyMs: number, ok: boolean, deadlineMs: number): void {
    recordMs(this.allHistogram, ok ? latencyMs : Math.max(latencyMs, deadlineMs));
    if (ok) {
      this.ok++;
      recordMs(this.okHistogram, latencyMs);
    } else {
      this.failed++;
    }
  }

  /** The OK p99 in ms, NaN before any OK call. */
  okP99Ms(): number {
    return this.ok > 0 ? this.okHistogram.getValueAtPercentile(99) / 1000 : NaN;
  }

  export(): RecordedGroup {
    return {
      okHistogram: encodeHistogram(this.okHistogram),
      allHistogram: encodeHistogram(this.allHistogram),
      ok: this.ok,
      failed: this.failed,
    };
  }
}

export class LoadRecorder {
  private readonly window = new CallHistograms();
  private readonly phaseGroups: CallHistograms[];
  private readonly methodGroups: CallHistograms[];
  private readonly seconds: SecondBucket[];
  private readonly failuresByCode: Record<string, number> = {};

  constructor(
    readonly measureS: number,
    readonly phases: readonly Phase[],
    /** Backends at the start; later ones (churn) extend the per-second arrays. */
    readonly backendCount: number,
    /** Failures of calls without a method group are recorded in the all-calls histograms as at least this latency (a method's own deadline otherwise). */
    readonly deadlineMs: number,
    /** Real ms per timeline second. */
    readonly secondMs = 1000,
    /** Method groups recorded apart (a `record` call names one by index); none for a one-method workload. */
    readonly methods: readonly MethodGroup[] = [],
  ) {
    this.phaseGroups = phases.map(() => new CallHistograms());
    this.methodGroups = methods.map(() => new CallHistograms());
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
   * `latencyMs`: completion − intended start; `backend`: index or -1;
   * `method`: index into `methods`, or -1 (no method groups).
   */
  record(intendedMs: number, latencyMs: number, ok: boolean, backend: number, code = 0, method = -1): void {
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
    // A failure counts at its own call's deadline, as the simulator counts it: with methods of
    // other deadlines (s13's 500 ms ping beside a 5 s report) the longest was every failure's.
    const deadlineMs = method >= 0 ? this.methods[method].deadlineMs : this.deadlineMs;
    this.window.record(latencyMs, ok, deadlineMs);
    if (!ok) {
      this.failuresByCode[code] = (this.failuresByCode[code] ?? 0) + 1;
    }
    if (method >= 0) {
      this.methodGroups[method].record(latencyMs, ok, deadlineMs);
    }
    for (let i = 0; i < this.phases.length; i++) {
      const phase = this.phases[i];
      if (completedS >= phase.fromS && completedS < phase.toS) {
        this.phaseGroups[i].record(latencyMs, ok, deadlineMs);
      }
    }
  }

  /** Progress so far: calls, failures and the OK p99 in ms (NaN before any). */
  progress(): { ok: number; failed: number; okP99Ms: number } {
    return { ok: this.window.ok, failed: this.window.failed, okP99Ms: this.window.okP99Ms() };
  }

  bucket(second: number): SecondBucket | undefined {
    return this.seconds[second];
  }

  export(): RecordedRun {
    const { okHistogram, allHistogram, ok, failed } = this.window.export();
    return {
      okHistogram,
      allHistogram,
      phases: this.phases.map((phase, i) => ({ name: phase.name, ...this.phaseGroups[i].export() })),
      ...(this.methods.length > 0 ? { methods: this.methods.map((method, i) => ({ name: method.name, ...this.methodGroups[i].export() })) } : {}),
      seconds: this.seconds,
      ok,
      failed,
      failuresByCode: { ...this.failuresByCode },
    };
  }
}
