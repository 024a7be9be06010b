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
 *                 (cheaper than `rotationMargin` × its cost, or it was ejected);
 * - `refused`     the gate refused it its turn (mean over the line, a call of
 *                 this client in flight, a recent failure): the call went to
 *                 the draw;
 * - `ejected`     it passed the gate but was ejected (no margin): the draw;
 * - `drawn`       no rotation at all: the draw alone (least_request, a
 *                 rotation switched off, or a single endpoint).
 */

/** A path's number: the engine counts by number, so a pick pays one typed-array increment. */
export const PickPath = { turn: 0, challenged: 1, refused: 2, ejected: 3, drawn: 4 } as const;
export type PickPath = (typeof PickPath)[PickPathName];

/** A path's name, as stats and metrics report it. */
export type PickPathName = keyof typeof PickPath;

/** Every path's name, indexed by its number (the numbers above are 0, 1, … in this order). */
export const PICK_PATH_NAMES = Object.keys(PickPath) as readonly PickPathName[];

/** Picks counted by path since the balancer began. */
export type PickCounts = Readonly<Record<PickPathName, number>>;

export class PickPaths {
  private readonly counts = new Float64Array(PICK_PATH_NAMES.length);
  /** The path of the latest pick that returned an endpoint; -1 before the first. */
  last: PickPath | -1 = -1;

  count(path: PickPath): void {
    this.counts[path]++;
    this.last = path;
  }

  /** The counts by name, for stats. */
  snapshot(): PickCounts {
    return Object.fromEntries(PICK_PATH_NAMES.map((name) => [name, this.counts[PickPath[name]]])) as PickCounts;
  }
}
