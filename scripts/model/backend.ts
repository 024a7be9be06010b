/**
 * One backend as a queueing model (reference-load-test.md §2): `slots` calls
 * in service at once, the rest in a FIFO queue; lognormal service times
 * capped at 50 × median; errors and unavailability answered before any
 * queueing; a black hole that accepts and never answers; a GC gate on
 * completion; an extra delay after the slot is released; queued calls whose
 * caller's deadline has passed are skipped when they reach a slot.
 *
 * The model owns no timers and no I/O: it asks a `Scheduler` for time, so the
 * simulator runs it in virtual time and the load test under real timers.
 * Calls are numbers (`callId`, chosen by the caller) and answers go to one
 * `ReplySink`, so the simulator's hot path allocates nothing per call; wrap
 * it (see `CallbackBackend`) where a callback per call is handier.
 *
 * Semantics worth knowing:
 * - A call in service keeps its slot until its service time is over, even if
 *   its caller has gone (deadline, cancel): the harness's executor did too.
 * - GC: with period P, pause D and a per-backend phase φ drawn once in
 *   [0, 10 s), a pause is on while (now + φ) mod P < D. A call whose service
 *   ends inside a pause completes, and frees its slot, when the pause ends;
 *   arrivals are still admitted and start service if a slot is free.
 * - Service never starts before the call arrived: a queued call reaching a
 *   slot starts at the later of now and its arrival. In virtual time that is
 *   always now; under the load test's logical clock a completion may run at a
 *   logical time before an arrival its host already handled (an event-loop
 *   stall, then the handler before the late timer), and starting the call
 *   then would answer it sooner than its service time and hide the stall.
 * - A reply is either OK (after service and `extraDelayMs`), UNAVAILABLE
 *   (at once, on `errorRate` or in `unavailable` mode) or RESOURCE_EXHAUSTED
 *   (at once, load shed: below). Skipped and black-holed calls get no reply
 *   at all.
 * - Load shedding (`queueLimit`, absent = unbounded): a call that finds every
 *   slot busy and `queueLimit` calls already queued is refused at once with
 *   RESOURCE_EXHAUSTED and counted in `refused`; it takes no slot, no time
 *   and no place in the queue. queueLimit 0 with one slot is grpcio's
 *   `maximum_concurrent_rpcs=1` on one worker: a call that finds the worker
 *   busy is refused. The queue counts every call in it, including ones whose
 *   caller has gone and that will be skipped at the head (the server does not
 *   know yet). The check comes after the error coin flip, so a flaky pod's
 *   errors stay UNAVAILABLE. Lowering `queueLimit` at run time refuses only
 *   later arrivals: calls already queued stay. With unlimited slots (0) no
 *   call is ever refused.
 * - Warm-up (`warmupFactor`, `warmupCalls`): the k-th call to begin service
 *   has its median multiplied by 1 + (factor − 1) · exp(−k / warmupCalls),
 *   counted over the backend's life, so a pod warms with the calls it is
 *   given, not with time. Default: none (the draw of service times is the
 *   same either way).
 */
import { RandomSource } from '../../src/core/random';
import { Behaviour, checkBehaviour, DEFAULT_BEHAVIOUR } from './behaviour';
import { NormalSource, serviceTimeMs } from './lognormal';
import { Scheduler } from './scheduler';
import { resized } from './typed-arrays';

/** gRPC status codes the model answers with. */
export const STATUS_OK = 0;
export const STATUS_RESOURCE_EXHAUSTED = 8;
export const STATUS_UNAVAILABLE = 14;
export type ReplyStatus = typeof STATUS_OK | typeof STATUS_RESOURCE_EXHAUSTED | typeof STATUS_UNAVAILABLE;

/** Why a call failed, as the harness words it. */
export const UNAVAILABLE_DETAILS = { flaky: 'flaky', crashLooping: 'crash-looping' } as const;

export type ReplySink = (callId: number, status: ReplyStatus) => void;

