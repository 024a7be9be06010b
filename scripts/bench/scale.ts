/**
 * The regime a load-test run measures, and how it maps onto the reference's.
 *
 * The reference offers 70 % of a fleet of 8-slot, 10 ms backends (10,707
 * calls/s for 20 pods) from 8 clients on an 18-core machine; a shared 2-core
 * machine sustains a small fraction of that. Where the load test stands in
 * for the reference it keeps the reference's slots and slows time instead:
 * with time factor F every service time, deadline, GC pause and period, the
 * timeline (warm-up, measurement, fault window, per-second buckets) and the
 * policies' own time constants (decay, probe interval, outlier detection's
 * intervals, WRR's periods) are F times longer, so the offered rate is 1/F
 * and every dimensionless quantity of the reference is kept: utilisation,
 * queueing per slot, deadline and GC pause in medians, calls per client per
 * decay time, fault length in decay times. What does not scale is the
 * machine's own cost (loopback round trips, timer granularity, event-loop
 * stalls), which shrinks against the F-times-longer median. Results are in
 * real ms; ÷ F gives the reference's units.
 *
 * Changing the slots changes the regime (issue 15: at 1–2 slots a random
 * pick queues far more than at 8) and is its own, labelled, run: the
 * low-concurrency regimes run at 1 and 2 slots on a smaller fleet, at
 * F = 2 (a 20 ms median) because this machine could not serve the
 * reference's 10 ms there (LOW_CONCURRENCY_SCALES says what was measured).
 */
import { Behaviour, fleetCapacityRps, GC_PHASE_RANGE_MS, MethodSpec, ratePerClientRps, DEFAULT_BEHAVIOUR } from '../model';
import { seededRandom } from '../../src/core/random';

export interface Scale {
  /** Slots of a normal backend (the reference: 8); other roles keep their ratio to it, at least 1. */
  readonly slots: number;
  /** Multiplies every time: service times, deadlines, GC, the timeline and the policies' time constants. */
  readonly timeFactor: number;
  /** Offered load as a fraction of the fleet's capacity (the reference's 0.7). */
  readonly load: number;
  /** Backends in the fleet; undefined: the scenario's (20). */
  readonly backends?: number;
}

/** Reference layout: clients per policy, as the reference ran them. */
export const DEFAULT_CLIENTS_PER_POLICY = 2;
/** Uniform layout: clients per run, the reference's total, whatever the policy list. */
export const DEFAULT_UNIFORM_CLIENTS = 8;

export const REFERENCE_SCALE: Scale = { slots: 8, timeFactor: 1, load: 0.7 };

/**
 * The reference stand-in on a shared 2-core machine: 8 slots, time × 16
 * (160 ms median, 8 s deadline): 20 backends at 70 % take 669 calls/s
 * (homogeneous fleet), about what the machine serves without its own
 * event-loop stalls reaching the median. Every run's cost in wall time is
 * the reference's timeline × 16 (plan.ts estimates it before starting).
 */
export const DEFAULT_SCALE: Scale = { slots: 8, timeFactor: 16, load: 0.7 };

/**
 * The low-concurrency regimes (issue 15 item 3): 1 and 2 slots per backend
 * on small fleets, at time × LOW_CONCURRENCY_TIME_FACTOR (a 20-backend fleet
 * would be 1,338–2,677 calls/s at 10 ms, beyond this machine).
 *
 * Both offer the same 70 % of their fleet's capacity, and both fleets hold 6
 * slots: 6 backends × 1 slot, 3 backends × 2 slots. Utilisation per backend
 * is what sets the queueing a policy can avoid, so it stays the reference's
 * 0.7; at a fixed utilisation the offered rate follows the capacity, so the
 * levers that bring 2 slots within the machine's budget are the fleet size
 * and the time factor (fewer clients or a lower rate per client would lower
 * utilisation instead). Equal total slots give both regimes the same rate
 * from the same 8 clients, so the machine's own cost (client CPU, host
 * stalls) is the same in both and the regimes differ only in how the slots
 * are split. 6 backends × 2 slots at 10 ms offered 800 calls/s, over
 * MACHINE_BUDGET_RPS: round_robin had 17–88 % errors on identical backends
 * in 3 of 5 repeats; 4 backends (535 calls/s at 10 ms, 80 % of the budget)
 * would be within it on paper but leave a short median little room for the
 * stalls of a shared machine. The price of 3 backends: s01's het fleet is [noisy,
 * flaky, normal] (2 of 3 bad, against 2 of 6), and s03's slow pod is a third
 * of the capacity: while it is 5× slower the fleet runs at ~0.95 of what is
 * left even for a perfect policy (~0.8 at 6 × 1), so s03 at 2 slots is the
 * harsher brownout; its numbers compare policies within the regime, not the
 * regimes with each other.
 *
 * Why time × 2, measured 2026-12-01 (issue 15 item 3, commit 74b613c): at
 * the reference's 10 ms median, real time, the 400 calls/s these fleets take
 * were more than this machine served that day. Beside another session's
 * simulations the worst event-loop delay p99 per run had a median of 152 ms
 * over 120 runs; alone, 39 ms over 17 runs, and round_robin on identical
 * backends (1 slot × 6) had 16–33 % errors, while 200 calls/s (1 slot × 3)
 * ran at 12–13 ms with none. MACHINE_BUDGET_RPS was sized at a 160 ms
 * median, where such stalls are small beside the service time; a 10 ms
 * median tolerates far fewer calls/s. Halving the rate at 70 % by the fleet
 * alone needs 3 slots in total, 1.5 backends at 2 slots; time × 2 halves it
 * (200 calls/s) with the same slots, fleets and utilisation, and, as for the
 * 8-slot stand-in's time × 16, every time constant and the timeline are
 * scaled with it, so ms ÷ 2 are the reference's units, and a stall of the
 * machine weighs half as much against the 20 ms median.
 */
