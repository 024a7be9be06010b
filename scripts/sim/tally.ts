/**
 * Where a tail comes from: the calls of each policy group counted by the
 * kind of pod that served them and the path of the pick that sent them
 * there (src/core/pick-paths.ts), with how many of them were over a bound
 * (or failed). `npm run simulate -- --tally MS`.
 *
 * Why. A p99 over all calls says a cell misses its bound, not why: the
 * healthy pods' queueing, the slow pods' calls, the turns the gate let
 * through or the draws it made. docs/tuning-log.md §23 built this count twice
 * as a scratch build before it was kept; a p99 under the bound needs the
 * calls over it under 1 %, so the table is in points of all calls.
 *
 * Counted: every call that ends after the warm-up, at its end, with its
 * latency as the metrics take it (from its intended start; a failure
 * counts as over). Pods are named by role (model/roles.ts), a scenario's
 * faulty pods as `faulty`, pods added during the run as `joined <role>`
 * (s18's slow newcomers are patched 'normal' pods, and were counted with
 * the healthy ones).
 */
import { PICK_PATH_NAMES } from '../../src/core/pick-paths';

/** The path column for a pick that reported none (round_robin, the oracles). */
const NO_PATH = 'other';

export interface TallyRow {
  readonly pods: string;
  readonly path: string;
  /** Calls, and those over the bound or failed, as % of the group's calls. */
  readonly sharePct: number;
  readonly overPoints: number;
}

export interface GroupTally {
  readonly policy: string;
  readonly boundMs: number;
  readonly calls: number;
  /** % of the group's calls over the bound or failed: the sum of the rows' overPoints. */
  readonly overPct: number;
  readonly rows: readonly TallyRow[];
}

export class PathTally {
  // Per group: "pods\tpath" → [calls, over].
  private readonly counts: Map<string, [number, number]>[];

  constructor(
    private readonly policyNames: readonly string[],
    readonly boundMs: number,
  ) {
    this.counts = policyNames.map(() => new Map());
  }

  /** A call of `group` served by a pod of kind `pods`, sent by pick path `path` (-1: none), ended `latencyMs` after its start. */
  record(group: number, pods: string, path: number, latencyMs: number, ok: boolean): void {
    const key = `${pods}\t${path >= 0 ? PICK_PATH_NAMES[path] : NO_PATH}`;
    const counts = this.counts[group];
    let entry = counts.get(key);
    if (entry === undefined) {
      entry = [0, 0];
      counts.set(key, entry);
    }
    entry[0]++;
    if (!ok || latencyMs > this.boundMs) {
      entry[1]++;
    }
  }

  summary(): GroupTally[] {
    return this.counts.map((counts, group) => {
      const calls = [...counts.values()].reduce((sum, [n]) => sum + n, 0);
      const pct = (n: number) => (calls > 0 ? Number(((100 * n) / calls).toFixed(3)) : 0);
      const rows = [...counts.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, [n, over]]) => {
          const [pods, path] = key.split('\t');
          return { pods, path, sharePct: pct(n), overPoints: pct(over) };
        });
      const over = [...counts.values()].reduce((sum, [, o]) => sum + o, 0);
      return { policy: this.policyNames[group], boundMs: this.boundMs, calls, overPct: pct(over), rows };
    });
  }
}

/** The tally as text: one block per group, a row per kind of pod and path. */
export function formatTally(scenario: string, tallies: readonly GroupTally[]): string {
  return tallies
    .map((t) => {
      const header = `tally ${scenario} ${t.policy}: ${t.calls} calls, ${t.overPct.toFixed(2)} % over ${t.boundMs} ms or failed`;
      const rows = t.rows.map((r) => `  ${r.pods.padEnd(10)} ${r.path.padEnd(11)} ${r.sharePct.toFixed(2).padStart(6)} % of calls  ${r.overPoints.toFixed(3).padStart(6)} points over`);
      return [header, ...rows].join('\n');
    })
    .join('\n');
}
