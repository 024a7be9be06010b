/**
 * A stand-in for the OpenTelemetry SDK's MeterProvider + metric reader
 * (`@opentelemetry/sdk-metrics`), which this repository does not install: it
 * implements the `@opentelemetry/api` interfaces the hook uses (asynchronous
 * instruments and batch callbacks) and, on `collect()`, runs the callbacks
 * and returns one line per observation in a Prometheus-like text form.
 * With the real SDK you would not write this; see examples/opentelemetry.ts.
 */
import {
  BatchObservableCallback,
  Meter,
  MeterProvider,
  MetricAttributes,
  MetricOptions,
  Observable,
  ObservableCallback,
} from '@opentelemetry/api';

class NamedObservable implements Observable {
  constructor(readonly name: string, readonly options: MetricOptions | undefined) {}
  addCallback(_callback: ObservableCallback): void {
    throw new Error('not supported by the console stand-in');
  }
  removeCallback(_callback: ObservableCallback): void {
    throw new Error('not supported by the console stand-in');
  }
}

const unsupported = (): never => {
  throw new Error('synchronous instruments are not supported by the console stand-in');
};

class ConsoleMeter implements Meter {
  readonly batches = new Set<BatchObservableCallback>();

  createObservableGauge(name: string, options?: MetricOptions): Observable {
    return new NamedObservable(name, options);
  }
  createObservableCounter(name: string, options?: MetricOptions): Observable {
    return new NamedObservable(name, options);
  }
  createObservableUpDownCounter(name: string, options?: MetricOptions): Observable {
    return new NamedObservable(name, options);
  }
  createGauge = unsupported;
  createHistogram = unsupported;
  createCounter = unsupported;
  createUpDownCounter = unsupported;
  addBatchObservableCallback(callback: BatchObservableCallback): void {
    this.batches.add(callback);
  }
  removeBatchObservableCallback(callback: BatchObservableCallback): void {
    this.batches.delete(callback);
  }
}

function formatAttributes(attributes: MetricAttributes): string {
  return Object.entries(attributes)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(',');
}

export class ConsoleMeterProvider implements MeterProvider {
  private readonly meters: ConsoleMeter[] = [];

  getMeter(): Meter {
    const meter = new ConsoleMeter();
    this.meters.push(meter);
    return meter;
  }

  /** One collection: `name{attributes} value [unit]` per observation. */
  async collect(): Promise<string[]> {
    const lines: string[] = [];
    for (const meter of this.meters) {
      for (const callback of meter.batches) {
        await callback({
          observe(metric, value, attributes = {}) {
            const { name, options } = metric as NamedObservable;
            lines.push(`${name}{${formatAttributes(attributes)}} ${Number(value.toFixed(3))} ${options?.unit ?? ''}`.trimEnd());
          },
        });
      }
    }
    return lines;
  }
}