/**
 * The range of the random GC phase, as in the harness (Backend.java: an
 * offset in [0, 10 s) on the wall clock, so with its 10 s period a pause
 * falls anywhere in a window). A time-scaled load test stretches the period
 * and passes a `gcPhaseMs` drawn over the range stretched alike
 * (scripts/bench/scale.ts `gcPhaseMsAt`).
 */
export const GC_PHASE_RANGE_MS = 10_000;

export interface BackendOptions {
  scheduler: Scheduler;
  /** Draws service times, error coin flips and the GC phase. */
  random: RandomSource;
  behaviour?: Partial<Behaviour>;
  onReply: ReplySink;
  /** Overrides the random GC phase, in ms. */
  gcPhaseMs?: number;
}

export interface BackendCounters {
  /** Calls submitted. */
  arrivals: number;
  /** OK replies sent. */
  served: number;
  /** UNAVAILABLE replies sent (flaky or crash-looping). */
  failed: number;
  /** Queued calls dropped at the head of the queue because their deadline had passed or they were cancelled. */
  skipped: number;
  /** Calls swallowed in black-hole mode. */
  blackholed: number;
  /** RESOURCE_EXHAUSTED replies sent: every slot busy and the queue at `queueLimit` (load shed). */
  refused: number;
}

const EMPTY = -1;

export class BackendModel {
  readonly counters: BackendCounters = { arrivals: 0, served: 0, failed: 0, skipped: 0, blackholed: 0, refused: 0 };
  readonly gcPhaseMs: number;
  private current: Behaviour;
  private readonly scheduler: Scheduler;
  private readonly random: RandomSource;
  private readonly normal: NormalSource;
  private readonly onReply: ReplySink;

  // Calls in service, by service slot (not the same as `slots`: slot numbers
  // are storage, `slots` is the limit, which may drop below the number in use).
  private serviceCallId = new Float64Array(8).fill(EMPTY);
  private serviceEndMs = new Float64Array(8);
  private freeService: number[] = [7, 6, 5, 4, 3, 2, 1, 0];
  private busy = 0;
  /** Calls that began service over this backend's life: how far it has warmed up (Behaviour.warmupCalls). */
  private begun = 0;
  /** Called on every change to the calls in service, the queue or the behaviour. */
  private onChange: (() => void) | null = null;

  // FIFO ring of queued calls (capacity a power of two).
  private queueCallId = new Float64Array(64);
  private queueMedianMs = new Float64Array(64);
  private queueDeadlineMs = new Float64Array(64);
  private queueArrivalMs = new Float64Array(64);
  private queueHead = 0;
  private queueSize = 0;

  constructor(options: BackendOptions) {
    this.scheduler = options.scheduler;
    this.random = options.random;
    this.normal = new NormalSource(options.random);
    this.onReply = options.onReply;
    this.current = checkBehaviour({ ...DEFAULT_BEHAVIOUR, ...options.behaviour });
    this.gcPhaseMs = options.gcPhaseMs ?? Math.floor(this.random() * GC_PHASE_RANGE_MS);
  }

  get behaviour(): Behaviour {
    return this.current;
  }

  /** Calls in service now. */
  get inService(): number {
    return this.busy;
  }

  /** Calls waiting for a slot (including ones that will be skipped). */
  get queueLength(): number {
    return this.queueSize;
  }

  /**
   * Calls `listener` after every change to the calls in service, the queue
   * or the behaviour, so a reader that derives something from them (the
   * simulator's oracle) can keep it until told otherwise.
   */
  observe(listener: () => void): void {
    const previous = this.onChange;
    this.onChange =
      previous === null
        ? listener
        : () => {
            previous();
            listener();
          };
  }

  private changed(): void {
    if (this.onChange !== null) {
      this.onChange();
    }
  }

  /** A new process on the same address: it warms up again from its first call (Behaviour.warmupCalls). */
  restart(): void {
    this.begun = 0;
  }

  /** Changes behaviour fields at run time (fault injection, healing). */
  setBehaviour(patch: Partial<Behaviour>): void {
    this.current = checkBehaviour({ ...this.current, ...patch });
    this.changed();
    this.startQueued();
  }

