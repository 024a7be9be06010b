/**
 * A plain-text table of a stats snapshot, for logs, a debug endpoint or a
 * terminal:
 *
 *   console.log(formatLoadBalancerStats(getLoadBalancerStats()));
 *
 *   peak_ewma_experimental #1 "orders" READY fleet_ms=10.20 {"choiceCount":2,"decayTime":"10s",...}
 *     picks: turn=380 challenged=2 refused=30 (inFlight=4 failure=6 mean=20) ejected=0 drawn=0 slowStart=0
 *     ejection: line_ms=15.30 ejected=1 of at most 2: 127.0.0.1:50052 mean_ms=30.04
 *     endpoint          state  estimate_ms  outstanding      cost  calls  share  last_sample_ms_ago
 *     127.0.0.1:50051   READY        10.41            1     20.82    412  0.412                   3
 */
import { PICK_PATH_NAMES, REFUSAL_NAMES } from '../core/pick-paths';
import { BalancerStats, EndpointStats, getLoadBalancerStats, MethodStatsView } from '../policy/stats';

interface Column<T> {
  readonly title: string;
  readonly cell: (row: T) => string;
}

const COLUMNS: readonly Column<EndpointStats>[] = [
  { title: 'endpoint', cell: (endpoint) => endpoint.address },
  { title: 'state', cell: (endpoint) => endpoint.state },
  { title: 'estimate_ms', cell: (endpoint) => fixed(endpoint.estimateMs, 2) },
  { title: 'outstanding', cell: (endpoint) => String(endpoint.outstanding) },
  { title: 'cost', cell: (endpoint) => fixed(endpoint.cost, 2) },
  { title: 'calls', cell: (endpoint) => String(endpoint.callsStarted) },
  { title: 'share', cell: (endpoint) => fixed(endpoint.shareOfCalls, 3) },
  { title: 'last_sample_ms_ago', cell: (endpoint) => fixed(endpoint.msSinceLastSample, 0) },
];

/** Ejected endpoints the `ejection:` line names at most; it counts the rest. */
const EJECTED_NAMED = 5;

/** Per-method scoring's methods, listed under the endpoints when there are any. */
const METHOD_COLUMNS: readonly Column<MethodStatsView>[] = [
  { title: 'method', cell: (method) => method.method },
  { title: 'calls', cell: (method) => String(method.calls) },
  { title: 'baseline_ms', cell: (method) => fixed(method.baselineMs, 2) },
  { title: 'weight', cell: (method) => fixed(method.weight, 3) },
];

function fixed(value: number | null, digits: number): string {
  return value === null || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}

/**
 * One block per balancer: a header line (policy, `#instanceId`, label, state,
 * fleet average if any, live config), then one row per endpoint. Without a
 * snapshot, this process's now (`getLoadBalancerStats()`).
 */
export function formatLoadBalancerStats(snapshot: readonly BalancerStats[] = getLoadBalancerStats()): string {
  if (!Array.isArray(snapshot)) {
    throw new TypeError(`formatLoadBalancerStats(snapshot): snapshot must be the array getLoadBalancerStats() returns, or none; got ${snapshot === null ? 'null' : typeof snapshot}`);
  }
  if (snapshot.length === 0) {
    return '(no peak_ewma_experimental or least_request_experimental balancer is live in this process)';
  }
  return snapshot.map(formatBalancer).join('\n\n');
}

function formatBalancer(stats: BalancerStats): string {
  const label = stats.label === '' ? '' : ` ${JSON.stringify(stats.label)}`;
  const fleet = stats.fleetRttMs === null ? '' : ` fleet_ms=${stats.fleetRttMs.toFixed(2)}`;
  const header = `${stats.policy} #${stats.instanceId}${label} ${stats.state}${fleet} ${JSON.stringify(configOf(stats))}`;
  const methods = stats.methods.length === 0 ? [] : tableLines(METHOD_COLUMNS, stats.methods, 1);
  return [header, ...picksLine(stats), ...ejectionLine(stats), ...tableLines(COLUMNS, stats.endpoints, 2), ...methods].join('\n');
}

/**
 * `  ejection: line_ms=… ejected=N of at most K: <address> mean_ms=…, …`
 * while peak_ewma ejects and has a line (its fleet has an answer): the
 * endpoints picks skip and what put them there. Without a budget, no "of at
 * most K". A line of its own, so that the endpoint table keeps its columns
 * for scripts that read them.
 */
function ejectionLine(stats: BalancerStats): string[] {
  if (stats.ejectionLineMs === null) {
    return [];
  }
  const ejected = stats.endpoints.filter((endpoint) => endpoint.ejected);
  const budget = stats.maxEjected === null ? '' : ` of at most ${stats.maxEjected}`;
  const named = ejected.slice(0, EJECTED_NAMED).map((endpoint) => `${endpoint.address} mean_ms=${fixed(endpoint.meanMs, 2)}`);
  const more = ejected.length > EJECTED_NAMED ? [`+${ejected.length - EJECTED_NAMED} more`] : [];
  const list = named.length === 0 ? '' : `: ${[...named, ...more].join(', ')}`;
  return [`  ejection: line_ms=${stats.ejectionLineMs.toFixed(2)} ejected=${ejected.length}${budget}${list}`];
}

/**
 * `  picks: turn=… challenged=… …` once the balancer has picked, each path's
 * count (core/pick-paths.ts), the refused ones by reason when there are any.
 */
function picksLine(stats: BalancerStats): string[] {
  const picks = stats.picks;
  if (picks === null || PICK_PATH_NAMES.every((path) => picks[path] === 0)) {
    return [];
  }
  const refusals = stats.refusals;
  const why = (path: string): string =>
    path === 'refused' && refusals !== null && picks.refused > 0 ? ` (${REFUSAL_NAMES.map((reason) => `${reason}=${refusals[reason]}`).join(' ')})` : '';
  return ['  picks: ' + PICK_PATH_NAMES.map((path) => `${path}=${picks[path]}${why(path)}`).join(' ')];
}

/** Aligned, indented rows: the first `textColumns` left-aligned, numbers right-aligned. */
function tableLines<T>(columns: readonly Column<T>[], items: readonly T[], textColumns: number): string[] {
  const rows = [columns.map((column) => column.title), ...items.map((item) => columns.map((column) => column.cell(item)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) =>
    '  ' + row.map((cell, i) => (i < textColumns ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd(),
  );
}

/** The config without its `{policy: ...}` wrapper, which the header already names. */
function configOf(stats: BalancerStats): unknown {
  const wrapped = stats.config as Record<string, unknown>;
  return wrapped[stats.policy] ?? wrapped;
}
