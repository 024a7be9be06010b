/**
 * What an empty name-resolution answer costs, through grpc-js's own DNS
 * resolver (resolver-dns.ts): how long calls take to succeed again after the
 * answer goes empty and comes back, under round_robin, under our policy as
 * shipped (an empty list is accepted: updateAddressList returns true) and
 * under our policy returning false (what grpc-java's least_request does; the
 * DNS resolver takes false as a failed resolution and keeps resolving).
 *
 * The scenario is a headless Service whose pods all vanish (a full
 * redeploy): at T_gone the backend stops and the name answers nothing; at
 * T_back the backend is up again on the same address and the name answers
 * it. A call is started every 25 ms throughout (1 s deadline, no
 * waitForReady). The DNS answer comes from a replaced `dns.promises.lookup`
 * (the only thing faked: the resolver, its rate limit and backoff, the
 * channel and the policies are grpc-js's and ours), in two shapes: an empty
 * address list, and the ENOTFOUND error getaddrinfo really gives for a name
 * with no records.
 *
 *   npx tsx scripts/bench/empty-answer.ts [minTimeBetweenResolutionsMs=5000] [repeats=4] [shapes="empty list,ENOTFOUND"]
 *
 * (shapes "" runs only the idle-client and fresh-channel cases.)
 */