  /**
   * A call arrives. `medianMs` is its method's nominal median (before
   * latencyFactor); `deadlineAtMs` is when its caller gives up, in scheduler
   * time (Infinity: never). May reply synchronously (errors).
   */
  submit(callId: number, medianMs: number, deadlineAtMs: number): void {
    this.counters.arrivals++;
    const behaviour = this.current;
    if (behaviour.mode === 'unavailable') {
      this.counters.failed++;
      this.onReply(callId, STATUS_UNAVAILABLE);
      return;
    }
    if (behaviour.mode === 'blackhole') {
      this.counters.blackholed++;
      return;
    }
    if (behaviour.errorRate > 0 && this.random() < behaviour.errorRate) {
      this.counters.failed++;
      this.onReply(callId, STATUS_UNAVAILABLE);
      return;
    }
    const nowMs = this.scheduler.nowMs();
    if (this.hasFreeSlot()) {
      this.startService(callId, medianMs, nowMs);
    } else if (this.queueAtLimit()) {
      this.counters.refused++;
      this.onReply(callId, STATUS_RESOURCE_EXHAUSTED);
    } else {
      this.enqueue(callId, medianMs, deadlineAtMs, nowMs);
    }
  }

  /**
   * Whether a call submitted now would be refused (every slot busy, the
   * queue at `queueLimit`): for the simulator's oracle, which sees it.
   */
  get full(): boolean {
    return !this.hasFreeSlot() && this.queueAtLimit();
  }

  /** Whether the queue holds `queueLimit` calls (never, unbounded): with every slot busy, the next call is refused. */
  private queueAtLimit(): boolean {
    const limit = this.current.queueLimit;
    return limit !== undefined && this.queueSize >= limit;
  }

  /**
   * The caller gave up on `callId`: if it is still queued it will be skipped.
   * A call in service runs on (its slot stays busy). Returns whether it was
   * found in the queue.
   */
  cancel(callId: number): boolean {
    const capacity = this.queueCallId.length;
    for (let i = 0; i < this.queueSize; i++) {
      const at = (this.queueHead + i) % capacity;
      if (this.queueCallId[at] === callId) {
        this.queueDeadlineMs[at] = -Infinity;
        this.changed();
        return true;
      }
    }
    return false;
  }

  /** When the GC pause in force at `nowMs` ends, or `nowMs` if none is. */
  gcPauseEndMs(nowMs: number): number {
    const { gcPeriodMs, gcPauseMs } = this.current;
    if (gcPeriodMs <= 0 || gcPauseMs <= 0) {
      return nowMs;
    }
    const intoCycleMs = (nowMs + this.gcPhaseMs) % gcPeriodMs;
    return intoCycleMs < gcPauseMs ? nowMs + (gcPauseMs - intoCycleMs) : nowMs;
  }

  /**
   * Copies the scheduled end times of the calls in service into `out`
   * (growing it if needed is the caller's job: at most `out.length` are
   * copied) and returns how many there are. For the simulator's oracle.
   */
  serviceEndTimes(out: Float64Array): number {
    let n = 0;
    for (let slot = 0; slot < this.serviceCallId.length && n < out.length; slot++) {
      if (this.serviceCallId[slot] !== EMPTY) {
        out[n++] = this.serviceEndMs[slot];
      }
    }
    return n;
  }

  /** The nominal median and deadline of the i-th queued call (0 = head). For the oracle. */
  queuedMedianMs(i: number): number {
    return this.queueMedianMs[(this.queueHead + i) % this.queueCallId.length];
  }
  queuedDeadlineMs(i: number): number {
    return this.queueDeadlineMs[(this.queueHead + i) % this.queueCallId.length];
  }

  private hasFreeSlot(): boolean {
    const slots = this.current.slots;
    return slots === 0 || this.busy < slots;
  }

