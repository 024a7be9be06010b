/**
 * How each pick was made, counted per balancer.
 *
 * Why. The rotation (rotation.ts) is what keeps peak_ewma at round_robin's
 * level on a healthy fleet of one- or two-slot backends, and the gate and
 * the margin decide when it gives way. Whether it runs shows in no latency
 * figure: an operator whose p99 is worse than round_robin's needs to see
 * whether most calls were rotation turns or draws, and why turns were
 * refused; the simulator's tally of where a tail comes from needs the same
 * split (docs/simulation.md). Counting costs one increment per pick.
 *
 * The paths, one per pick that returned an endpoint:
 * - `turn`        the next endpoint in the rotation took its turn;
 * - `challenged`  it passed the gate, and a random challenger took the call
 *                 (cheaper than `rotationMargin` × its cost);
 * - `refused`     the gate refused it its turn: the call went to the draw.
 *                 Why is counted apart (`Refusal`): a call of this client in
 *                 flight to it, a recent failure, or its mean over the line;
 * - `ejected`     it passed the gate but was ejected: the draw;
 * - `drawn`       no rotation at all: the draw alone (least_request, a
 *                 rotation switched off, or a single endpoint);
 * - `slowStart`   the gate refused it its turn for its mean, and slow start
 *                 gave it the turn anyway: a pod that joined the fleet and
 *                 is warming up takes its share (slow-start.ts). Counted
 *                 apart so that an operator sees the share, and so that
 *                 `turn` keeps meaning a typical endpoint's turn. Last, so
 *                 the numbers before it keep theirs.
 */

/** A path's number: the engine counts by number, so a pick pays one typed-array increment. */
export const PickPath = { turn: 0, challenged: 1, refused: 2, ejected: 3, drawn: 4, slowStart: 5 } as const;
export type PickPath = (typeof PickPath)[PickPathName];

/** A path's name, as stats and metrics report it. */
export type PickPathName = keyof typeof PickPath;

/** Every path's name, indexed by its number (the numbers above are 0, 1, … in this order). */
export const PICK_PATH_NAMES = Object.keys(PickPath) as readonly PickPathName[];

/** Picks counted by path since the balancer began. */
export type PickCounts = Readonly<Record<PickPathName, number>>;

/**
 * Why the gate refused a turn (rotation.ts), in the order the gate asks:
 * - `inFlight` a call of this client to it is still out;
 * - `failure`  its latest answer was a failure, or one came within
 *              `maxEjectionTime`;
 * - `mean`     its mean answer M is over `rotationGate` × the fleet average
 *              (its estimate, a lower bound, while it has only lost hedge
 *              races: ejection.ts `meanSignalMs`), or its latest answers
 *              were slow enough to leave it ejected.
 * Each refusal sends the call to a random draw, which at one or two slots
 * per backend queues like an independent arrival; a few per cent on a
 * healthy one-slot fleet cost nothing measurable over real gRPC
 * (docs/tuning-log.md §29), a large share says the gate is at work.
 */
export const Refusal = { inFlight: 0, failure: 1, mean: 2 } as const;
export type Refusal = (typeof Refusal)[RefusalName];
export type RefusalName = keyof typeof Refusal;
/** Every reason's name, indexed by its number (0, 1, … in this order). */
export const REFUSAL_NAMES = Object.keys(Refusal) as readonly RefusalName[];

/** Refused turns counted by why, since the balancer began; they add up to the `refused` picks. */
export type RefusalCounts = Readonly<Record<RefusalName, number>>;

export class PickPaths {
  private readonly counts = new Float64Array(PICK_PATH_NAMES.length);
  private readonly refusalCounts = new Float64Array(REFUSAL_NAMES.length);
  /** The path of the latest pick that returned an endpoint; -1 before the first. */
  last: PickPath | -1 = -1;

  count(path: PickPath): void {
    this.counts[path]++;
    this.last = path;
  }

  /** A pick whose incumbent the gate refused, for `reason`: counted as `refused` and by its reason. */
  countRefused(reason: Refusal): void {
    this.refusalCounts[reason]++;
    this.count(PickPath.refused);
  }

  /** The counts by name, for stats. */
  snapshot(): PickCounts {
    return byName(PICK_PATH_NAMES, this.counts);
  }

  /** The refused turns by reason, for stats. */
  refusals(): RefusalCounts {
    return byName(REFUSAL_NAMES, this.refusalCounts);
  }
}

/** `counts` by name, where `names` lists the names in the order of their numbers (0, 1, …). */
function byName<N extends string>(names: readonly N[], counts: Float64Array): Readonly<Record<N, number>> {
  return Object.fromEntries(names.map((name, i) => [name, counts[i]])) as Record<N, number>;
}
