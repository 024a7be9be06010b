/**
 * Scaling the reference's fleet down to what a small machine can drive.
 *
 * The reference offers 70 % of a fleet of 8-slot, 10 ms backends (10,707
 * calls/s for 20 pods) from 8 clients on an 18-core machine. A 2-core machine
 * running 20 servers and 6 clients sustains well under a tenth of that, so
 * capacity is scaled down and the 70 % utilisation kept: every slot count is
 * divided by `slotDivisor` and every service time multiplied by `timeFactor`
 * (as a latencyFactor, so role and fault factors compose with it). The
 * client's deadline is stretched by the same factor, so it stays 50 nominal
 * medians (500 ms for U10) as in the reference: otherwise a noisy pod's slow
 * tail would hit the deadline where the reference's never did. GC pauses,
 * decay times and the timeline stay as in the reference.
 */
import { Behaviour, fleetCapacityRps, MethodSpec, ratePerClientRps } from '../model';

export interface Scale {
  /** Divides slot counts (8 → 8 / slotDivisor). */
  readonly slotDivisor: number;
  /** Multiplies service times. */
  readonly timeFactor: number;
  /** Offered load as a fraction of the fleet's capacity (the reference's 0.7). */
  readonly load: number;
}

export const REFERENCE_SCALE: Scale = { slotDivisor: 1, timeFactor: 1, load: 0.7 };

/**
 * Default on a shared 2-core machine: 2-slot, 120 ms backends; 222 calls/s
 * for the homogeneous fleet at 70 %. Measured there: a unary call costs ~2 ms
 * of CPU in the client process and ~1 ms in the backend host (grpc-js over
 * loopback on a small VM), and other work on the machine stalls event loops
 * by 100+ ms at the p99; long service times keep that harness noise small
 * next to the latencies being compared.
 */
export const DEFAULT_SCALE: Scale = { slotDivisor: 4, timeFactor: 12, load: 0.7 };

/** Applies the scale to a behaviour or a patch (fields absent stay absent). */
export function scaleBehaviour<T extends Partial<Behaviour>>(behaviour: T, scale: Scale): T {
  const scaled: { -readonly [K in keyof Behaviour]?: Behaviour[K] } = { ...behaviour };
  if (behaviour.latencyFactor !== undefined) {
    scaled.latencyFactor = behaviour.latencyFactor * scale.timeFactor;
  }
  if (behaviour.slots !== undefined && behaviour.slots > 0) {
    const slots = behaviour.slots / scale.slotDivisor;
    if (!Number.isInteger(slots)) {
      throw new RangeError(`scale: ${behaviour.slots} slots / slotDivisor ${scale.slotDivisor} is not a whole number`);
    }
    scaled.slots = slots;
  }
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
