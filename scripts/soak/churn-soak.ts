/**
 * The churn soak: continuous unary traffic through one channel whose address
 * list changes every tick (a fresh backend added, the oldest removed), and
 * the checks that must hold throughout. Shared by `npm run soak` (60 s) and
 * the short jest version.
 *
 * Removal modes:
 * - graceful: the endpoint leaves the list first; its server drains (GOAWAY,
 *   in-flight calls finish) only after `drainDelayMs`. No RPC may fail.
 * - hard: the backend crashes while still listed (connections reset, port
 *   closed) and leaves the list `removeDelayMs` later. Only calls that went
 *   to a crashed backend and ended after its crash may fail.
 *
 * Checks: every failure classified; after each list update, the balancer's
 * stats list exactly the current endpoints; sampled every few ms, no
 * endpoint's outstanding count is negative or below what its server has in
 * progress (the engine clamps at zero, so a double decrement would show as
 * the client counting fewer calls than the server holds); at rest, every
 * outstanding count is zero.
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, STATS_LABEL_OPTION } from '../../src';
import type { BalancerStats } from '../../src';
import { createProbeClient, ProbeClient } from '../lib/probe-service';
import { TestBackend } from '../../test/support/backends';
import { CrashableBackend } from '../../test/reliability/support/crashable-backend';
import { ChurnName } from './churn-resolver';

export type ChurnMode = 'graceful' | 'hard';

export interface ChurnOptions {
  mode: ChurnMode;
  /** Distinct per concurrent run: names the resolver target and the stats label. */
  label: string;
  durationMs: number;
  /** One add and one removal per tick. */
  tickMs: number;
  /** Endpoints listed at any time. */
  activeEndpoints: number;
  /** Closed-loop callers. */
  concurrency: number;
  deadlineMs: number;
  /** The channel's loadBalancingConfig entry. */
  policy: object;
  /** graceful: time between leaving the list and the server draining. */
  drainDelayMs?: number;
  /** hard: time between the crash and leaving the list. */
  removeDelayMs?: number;
  /** Called about once a second with a progress line. */
  onProgress?: (line: string) => void;
  /** Forced-GC heap probe (see heap.ts); omitted: no heap figures. */
  heapUsedAfterGc?: () => number;
}

export interface FailureRecord {
  readonly code: string;
  readonly details: string;
  readonly peer: string;
}

export interface ChurnReport {
  readonly mode: ChurnMode;
  readonly durationMs: number;
  readonly ticks: number;
  readonly endpointsAdded: number;
  readonly endpointsRemoved: number;
  readonly endpointsCrashed: number;
  readonly rpcsSent: number;
  readonly rpcsOk: number;
  /** Failures the mode allows: calls sent to a crashed backend, ending after its crash. */
  readonly allowedFailures: number;
  /** Of those, calls started after the crash, before the client had noticed it. */
  readonly allowedStartedAfterCrash: number;
  readonly unexpectedFailures: number;
  /** The first few unexpected failures. */
  readonly unexpectedSamples: FailureRecord[];
  /** Stats endpoint lists that differed from the resolver's list right after an update. */
  readonly statsMismatches: number;
  /** Outstanding counts below zero or below the server's count. */
  readonly outstandingViolations: number;
  readonly violationSamples: string[];
  readonly outstandingSamples: number;
  readonly maxOutstandingTotal: number;
  /** At rest (traffic stopped, all calls ended). */
  readonly outstandingAtRest: number[];
  readonly endpointsAtRest: number;
  readonly distinctBackendsServed: number;
  /** Forced-GC heapUsed after warm-up and at rest, bytes (null without a probe). */
  readonly heapBeforeBytes: number | null;
  readonly heapAfterBytes: number | null;
}

/** Violations a report shows, as sentences; empty if the soak passed. */
export function violationsOf(report: ChurnReport): string[] {
  const problems: string[] = [];
  if (report.unexpectedFailures > 0) {
    problems.push(`${report.unexpectedFailures} RPCs failed that the ${report.mode} mode does not allow: ${JSON.stringify(report.unexpectedSamples)}`);
  }
  if (report.statsMismatches > 0) problems.push(`${report.statsMismatches} stats snapshots did not list exactly the resolved endpoints`);
  if (report.outstandingViolations > 0) {
    problems.push(`${report.outstandingViolations} outstanding-count violations: ${report.violationSamples.join('; ')}`);
  }
  if (report.outstandingAtRest.some((count) => count !== 0)) {
    problems.push(`outstanding at rest not all zero: ${report.outstandingAtRest}`);
  }
  if (report.endpointsAtRest !== report.endpointsAdded - report.endpointsRemoved) {
    problems.push(`${report.endpointsAtRest} endpoints in stats at rest, expected ${report.endpointsAdded - report.endpointsRemoved}`);
  }
  if (report.rpcsSent === 0 || report.rpcsOk === 0) problems.push('no traffic got through');
  return problems;
}