export const LOW_CONCURRENCY_TIME_FACTOR = 2;

export const LOW_CONCURRENCY_SCALES: readonly Scale[] = [
  { slots: 1, timeFactor: LOW_CONCURRENCY_TIME_FACTOR, load: 0.7, backends: 6 },
  { slots: 2, timeFactor: LOW_CONCURRENCY_TIME_FACTOR, load: 0.7, backends: 3 },
];

/**
 * Whether a regime is one of the low-concurrency ones: fewer slots than the
 * reference's, time-scaled, at a smaller time factor than the reference
 * stand-in's (how the report and a merge of result files tell them from the
 * stand-in's uniform runs). Any such factor, not today's: runs measured at
 * time × 1 (before 2026-12-01 evening) and at time × 2 are the same kind, so
 * merging the one replaces the other instead of leaving both beside each
 * other (or, worse, replacing the stand-in's own uniform runs).
 */
export function isLowConcurrency(regime: Regime): boolean {
  return regime.slots < DEFAULT_BEHAVIOUR.slots && regime.timeScaled && regime.timeFactor < DEFAULT_SCALE.timeFactor;
}

/** Older result files described the scale as a slot divisor, with the timeline and time constants unscaled. */
export interface LegacyScale {
  readonly slotDivisor: number;
  readonly timeFactor: number;
  readonly load: number;
}

/** Whether the timeline and the policies' time constants were scaled with the service times (legacy runs: no). */
export function timeScaled(scale: Scale | LegacyScale): boolean {
  return !('slotDivisor' in scale);
}

/** A saved scale in today's shape (legacy: slots = 8 ÷ divisor). */
export function normalScale(scale: Scale | LegacyScale): Scale {
  return 'slotDivisor' in scale
    ? { slots: DEFAULT_BEHAVIOUR.slots / scale.slotDivisor, timeFactor: scale.timeFactor, load: scale.load }
    : scale;
}

/**
 * A role's slots at this scale: the same fraction of a normal backend's,
 * rounded down and at least 1 (0 = unlimited stays), as the simulator's
 * `halfSlots` takes a throttled pod's or s10's half: at 3 slots both give
 * them 1 (rounding to nearest gave 2 here). One slot stays one: a server
 * that handles one call at a time (s15's `single` role) does so whatever
 * the others run, as in the simulator (roles.ts).
 */
function scaledSlots(slots: number, scale: Scale): number {
  if (slots <= 1) return slots;
  return Math.max(1, Math.floor((slots * scale.slots) / DEFAULT_BEHAVIOUR.slots));
}

/**
 * The range a backend's GC phase is drawn from at this scale: the
 * reference's, stretched as its period is, so a pause falls anywhere in a
 * window as the harness's does. Drawn by the model over the unstretched
 * range, every pause at × 16 fell in the first 10 s of its 160 s cycle,
 * at the same point of every repeat.
 */
export function gcPhaseRangeMsAt(scale: Scale): number {
  return GC_PHASE_RANGE_MS * scale.timeFactor;
}

/** The GC phase of the backend seeded `seed` at this scale: the draw its model makes first, over the stretched range. */
export function gcPhaseMsAt(scale: Scale, seed: number): number {
  return Math.floor(seededRandom(seed)() * gcPhaseRangeMsAt(scale));
}

