/**
 * A minimal OpenTelemetry `Meter` (typed against the real @opentelemetry/api
 * interfaces) that records what batch callbacks observe when `collect()` is
 * called, as an SDK's metric reader would. No SDK is installed; this is the
 * part of one the hook talks to.
 */
import {
  BatchObservableCallback,
  BatchObservableResult,
  Meter,
  MetricAttributes,
  MetricOptions,
  Observable,
  ObservableCallback,
} from '@opentelemetry/api';

export interface Observation {
  readonly name: string;
  readonly value: number;
  readonly attributes: MetricAttributes;
}

class RecordingObservable implements Observable {
  constructor(
    readonly name: string,
    readonly kind: 'gauge' | 'counter',
    readonly options: MetricOptions | undefined,
  ) {}
  addCallback(_callback: ObservableCallback): void {
    throw new Error('single-instrument callbacks are not used by the hook');
  }
  removeCallback(_callback: ObservableCallback): void {
    throw new Error('single-instrument callbacks are not used by the hook');
  }
}

const unused = (): never => {
  throw new Error('synchronous instruments are not used by the hook');
};

export class RecordingMeter implements Meter {
  readonly instruments: RecordingObservable[] = [];
  private callbacks: { callback: BatchObservableCallback; observables: Observable[] }[] = [];

  get callbackCount(): number {
    return this.callbacks.length;
  }

  createObservableGauge(name: string, options?: MetricOptions): Observable {
    return this.add(new RecordingObservable(name, 'gauge', options));
  }
  createObservableCounter(name: string, options?: MetricOptions): Observable {
    return this.add(new RecordingObservable(name, 'counter', options));
  }
  createObservableUpDownCounter = unused;
  createGauge = unused;
  createHistogram = unused;
  createCounter = unused;
  createUpDownCounter = unused;

  addBatchObservableCallback(callback: BatchObservableCallback, observables: Observable[]): void {
    this.callbacks.push({ callback, observables });
  }
  removeBatchObservableCallback(callback: BatchObservableCallback, observables: Observable[]): void {
    this.callbacks = this.callbacks.filter((entry) => !(entry.callback === callback && entry.observables === observables));
  }

  /** Runs every batch callback once, like one collection cycle. */
  async collect(): Promise<Observation[]> {
    const observations: Observation[] = [];
    for (const { callback, observables } of this.callbacks) {
      const result: BatchObservableResult = {
        observe(metric, value, attributes = {}) {
          if (!observables.includes(metric)) {
            throw new Error('observed an instrument that was not registered with this callback');
          }
          observations.push({ name: (metric as RecordingObservable).name, value, attributes });
        },
      };
      await callback(result);
    }
    return observations;
  }

  private add(instrument: RecordingObservable): RecordingObservable {
    this.instruments.push(instrument);
    return instrument;
  }
}