  /** `startMs`: when service begins (now, or a queued call's arrival if that is later). */
  private startService(callId: number, medianMs: number, startMs: number): void {
    const behaviour = this.current;
    const durationMs = serviceTimeMs(medianMs * behaviour.latencyFactor * this.warmupMultiplier(), behaviour.sigma, this.normal);
    this.begun++;
    if (this.freeService.length === 0) {
      this.growService();
    }
    const slot = this.freeService.pop() as number;
    const endMs = startMs + durationMs;
    this.serviceCallId[slot] = callId;
    this.serviceEndMs[slot] = endMs;
    this.busy++;
    this.changed();
    this.scheduler.schedule(endMs, this.complete, slot);
  }

  /** How much slower than warm the next call is served (Behaviour.warmupFactor). */
  private warmupMultiplier(): number {
    const { warmupFactor, warmupCalls } = this.current;
    return warmupCalls > 0 && warmupFactor !== 1 ? 1 + (warmupFactor - 1) * Math.exp(-this.begun / warmupCalls) : 1;
  }

  /** A service time is over: free the slot unless a GC pause holds it. */
  private readonly complete = (slot: number): void => {
    const nowMs = this.scheduler.nowMs();
    this.changed();
    const pauseEndMs = this.gcPauseEndMs(nowMs);
    if (pauseEndMs > nowMs) {
      this.serviceEndMs[slot] = pauseEndMs;
      this.scheduler.schedule(pauseEndMs, this.complete, slot);
      return;
    }
    const callId = this.serviceCallId[slot];
    this.serviceCallId[slot] = EMPTY;
    this.freeService.push(slot);
    this.busy--;
    this.startQueued();
    this.counters.served++;
    if (this.current.extraDelayMs > 0) {
      this.scheduler.schedule(nowMs + this.current.extraDelayMs, this.replyOk, callId);
    } else {
      this.onReply(callId, STATUS_OK);
    }
  };

  private readonly replyOk = (callId: number): void => {
    this.onReply(callId, STATUS_OK);
  };

  /** Moves queued calls into free slots, skipping those whose caller has gone. */
  private startQueued(): void {
    const nowMs = this.scheduler.nowMs();
    while (this.queueSize > 0 && this.hasFreeSlot()) {
      const at = this.queueHead;
      this.queueHead = (at + 1) & (this.queueCallId.length - 1);
      this.queueSize--;
      this.changed();
      const arrivalMs = this.queueArrivalMs[at];
      const startMs = arrivalMs > nowMs ? arrivalMs : nowMs;
      if (this.queueDeadlineMs[at] <= startMs) {
        this.counters.skipped++;
        continue;
      }
      this.startService(this.queueCallId[at], this.queueMedianMs[at], startMs);
    }
  }

  private enqueue(callId: number, medianMs: number, deadlineAtMs: number, arrivalMs: number): void {
    if (this.queueSize === this.queueCallId.length) {
      this.growQueue();
    }
    const at = (this.queueHead + this.queueSize) & (this.queueCallId.length - 1);
    this.queueCallId[at] = callId;
    this.queueMedianMs[at] = medianMs;
    this.queueDeadlineMs[at] = deadlineAtMs;
    this.queueArrivalMs[at] = arrivalMs;
    this.queueSize++;
    this.changed();
  }

  private growQueue(): void {
    const capacity = this.queueCallId.length;
    const unroll = (ring: Float64Array): Float64Array<ArrayBuffer> => {
      const bigger = new Float64Array(capacity * 2);
      for (let i = 0; i < this.queueSize; i++) {
        bigger[i] = ring[(this.queueHead + i) % capacity];
      }
      return bigger;
    };
    this.queueCallId = unroll(this.queueCallId);
    this.queueMedianMs = unroll(this.queueMedianMs);
    this.queueDeadlineMs = unroll(this.queueDeadlineMs);
    this.queueArrivalMs = unroll(this.queueArrivalMs);
    this.queueHead = 0;
  }

  private growService(): void {
    const capacity = this.serviceCallId.length;
    this.serviceCallId = resized(this.serviceCallId, capacity * 2, EMPTY);
    this.serviceEndMs = resized(this.serviceEndMs, capacity * 2);
    for (let slot = capacity * 2 - 1; slot >= capacity; slot--) {
      this.freeService.push(slot);
    }
  }
}
