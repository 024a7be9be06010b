/**
 * Tracing through grpc-js's own switchboard: `GRPC_TRACE=peak_ewma` (or
 * `least_request`) with `GRPC_VERBOSITY=INFO` shows state changes; with
 * `GRPC_VERBOSITY=DEBUG` also every pick's candidates and costs.
 */
import { experimental, logVerbosity } from '@grpc/grpc-js';

const enabledTracers = new Set(
  (process.env.GRPC_NODE_TRACE ?? process.env.GRPC_TRACE ?? '').split(',').filter((name) => name.length > 0),
);
const verbosity = (process.env.GRPC_NODE_VERBOSITY ?? process.env.GRPC_VERBOSITY ?? '').toUpperCase();

export class Tracer {
  /**
   * Read once: the pick path checks this boolean and builds no string unless
   * per-pick tracing is on.
   */
  readonly picksEnabled: boolean;
  /** Whether this tracer is switched on at all (GRPC_TRACE), so a costlier line can be skipped when it is not. */
  readonly enabled: boolean;

  constructor(readonly name: string) {
    this.enabled = !enabledTracers.has('-' + name) && (enabledTracers.has('all') || enabledTracers.has(name));
    this.picksEnabled = this.enabled && verbosity === 'DEBUG';
  }

  info(text: string): void {
    experimental.trace(logVerbosity.INFO, this.name, text);
  }

  debug(text: string): void {
    experimental.trace(logVerbosity.DEBUG, this.name, text);
  }

  /** A line for every reader, traced or not: grpc-js prints ERROR by default. */
  error(text: string): void {
    experimental.log(logVerbosity.ERROR, `grpc-js-peak-ewma: ${this.name}: ${text}`);
  }
}
