/**
 * Asking the resolver again while it answers an empty list.
 *
 * After an empty list that replaces one it served, the balancer refuses
 * the update (returns false), and grpc-js's DNS resolver takes that as a
 * failed resolution and resolves again by itself, so an idle client finds
 * the endpoints when they come back (docs/design.md, "Resolution"). A
 * parent policy decides what the resolver hears, though: grpc-js's
 * outlier_detection returns true whatever its child said, so under it (the
 * lr_od composition, or any outlier_detection config) the refusal was lost
 * and an idle client's next call after the pods came back still failed.
 * So the balancer also asks for re-resolution itself, through its helper,
 * which every parent passes on. On a timer with back-off, not at once: a
 * resolver that answers a request at once with the same empty list (a
 * custom one that re-sends its state) would otherwise be asked again at
 * every answer, a loop as fast as the event loop. The back-off is grpc-js's
 * own (`experimental.BackoffTimeout`), with the channel's reconnect back-off
 * options, as grpc-js's resolving balancer and DNS resolver use them;
 * unref'd, so it never keeps a process alive.
 */
import { ChannelOptions, experimental } from '@grpc/grpc-js';

export class EmptyListRetry {
  private timer: experimental.BackoffTimeout | null = null;

  constructor(private readonly requestReresolution: () => void) {}

  /** An empty list came after a served one: ask again after the next back-off step, unless already waiting. */
  listEmpty(options: ChannelOptions): void {
    this.timer ??= this.newTimer(options);
    if (!this.timer.isRunning()) {
      this.timer.runOnce();
    }
  }

  /** Endpoints came back, or the balancer is going away: no more asking, and the back-off starts afresh. */
  stop(): void {
    this.timer?.stop();
    this.timer = null;
  }

  private newTimer(options: ChannelOptions): experimental.BackoffTimeout {
    const initialDelay = options['grpc.initial_reconnect_backoff_ms'];
    const maxDelay = options['grpc.max_reconnect_backoff_ms'];
    // Only the options the channel was given: grpc-js's own defaults for the rest.
    const timer = new experimental.BackoffTimeout(() => this.requestReresolution(), {
      ...(initialDelay !== undefined && { initialDelay }),
      ...(maxDelay !== undefined && { maxDelay }),
    });
    timer.unref();
    return timer;
  }
}