/** One backend under churn: a plain server (graceful mode) or one behind a crashable relay (hard mode). */
interface ChurnBackend {
  readonly address: string;
  readonly server: TestBackend;
  retire(): Promise<void>;
}

async function startChurnBackend(mode: ChurnMode, id: string, delayMs: number): Promise<ChurnBackend & { crash?: () => void }> {
  if (mode === 'graceful') {
    const server = await new TestBackend(id).start();
    server.behaviour.delayMs = delayMs;
    return { address: server.address, server, retire: () => server.drain() };
  }
  const crashable = await new CrashableBackend(id).start();
  crashable.backend.behaviour.delayMs = delayMs;
  return {
    address: crashable.address,
    server: crashable.backend,
    retire: async () => crashable.stop(),
    crash: () => crashable.crash(),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function balancerStats(label: string): BalancerStats | null {
  return getLoadBalancerStats().find((stats) => stats.label === label) ?? null;
}

const MAX_SAMPLES = 10;

export async function runChurnSoak(options: ChurnOptions): Promise<ChurnReport> {
  const drainDelayMs = options.drainDelayMs ?? 300;
  const removeDelayMs = options.removeDelayMs ?? 30;
  const name = new ChurnName(options.label);
  let nextId = 0;
  // Service times 1..20 ms, varied so that peak_ewma has something to choose between.
  const newBackend = () => {
    const id = nextId++;
    return startChurnBackend(options.mode, `${options.label}-${id}`, 1 + ((id * 7) % 20));
  };

  const active: (ChurnBackend & { crash?: () => void })[] = await Promise.all(
    Array.from({ length: options.activeEndpoints }, newBackend),
  );
  const retiring = new Set<Promise<void>>();
  const crashedAt = new Map<string, number>();
  const counters = {
    ticks: 0,
    added: active.length,
    removed: 0,
    crashed: 0,
    sent: 0,
    ok: 0,
    allowed: 0,
    allowedAfterCrash: 0,
    unexpected: 0,
    statsMismatches: 0,
    violations: 0,
    samples: 0,
    maxOutstandingTotal: 0,
  };
  const unexpectedSamples: FailureRecord[] = [];
  const violationSamples: string[] = [];
  const served = new Set<string>();

  name.setAddresses(active.map((backend) => backend.address));
  const client: ProbeClient = createProbeClient(name.target, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [options.policy] }),
    [STATS_LABEL_OPTION]: options.label,
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1_000,
  });

  const publish = () => {
    const listed = active.map((backend) => backend.address);
    name.setAddresses(listed);
    // The update reaches the balancer synchronously: its stats must now list exactly these.
    const stats = balancerStats(options.label);
    const inStats = (stats?.endpoints ?? []).map((endpoint) => endpoint.address).sort();
    if (JSON.stringify(inStats) !== JSON.stringify([...listed].sort())) {
      counters.statsMismatches++;
    }
  };

  const checkOutstanding = () => {
    const stats = balancerStats(options.label);
    if (!stats) return;
    counters.samples++;
    let total = 0;
    for (const endpoint of stats.endpoints) {
      total += endpoint.outstanding;
      const backend = active.find((candidate) => candidate.address === endpoint.address);
      const serverCount = backend && !crashedAt.has(endpoint.address) ? backend.server.inFlight : 0;
      if (endpoint.outstanding < 0 || endpoint.outstanding < serverCount) {
        counters.violations++;
        if (violationSamples.length < MAX_SAMPLES) {
          violationSamples.push(`${endpoint.address}: client ${endpoint.outstanding} < server ${serverCount}`);
        }
      }
    }
    counters.maxOutstandingTotal = Math.max(counters.maxOutstandingTotal, total);
  };

  // Connected before the clock starts (channels are lazy: ask it to connect).
  client.getChannel().getConnectivityState(true);
  await waitForReady(options.label, 10_000);
  const heapBeforeBytes = options.heapUsedAfterGc?.() ?? null;

  let trafficOn = true;
  const worker = async () => {
    while (trafficOn) {
      counters.sent++;
      const outcome = await unaryCall(client, options.deadlineMs);
      if (outcome.error === null) {
        counters.ok++;
        served.add(outcome.servedBy!);
        continue;
      }
      const crashTime = crashedAt.get(outcome.peer);
      if (options.mode === 'hard' && crashTime !== undefined && outcome.endedAtMs >= crashTime) {
        counters.allowed++;
        if (outcome.startedAtMs > crashTime) counters.allowedAfterCrash++;
      } else {
        counters.unexpected++;
        if (unexpectedSamples.length < MAX_SAMPLES) {
          unexpectedSamples.push({ code: status[outcome.error.code], details: outcome.error.details, peer: outcome.peer });
        }
      }
    }
  };
  const workers = Array.from({ length: options.concurrency }, worker);
  const sampler = setInterval(checkOutstanding, 5);

  const startedAt = performance.now();
  let lastProgressAt = startedAt;
  while (performance.now() - startedAt < options.durationMs) {
    const tickStartedAt = performance.now();
    counters.ticks++;
    active.push(await newBackend());
    counters.added++;
    const oldest = active[0];
    if (options.mode === 'graceful') {
      active.shift();
      publish();
      counters.removed++;
      track(retiring, sleep(drainDelayMs).then(() => oldest.retire()));
    } else {
      publish(); // the new one joins; the oldest is still listed when it crashes
      crashedAt.set(oldest.address, performance.now());
      oldest.crash!();
      counters.crashed++;
      await sleep(removeDelayMs);
      active.splice(active.indexOf(oldest), 1);
      publish();
      counters.removed++;
    }
    if (options.onProgress && performance.now() - lastProgressAt >= 1_000) {
      lastProgressAt = performance.now();
      options.onProgress(progressLine(performance.now() - startedAt, counters, active.length));
    }
    await sleep(Math.max(0, options.tickMs - (performance.now() - tickStartedAt)));
  }

  trafficOn = false;
  await Promise.all(workers);
  clearInterval(sampler);
  checkOutstanding();
  await Promise.all(retiring);
  const atRest = balancerStats(options.label);
  const heapAfterBytes = options.heapUsedAfterGc?.() ?? null;

  client.close();
  await Promise.all(active.map((backend) => backend.retire()));
  name.release();

  return {
    mode: options.mode,
    durationMs: options.durationMs,
    ticks: counters.ticks,
    endpointsAdded: counters.added,
    endpointsRemoved: counters.removed,
    endpointsCrashed: counters.crashed,
    rpcsSent: counters.sent,
    rpcsOk: counters.ok,
    allowedFailures: counters.allowed,
    allowedStartedAfterCrash: counters.allowedAfterCrash,
    unexpectedFailures: counters.unexpected,
    unexpectedSamples,
    statsMismatches: counters.statsMismatches,
    outstandingViolations: counters.violations,
    violationSamples,
    outstandingSamples: counters.samples,
    maxOutstandingTotal: counters.maxOutstandingTotal,
    outstandingAtRest: (atRest?.endpoints ?? []).map((endpoint) => endpoint.outstanding),
    endpointsAtRest: atRest?.endpoints.length ?? 0,
    distinctBackendsServed: served.size,
    heapBeforeBytes,
    heapAfterBytes,
  };
}

