/**
 * The stall rule (`--max-stall MS`): a load-test run during which a backend
 * host's or a client's event loop stalled for longer than MS (wall time) is
 * discarded and run again, at most STALL_RERUNS times.
 *
 * Why. On a shared machine a stall of a few hundred ms (another tenant, a
 * GC of the harness itself) lands in one run of one policy and decides its
 * p99: two sets of nine side-by-side repeats at one slot, a day apart,
 * disagreed by 30 % on peak_ewma ÷ round_robin, round_robin's worst repeat
 * at 1,247 ms beside a median of 74 (docs/tuning-log.md §21). Choosing the
 * bound before the run, and re-running rather than dropping, keeps the rule
 * from being fitted to the results and the repeat count fixed. Every
 * discarded run is kept in the JSON with its stall, per policy, so a policy
 * that stalled its own client (and would be re-run more often) shows.
 */
/** What the rule reads of a run (loadtest.ts `ScenarioResult`): its processes' worst event-loop delays. */
interface LoopDelays {
  readonly backendLoopDelayMs: { readonly max: number };
  readonly policies: readonly { readonly clientLoopDelayMs: { readonly max: number } }[];
}

/** Re-runs of one run at most; the last attempt is kept whatever its stall, and says so. */
export const STALL_RERUNS = 3;

/** The longest event-loop stall of a run, wall ms: its backend hosts' and every client process's. */
export function longestStallMs(result: LoopDelays): number {
  return Math.max(result.backendLoopDelayMs.max, ...result.policies.map((policy) => policy.clientLoopDelayMs.max));
}

/** A run the stall rule discarded. */
export interface DiscardedRun {
  readonly scenario: string;
  readonly layout: string;
  readonly policies: readonly string[];
  readonly slots: number;
  readonly repeat: number;
  /** Its longest stall (`longestStallMs`), wall ms. */
  readonly stallMs: number;
  readonly startedAt: string;
}

/** Whether the `attempt`-th run (0 the first) with `stallMs` is to be run again under a bound of `maxStallMs` (undefined: no rule). */
export function runsAgain(stallMs: number, maxStallMs: number | undefined, attempt: number): boolean {
  return maxStallMs !== undefined && stallMs > maxStallMs && attempt < STALL_RERUNS;
}

/**
 * Runs `runOnce` under the rule: while its result stalled past `maxStallMs`
 * and re-runs are left, `discard` is told the stall and it runs again. The
 * result returned is the first within the bound, or the last attempt.
 */
export async function runUnderStallRule<R extends LoopDelays>(
  runOnce: () => Promise<R>,
  maxStallMs: number | undefined,
  discard: (result: R, stallMs: number) => void,
): Promise<R> {
  let result = await runOnce();
  for (let attempt = 0; ; attempt++) {
    const stallMs = longestStallMs(result);
    if (!runsAgain(stallMs, maxStallMs, attempt)) {
      return result;
    }
    discard(result, stallMs);
    result = await runOnce();
  }
}