import * as dns from 'dns';
import { credentials, experimental, Server, ServerCredentials, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { callOnce, createProbeClient, probeServiceDefinition } from '../lib/probe-service';
import { loadPackage } from './package-under-test';

/** round_robin; our policy as built; our policy forced to always accept (the old code) or always refuse an empty list. */
type Variant = 'round_robin' | 'peak_ewma' | 'peak_ewma, always true' | 'peak_ewma, always false';
const VARIANTS: readonly Variant[] = ['round_robin', 'peak_ewma', 'peak_ewma, always true', 'peak_ewma, always false'];
type Shape = 'empty list' | 'ENOTFOUND';

const HOST = 'empty-answer.invalid';
const CALL_EVERY_MS = 25;
/** A lookup takes time on a real network: without it a call can race its own re-resolution and win. */
const LOOKUP_MS = 20;

let answer: 'up' | 'gone' = 'up';
let shape: Shape = 'empty list';
let lookups = 0;

const realLookup = dns.promises.lookup;
// Answers in LOOKUP_MS, as a nearby DNS server would.
(dns.promises as { lookup: unknown }).lookup = async (hostname: string, options: unknown) => {
  if (hostname !== HOST) {
    return (realLookup as (h: string, o: unknown) => Promise<unknown>)(hostname, options);
  }
  lookups++;
  await new Promise((resolve) => setTimeout(resolve, LOOKUP_MS));
  if (answer === 'up') {
    return [{ address: '127.0.0.1', family: 4 }];
  }
  if (shape === 'ENOTFOUND') {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${HOST}`), { code: 'ENOTFOUND' });
  }
  return [];
};

function startServer(port: number): Promise<{ server: Server; port: number }> {
  const server = new Server();
  server.addService(probeServiceDefinition, {
    call: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, Buffer.from('ok')),
    watch: () => undefined,
  });
  return new Promise((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve({ server, port: bound }),
    ),
  );
}

/** Registers our policy as built, or with its answer to an empty list forced. */
function registerPeakEwma(variant: Variant): void {
  const pkg = loadPackage();
  pkg.register();
  const forced = variant === 'peak_ewma, always true' ? true : variant === 'peak_ewma, always false' ? false : null;
  if (forced === null) {
    return;
  }
  class Forced extends pkg.PeakEwmaLoadBalancer {
    override updateAddressList(...args: Parameters<experimental.LoadBalancer['updateAddressList']>): boolean {
      const accepted = super.updateAddressList(...args);
      return args[0].ok && args[0].value.length === 0 ? forced! : accepted;
    }
  }
  experimental.registerLoadBalancerType(pkg.PEAK_EWMA_POLICY_NAME, Forced, pkg.PeakEwmaLoadBalancingConfig);
}

function clientOf(variant: Variant, port: number, minResolutionMs: number) {
  registerPeakEwma(variant);
  const policy = variant === 'round_robin' ? { round_robin: {} } : { peak_ewma_experimental: {} };
  return createProbeClient(`dns:///${HOST}:${port}`, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [policy] }),
    'grpc.service_config_disable_resolution': 1,
    'grpc.dns_min_time_between_resolutions_ms': minResolutionMs,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One call: whether it succeeded, how long it took, and its error. */
async function probe(client: ReturnType<typeof createProbeClient>, deadlineMs: number) {
  const startMs = Date.now();
  try {
    await callOnce(client, deadlineMs);
    return { ok: true, ms: Date.now() - startMs, error: '' };
  } catch (error) {
    return { ok: false, ms: Date.now() - startMs, error: (error as Error).message };
  }
}

/**
 * An idle client: one call, then the pods vanish and come back while it
 * makes none; one call 2 × the resolution interval after they are back.
 */
async function idleClient(variant: Variant, minResolutionMs: number) {
  answer = 'up';
  shape = 'empty list';
  lookups = 0;
  let backend = await startServer(0);
  const client = clientOf(variant, backend.port, minResolutionMs);
  const before = await probe(client, 2_000);
  answer = 'gone';
  backend.server.forceShutdown();
  await sleep(minResolutionMs + 2_000);
  backend = await startServer(backend.port);
  answer = 'up';
  await sleep(2 * minResolutionMs);
  const after = await probe(client, 2_000);
  client.close();
  backend.server.forceShutdown();
  return { before, after, lookups };
}

/** A fresh channel whose first answer is empty: how a call with a 2 s deadline ends. */
async function freshChannel(variant: Variant, minResolutionMs: number) {
  answer = 'gone';
  shape = 'empty list';
  const client = clientOf(variant, 1, minResolutionMs);
  const result = await probe(client, 2_000);
  client.close();
  return result;
}

interface Outcome {
  variant: Variant;
  shape: Shape;
  /** From T_back to the first successful call, ms. */
  recoveryMs: number | null;
  failedCalls: number;
  lookups: number;
  lastError: string;
}

async function run(variant: Variant, answerShape: Shape, minResolutionMs: number): Promise<Outcome> {
  answer = 'up';
  shape = answerShape;
  lookups = 0;
  let backend = await startServer(0);
  const port = backend.port;
  const client = clientOf(variant, port, minResolutionMs);
  const startMs = Date.now();
  const goneAtMs = 1_000;
  const backAtMs = goneAtMs + minResolutionMs + 2_000;
  const endAtMs = backAtMs + 3 * minResolutionMs + 2_000;
  let firstSuccessAfterBack: number | null = null;
  let failedCalls = 0;
  let lastError = '';
  const inFlight = new Set<Promise<void>>();
  let gone = false;
  let back = false;
  while (Date.now() - startMs < endAtMs && firstSuccessAfterBack === null) {
    const nowMs = Date.now() - startMs;
    if (!gone && nowMs >= goneAtMs) {
      gone = true;
      answer = 'gone';
      backend.server.forceShutdown();
    }
    if (!back && nowMs >= backAtMs) {
      back = true;
      backend = await startServer(port);
      answer = 'up';
    }
    const call = callOnce(client, 1_000).then(
      () => {
        if (back && firstSuccessAfterBack === null) {
          firstSuccessAfterBack = Date.now() - startMs - backAtMs;
        }
      },
      (error: Error) => {
        failedCalls++;
        lastError = error.message;
      },
    );
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call));
    await new Promise((resolve) => setTimeout(resolve, CALL_EVERY_MS));
  }
  await Promise.all(inFlight);
  client.close();
  backend.server.forceShutdown();
  return { variant, shape: answerShape, recoveryMs: firstSuccessAfterBack, failedCalls, lookups, lastError };
}

function summary(values: readonly (number | null)[]): string {
  const seen = values.filter((v): v is number => v !== null).sort((x, y) => x - y);
  const never = values.length - seen.length;
  if (seen.length === 0) {
    return 'never';
  }
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return `${s(seen[Math.floor((seen.length - 1) / 2)])} s (${s(seen[0])}–${s(seen[seen.length - 1])})${never > 0 ? `, ${never}× never` : ''}`;
}

async function main(): Promise<void> {
  const minResolutionMs = Number(process.argv[2] ?? 5_000);
  const repeats = Number(process.argv[3] ?? 4);
  console.log(
    `grpc.dns_min_time_between_resolutions_ms = ${minResolutionMs}; gone at 1 s, back ${minResolutionMs / 1000 + 3} s ` +
      `after start; ${repeats} runs per row, variants interleaved`,
  );
  console.log('shape       variant            recovery after back: median (min–max)  failed calls (median)  DNS lookups (median)');
  const variants = VARIANTS;
  const shapes = (process.argv[4] ?? 'empty list,ENOTFOUND').split(',').filter((name) => name.length > 0) as Shape[];
  for (const answerShape of shapes) {
    const outcomes = new Map<Variant, Outcome[]>(variants.map((v) => [v, []]));
    for (let r = 0; r < repeats; r++) {
      for (const variant of variants) {
        outcomes.get(variant)!.push(await run(variant, answerShape, minResolutionMs));
      }
    }
    for (const variant of variants) {
      const rows = outcomes.get(variant)!;
      const mid = (values: number[]) => values.sort((x, y) => x - y)[Math.floor((values.length - 1) / 2)];
      console.log(
        `${answerShape.padEnd(10)}  ${variant.padEnd(17)}  ${summary(rows.map((o) => o.recoveryMs)).padStart(36)}  ` +
          `${String(mid(rows.map((o) => o.failedCalls))).padStart(21)}  ${String(mid(rows.map((o) => o.lookups))).padStart(20)}`,
      );
      console.log(`            last error: ${rows[rows.length - 1].lastError.slice(0, 140)}`);
    }
  }
  console.log('\nidle client: a call, pods gone and back with no calls, a call 2 × the interval after they are back');
  for (let r = 0; r < repeats; r++) {
    for (const variant of variants) {
      const o = await idleClient(variant, minResolutionMs);
      console.log(
        `  run ${r + 1} ${variant.padEnd(23)} before ${o.before.ok ? 'ok' : 'FAILED'}; after: ${o.after.ok ? 'ok' : 'FAILED'} in ${o.after.ms} ms` +
          `${o.after.ok ? '' : ` (${o.after.error.slice(0, 100)})`}; DNS lookups ${o.lookups}`,
      );
    }
  }
  console.log('\nfresh channel, first answer empty: one call, 2 s deadline');
  for (const variant of variants) {
    const o = await freshChannel(variant, minResolutionMs);
    console.log(`  ${variant.padEnd(23)} ${o.ok ? 'ok' : 'failed'} after ${o.ms} ms: ${o.error.slice(0, 110)}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
