/**
 * A `BackendModel` with one callback per call, for callers (the load test's
 * gRPC servers) that hold a handler per call rather than a call number.
 */
import { BackendModel, BackendOptions, ReplyStatus } from './backend';

export type ReplyCallback = (status: ReplyStatus) => void;

export class CallbackBackend {
  readonly model: BackendModel;
  private readonly pending = new Map<number, ReplyCallback>();
  private nextCallId = 0;

  constructor(options: Omit<BackendOptions, 'onReply'>) {
    this.model = new BackendModel({ ...options, onReply: this.deliver });
  }

  /**
   * Submits a call; `reply` runs once (maybe synchronously) unless the call
   * is skipped, black-holed or cancelled first. Returns the call's number
   * for `cancel`.
   */
  submit(medianMs: number, deadlineAtMs: number, reply: ReplyCallback): number {
    const callId = this.nextCallId++;
    this.pending.set(callId, reply);
    this.model.submit(callId, medianMs, deadlineAtMs);
    return callId;
  }

  /** The caller has gone: no reply will be delivered; a queued call is skipped. */
  cancel(callId: number): void {
    if (this.pending.delete(callId)) {
      this.model.cancel(callId);
    }
  }

  /** Calls that may still get a reply (in service, queued, or held by a black hole). */
  get outstanding(): number {
    return this.pending.size;
  }

  private readonly deliver = (callId: number, status: ReplyStatus): void => {
    const reply = this.pending.get(callId);
    if (reply !== undefined) {
      this.pending.delete(callId);
      reply(status);
    }
  };
}
