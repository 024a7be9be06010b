/**
 * A bounded burst of unary calls, `concurrency` at a time, counting which
 * backend answered each.
 */
import { callOnce, ProbeClient } from '../../scripts/lib/probe-service';

export async function sendCalls(client: ProbeClient, total: number, concurrency = 8): Promise<Map<string, number>> {
  const servedBy = new Map<string, number>();
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued++;
      const name = await callOnce(client, 5_000);
      servedBy.set(name, (servedBy.get(name) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return servedBy;
}

/** How many calls each backend served, as `b0=120 b1=118 b2=12`. */
export function describeServedBy(servedBy: Map<string, number>): string {
  return [...servedBy].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${name}=${count}`).join(' ');
}

/** The `EXAMPLE_CALLS` environment variable, or `fallback`. */
export function callCount(fallback: number): number {
  const value = Number(process.env.EXAMPLE_CALLS ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`EXAMPLE_CALLS must be a positive integer, got ${process.env.EXAMPLE_CALLS}`);
  }
  return value;
}