/** Applies the scale to a behaviour or a patch (fields absent stay absent). */
export function scaleBehaviour<T extends Partial<Behaviour>>(behaviour: T, scale: Scale): T {
  const scaled: { -readonly [K in keyof Behaviour]?: Behaviour[K] } = { ...behaviour };
  const f = scale.timeFactor;
  if (behaviour.latencyFactor !== undefined) scaled.latencyFactor = behaviour.latencyFactor * f;
  if (behaviour.gcPeriodMs !== undefined) scaled.gcPeriodMs = behaviour.gcPeriodMs * f;
  if (behaviour.gcPauseMs !== undefined) scaled.gcPauseMs = behaviour.gcPauseMs * f;
  if (behaviour.extraDelayMs !== undefined) scaled.extraDelayMs = behaviour.extraDelayMs * f;
  if (behaviour.slots !== undefined) scaled.slots = scaledSlots(behaviour.slots, scale);
  return scaled as T;
}

export interface OfferedLoad {
  readonly fleetCapacityRps: number;
  readonly totalRps: number;
  readonly perClientRps: number;
}

/** The reference's rule: `max(10, int(load · capacity / clients))` per client. */
export function offeredLoad(
  scaledFleet: readonly Behaviour[],
  methods: readonly MethodSpec[],
  clientCount: number,
  scale: Scale,
): OfferedLoad {
  const capacity = fleetCapacityRps(scaledFleet, methods);
  const perClientRps = ratePerClientRps(capacity, scale.load, clientCount);
  return { fleetCapacityRps: capacity, totalRps: perClientRps * clientCount, perClientRps };
}

/** The methods with their deadlines stretched by the time factor. */
export function scaleMethods(methods: readonly MethodSpec[], scale: Scale): MethodSpec[] {
  return methods.map((method) => ({ ...method, deadlineMs: method.deadlineMs * scale.timeFactor }));
}

/** What a run measured, stated beside every number it produced. */
export interface Regime {
  /** Slots of a normal backend. */
  readonly slots: number;
  /** Median service time of the workload's main method (U10_get) at this scale, ms. */
  readonly medianMs: number;
  readonly timeFactor: number;
  /** Whether the timeline and the policies' time constants were scaled with the service times. */
  readonly timeScaled: boolean;
  readonly backends: number;
  readonly perClientRps: number;
  readonly clientsPerPolicy: number;
}

export function regimeOf(scale: Scale | LegacyScale, backends: number, perClientRps: number, clientsPerPolicy: number): Regime {
  const normal = normalScale(scale);
  return {
    slots: normal.slots,
    medianMs: 10 * normal.timeFactor,
    timeFactor: normal.timeFactor,
    timeScaled: timeScaled(scale),
    backends,
    perClientRps,
    clientsPerPolicy,
  };
}

/** "1 slot", "8 slots". */
export function slotsText(slots: number): string {
  return `${slots} slot${slots === 1 ? '' : 's'}`;
}

/**
 * "8 slots, 160 ms median (time × 16), 20 backends, 2 clients per policy at 28 calls/s"; `rateText` for a
 * group of runs whose rates differ (the rate follows each scenario's fleet capacity).
 */
export function regimeLabel(regime: Regime, rateText = `${regime.perClientRps} calls/s`): string {
  const time =
    regime.timeFactor === 1 ? '' : regime.timeScaled ? ` (time × ${regime.timeFactor})` : ` (service × ${regime.timeFactor}, timeline unscaled)`;
  const clients = `${regime.clientsPerPolicy} client${regime.clientsPerPolicy === 1 ? '' : 's'} per policy`;
  return `${slotsText(regime.slots)}, ${regime.medianMs} ms median${time}, ${regime.backends} backends, ${clients} at ${rateText}`;
}

/** The key runs of one regime share: slots, time and fleet size (rates follow from them and the layout). */
export function regimeKey(regime: Regime): string {
  return `${regime.slots}x${regime.medianMs}${regime.timeScaled ? '' : 'u'}/${regime.backends}`;
}

/** Short form for chart titles and verdict names: "8 slots × 160 ms". */
export function regimeShort(regime: Regime): string {
  return `${slotsText(regime.slots)} × ${regime.medianMs} ms`;
}

/**
 * The total rate this machine serves without its own stalls reaching the
 * median: what DEFAULT_SCALE was sized to (20 backends at 70 %, 669 calls/s
 * on a homogeneous fleet).
 */
export const MACHINE_BUDGET_RPS = 669;

/**
 * Whether a one-policy-per-run regime (every client of the run on one
 * policy) offered more than the machine serves (5 % slack): there the
 * backends' host processes stall under the load itself, so identical
 * backends are not a healthy fleet and the numbers measure the machine as
 * much as the policies. Seen at 2 slots × 10 ms (800 calls/s): round_robin
 * with 17–88 % errors in 3 of 5 repeats on identical backends.
 */
export function overMachineBudget(regime: Regime): boolean {
  return regime.perClientRps * regime.clientsPerPolicy > MACHINE_BUDGET_RPS * 1.05;
}
