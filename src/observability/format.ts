/**
 * A plain-text table of a stats snapshot, for logs, a debug endpoint or a
 * terminal:
 *
 *   console.log(formatLoadBalancerStats(getLoadBalancerStats()));
 *
 *   peak_ewma_experimental #1 "orders" READY {"choiceCount":2,"decayTime":"10s",...}
 *     endpoint          state  estimate_ms  outstanding      cost  calls  share  last_sample_ms_ago
 *     127.0.0.1:50051   READY        10.41            1     20.82    412  0.412                   3
 */
import { BalancerStats, EndpointStats } from '../policy/stats';

const COLUMNS: readonly { readonly title: string; readonly cell: (endpoint: EndpointStats) => string }[] = [
  { title: 'endpoint', cell: (endpoint) => endpoint.address },
  { title: 'state', cell: (endpoint) => endpoint.state },
  { title: 'estimate_ms', cell: (endpoint) => fixed(endpoint.estimateMs, 2) },
  { title: 'outstanding', cell: (endpoint) => String(endpoint.outstanding) },
  { title: 'cost', cell: (endpoint) => fixed(endpoint.cost, 2) },
  { title: 'calls', cell: (endpoint) => String(endpoint.callsStarted) },
  { title: 'share', cell: (endpoint) => fixed(endpoint.shareOfCalls, 3) },
  { title: 'last_sample_ms_ago', cell: (endpoint) => fixed(endpoint.msSinceLastSample, 0) },
];

function fixed(value: number | null, digits: number): string {
  return value === null || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}

/**
 * One block per balancer: a header line (policy, `#instanceId`, label, state,
 * fleet average if any, live config), then one row per endpoint.
 */
export function formatLoadBalancerStats(snapshot: readonly BalancerStats[]): string {
  if (snapshot.length === 0) {
    return '(no peak_ewma_experimental or least_request_experimental balancer is live in this process)';
  }
  return snapshot.map(formatBalancer).join('\n\n');
}

function formatBalancer(stats: BalancerStats): string {
  const label = stats.label === '' ? '' : ` ${JSON.stringify(stats.label)}`;
  const fleet = stats.fleetRttMs === null ? '' : ` fleet_ms=${stats.fleetRttMs.toFixed(2)}`;
  const header = `${stats.policy} #${stats.instanceId}${label} ${stats.state}${fleet} ${JSON.stringify(configOf(stats))}`;
  const rows = [COLUMNS.map((column) => column.title), ...stats.endpoints.map((endpoint) => COLUMNS.map((column) => column.cell(endpoint)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  // Text left-aligned, numbers right-aligned.
  const lines = rows.map((row) =>
    '  ' + row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd(),
  );
  return [header, ...lines].join('\n');
}

/** The config without its `{policy: ...}` wrapper, which the header already names. */
function configOf(stats: BalancerStats): unknown {
  const wrapped = stats.config as Record<string, unknown>;
  return wrapped[stats.policy] ?? wrapped;
}