function track(pending: Set<Promise<void>>, promise: Promise<void>): void {
  pending.add(promise);
  void promise.finally(() => pending.delete(promise));
}

function progressLine(elapsedMs: number, counters: { sent: number; ok: number; allowed: number; unexpected: number }, listed: number): string {
  return (
    `t=${(elapsedMs / 1000).toFixed(1)}s sent=${counters.sent} ok=${counters.ok} ` +
    `allowed-failures=${counters.allowed} unexpected-failures=${counters.unexpected} listed=${listed}`
  );
}

async function waitForReady(label: string, timeoutMs: number): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (balancerStats(label)?.state !== 'READY') {
    if (Date.now() > giveUpAt) {
      throw new Error(`churn soak ${label}: channel not READY after ${timeoutMs} ms`);
    }
    await sleep(10);
  }
}

interface UnaryOutcome {
  servedBy: string | null;
  error: { code: number; details: string } | null;
  peer: string;
  startedAtMs: number;
  endedAtMs: number;
}

function unaryCall(client: ProbeClient, deadlineMs: number): Promise<UnaryOutcome> {
  const startedAtMs = performance.now();
  return new Promise((resolve) => {
    const call = client.call(Buffer.alloc(0), new Metadata(), { deadline: Date.now() + deadlineMs }, (error, response) => {
      resolve({
        servedBy: error ? null : response!.toString('utf8'),
        error: error ? { code: error.code, details: error.details } : null,
        peer: call.getPeer(),
        startedAtMs,
        endedAtMs: performance.now(),
      });
    });
  });
}
