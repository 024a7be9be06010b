/**
 * Ports for servers that a test stops and starts again on the same address.
 *
 * A port a server got by binding port 0 lies in the OS's ephemeral range.
 * Once that server stops, the port is free for the kernel to hand out again:
 * to any process's next bind to port 0 and, once the even ports run short,
 * as the source port of an outgoing connection. On a machine running other
 * jobs that happens within seconds, and the restart then fails with
 * EADDRINUSE (or, worse, the client reaches someone else's server). Outside
 * the ephemeral range the kernel never assigns a port by itself: only an
 * explicit bind to that very number can take it.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';

/** The range the kernel picks from; Linux reports it, elsewhere IANA's 49152–65535 (macOS, Windows). */
export function ephemeralPortRange(): { low: number; high: number } {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low <= high) {
      return { low, high };
    }
  } catch {
    // Not Linux: the IANA range below.
  }
  return { low: 49_152, high: 65_535 };
}

/** Below this, ports are the conventional home of well-known services. */
const LOWEST_PORT = 10_000;

/** The ports a restartable server may use: every port from LOWEST_PORT up that is not ephemeral. */
export function stablePortRange(range = ephemeralPortRange()): { low: number; high: number } {
  if (range.low - 1 >= LOWEST_PORT + 1_000) {
    return { low: LOWEST_PORT, high: range.low - 1 };
  }
  if (range.high + 1 + 1_000 <= 65_535) {
    return { low: range.high + 1, high: 65_535 };
  }
  throw new Error(
    `the ephemeral port range ${range.low}-${range.high} leaves fewer than 1000 ports above ${LOWEST_PORT} for a server to restart on`,
  );
}

/**
 * Starts a server with `start(port)` on a random port outside the ephemeral
 * range, trying another port when one is taken (another process chose the
 * same number). Returns what `start` returned.
 */
export async function startOnStablePort<T>(start: (port: number) => Promise<T>, attempts = 20): Promise<T> {
  const { low, high } = stablePortRange();
  let lastError: unknown = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    try {
      return await start(port);
    } catch (error) {
      if (!/EADDRINUSE|EACCES/.test(String((error as Error)?.message ?? error))) {
        throw error;
      }
      lastError = error;
    }
  }
  throw new Error(`no free port in ${low}-${high} after ${attempts} attempts; last error: ${String(lastError)}`);
}

/**
 * A stable port that is free now, for a server another process will bind
 * (e.g. an example run as a child): between this check and that bind only an
 * explicit bind to the same number could take it, never the kernel.
 */
export function freeStablePort(host = '127.0.0.1'): Promise<number> {
  return startOnStablePort(
    (port) =>
      new Promise<number>((resolve, reject) => {
        const server = net.createServer();
        server.once('error', reject);
        server.listen(port, host, () => server.close(() => resolve(port)));
      }),
  );
}
