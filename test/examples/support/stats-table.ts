/** Reads back the tables formatLoadBalancerStats prints. */
export interface PrintedEndpoint {
  readonly address: string;
  readonly state: string;
  readonly estimateMs: number | null;
  readonly outstanding: number;
  readonly cost: number;
  readonly calls: number;
  readonly share: number;
}

export interface PrintedBalancer {
  readonly policy: string;
  readonly instanceId: number;
  readonly label: string;
  readonly state: string;
  /** The fleet average in ms; null when not printed (least_request, no sample yet). */
  readonly fleetMs: number | null;
  readonly config: Record<string, unknown>;
  readonly endpoints: PrintedEndpoint[];
}

const HEADER = /^(\w+) #(\d+)(?: "([^"]*)")? ([A-Z_]+)(?: fleet_ms=([\d.]+))? (\{.*\})$/;
const ROW = /^ {2}(\S+)\s+([A-Z_]+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+(\S+)$/;

export function parseStatsTables(output: string): PrintedBalancer[] {
  const balancers: PrintedBalancer[] = [];
  for (const line of output.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      balancers.push({
        policy: header[1],
        instanceId: Number(header[2]),
        label: header[3] ?? '',
        state: header[4],
        fleetMs: header[5] === undefined ? null : Number(header[5]),
        config: JSON.parse(header[6]),
        endpoints: [],
      });
      continue;
    }
    const row = ROW.exec(line);
    if (row && row[1] !== 'endpoint' && balancers.length > 0) {
      balancers[balancers.length - 1].endpoints.push({
        address: row[1],
        state: row[2],
        estimateMs: row[3] === '-' ? null : Number(row[3]),
        outstanding: Number(row[4]),
        cost: Number(row[5]),
        calls: Number(row[6]),
        share: Number(row[7]),
      });
    }
  }
  return balancers;
}

/** `b0=127.0.0.1:123 (5 ms), ...` → address → backend name. */
export function parseBackends(output: string): Map<string, string> {
  const line = output.split('\n').find((l) => l.startsWith('backends: '));
  if (!line) throw new Error(`no "backends:" line in:\n${output}`);
  return new Map([...line.matchAll(/(\w+)=([\d.]+:\d+)/g)].map((m) => [m[2], m[1]]));
}
