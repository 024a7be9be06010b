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

  constructor(readonly name: string) {
    const enabled = !enabledTracers.has('-' + name) && (enabledTracers.has('all') || enabledTracers.has(name));
    this.picksEnabled = enabled && verbosity === 'DEBUG';
  }

  info(text: string): void {
    experimental.trace(logVerbosity.INFO, this.name, text);
  }

  debug(text: string): void {
    experimental.trace(logVerbosity.DEBUG, this.name, text);
  }
}
