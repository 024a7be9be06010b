/**
 * The workload's methods: the harness names a unary method `U<ms>_<name>`,
 * `<ms>` being its nominal median service time (`U0` answers at once), and a
 * mix as `name:weight,...`. Deadline per method = max(500 ms, 5 × nominal)
 * (reference-load-test.md §4).
 */
export interface MethodSpec {
  readonly name: string;
  /** Nominal median service time at latencyFactor 1, in ms. */
  readonly medianMs: number;
  /** Relative share of calls. */
  readonly weight: number;
  /** The caller's deadline, in ms after the intended start. */
  readonly deadlineMs: number;
}

export const MIN_DEADLINE_MS = 500;

export function deadlineForMedianMs(medianMs: number): number {
  return Math.max(MIN_DEADLINE_MS, 5 * medianMs);
}

const METHOD_NAME = /^U(\d+(?:\.\d+)?)_\w+$/;

/** Parses "U10_get" or "U10_get:30". */
export function parseMethod(text: string): MethodSpec {
  const [name, weightText] = text.trim().split(':');
  const match = METHOD_NAME.exec(name);
  if (!match) {
    throw new RangeError(`method "${name}" must look like U<median ms>_<name>, e.g. U10_get`);
  }
  const weight = weightText === undefined ? 1 : Number(weightText);
  if (!(weight > 0) || !Number.isFinite(weight)) {
    throw new RangeError(`method "${name}": weight must be a number > 0, got "${weightText}"`);
  }
  const medianMs = Number(match[1]);
  return { name, medianMs, weight, deadlineMs: deadlineForMedianMs(medianMs) };
}

/** Parses "U1_ping:40,U10_get:30". */
export function parseMethodMix(text: string): MethodSpec[] {
  const methods = text.split(',').filter((part) => part.trim() !== '').map(parseMethod);
  if (methods.length === 0) {
    throw new RangeError('method mix must name at least one method');
  }
  return methods;
}

/** The Tier 2 workload: one unary method, 10 ms median. */
export const SINGLE_METHOD: readonly MethodSpec[] = parseMethodMix('U10_get');

/** s13's mix (mean nominal median 49.4 ms). */
export const FIVE_METHODS: readonly MethodSpec[] = parseMethodMix(
  'U1_ping:40,U10_get:30,U50_list:20,U200_search:8,U1000_report:2',
);

/** Weighted mean of the nominal medians, in ms. */
export function meanMedianMs(methods: readonly MethodSpec[]): number {
  let weighted = 0;
  let total = 0;
  for (const method of methods) {
    weighted += method.weight * method.medianMs;
    total += method.weight;
  }
  return weighted / total;
}
