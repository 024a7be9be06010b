/**
 * The slice of an OpenTelemetry `Meter` the metrics hook uses, declared
 * structurally so that this package has no runtime dependency on
 * `@opentelemetry/api`: a `Meter` from `@opentelemetry/api` (1.x) satisfies
 * it as is, and so does any object with these four methods.
 */

/** Attribute values as OpenTelemetry accepts them. */
export type MetricAttributeValue = string | number | boolean;

/** The attributes of one observation. */
export type MetricAttributes = Record<string, MetricAttributeValue>;

/** Options for an instrument; a subset of OpenTelemetry's `MetricOptions`. */
export interface InstrumentOptions {
  /** What the instrument measures, for humans. */
  readonly description?: string;
  /** UCUM unit, e.g. `ms` or `{call}`. */
  readonly unit?: string;
}

/**
 * An asynchronous instrument (observable gauge or counter). Opaque here: the
 * hook only hands it back to the meter's batch callback.
 */
export type ObservableInstrument = object;

/** What a batch callback records into (OpenTelemetry's `BatchObservableResult`). */
export interface BatchObservation {
  /** Records `value` for `instrument` (one created by the same meter) with `attributes`. */
  observe(instrument: ObservableInstrument, value: number, attributes?: MetricAttributes): void;
}

/** A callback that observes several instruments at once. */
export type BatchCallback = (result: BatchObservation) => void;

/** The four `Meter` methods the hook needs; `@opentelemetry/api`'s `Meter` has them. */
export interface MeterLike {
  /** An asynchronous gauge: the value now. */
  createObservableGauge(name: string, options?: InstrumentOptions): ObservableInstrument;
  /** An asynchronous monotonic counter: the cumulative total now. */
  createObservableCounter(name: string, options?: InstrumentOptions): ObservableInstrument;
  /** Has `callback` called at every collection to observe `observables`. */
  addBatchObservableCallback(callback: BatchCallback, observables: ObservableInstrument[]): void;
  /** Undoes addBatchObservableCallback (same callback, same observables array). */
  removeBatchObservableCallback(callback: BatchCallback, observables: ObservableInstrument[]): void;
}
