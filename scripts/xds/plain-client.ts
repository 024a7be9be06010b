/**
 * A grpc-js xDS client WITHOUT this package: @grpc/grpc-js-xds's own
 * register() only, as an app that never installed grpc-js-peak-ewma. For the
 * mixed-fleet tests, in its own process (registerXds() is process-wide).
 * The bootstrap comes from GRPC_XDS_BOOTSTRAP_CONFIG. Usage:
 *
 *   tsx scripts/xds/plain-client.ts TARGET DEADLINE_S
 *
 * Then the protocol of scripts/xds/ccore-client.py on stdin/stdout: "run N"
 * → N sequential unary calls → one JSON line {servedBy, failures}.
 */
import { credentials, logVerbosity, ServiceError, setLogVerbosity, status } from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { createInterface } from 'readline';
import { callOnce, createProbeClient } from '../lib/probe-service';

async function run(client: ReturnType<typeof createProbeClient>, count: number, deadlineMs: number) {
  const servedBy: Record<string, number> = {};
  const failures: Record<string, number> = {};
  for (let index = 0; index < count; index++) {
    try {
      const backend = await callOnce(client, deadlineMs);
      servedBy[backend] = (servedBy[backend] ?? 0) + 1;
    } catch (error) {
      const name = status[(error as ServiceError).code] ?? String((error as ServiceError).code);
      failures[name] = (failures[name] ?? 0) + 1;
    }
  }
  return { servedBy, failures };
}

async function main(): Promise<void> {
  const [target, deadlineSeconds] = process.argv.slice(2);
  setLogVerbosity(logVerbosity.NONE);
  register();
  const client = createProbeClient(target, credentials.createInsecure());
  // Resolve now, not at the first call: the test waits for this client's ACK or NACK before it sends any.
  client.getChannel().getConnectivityState(true);
  console.log(JSON.stringify({ ready: 'grpc-js' }));
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const words = line.trim().split(/\s+/);
    if (words.length === 2 && words[0] === 'run') {
      console.log(JSON.stringify(await run(client, Number(words[1]), Number(deadlineSeconds) * 1000)));
    } else if (words[0] !== '') {
      console.log(JSON.stringify({ error: `unknown command ${line.trim()}` }));
    }
  }
  client.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
