/**
 * The churn soak: continuous unary traffic through one channel whose address
 * list changes every tick (a fresh backend added, the oldest removed), and
 * the checks that must hold throughout. Shared by `npm run soak` (60 s) and
 * the short jest version. The list comes from the `manual-test` resolver (scripts/lib/manual-resolver.ts) or
 * from EDS (address-sources.ts).
 *
 * Removal modes:
 * - graceful: the endpoint leaves the list first; once the balancer shows it
 *   gone, its server drains (GOAWAY, in-flight calls finish) `drainDelayMs`
 *   later. No RPC may fail.
 * - hard: the backend crashes while still listed (connections reset, port
 *   closed) and leaves the list `removeDelayMs` later. Only calls that went
 *   to a crashed backend and ended after its crash may fail.
 *
 * Checks: every failure classified; after each list update, the balancer's
 * stats list exactly the current endpoints (at once for the resolver, within
 * settleMs for EDS); sampled every 5 ms, no endpoint's outstanding count is
 * negative or below what its server has in progress (the engine clamps at
 * zero, so a double decrement would show as the client counting fewer calls
 * than the server holds); at rest, every outstanding count is zero.
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { getLoadBalancerStats, STATS_LABEL_OPTION } from '../../src';
import type { BalancerStats } from '../../src';
import { createProbeClient, ProbeClient } from '../lib/probe-service';
import { AddressSource } from './address-sources';
import { ChurnBackend, ChurnMode, startChurnBackend } from './churn-backends';
import { ChurnReport, FailureRecord } from './churn-report';

export type { ChurnMode } from './churn-backends';

export interface ChurnOptions {
  mode: ChurnMode;
  /** Made by resolverSource() or edsSource(); closed by the soak. */
  source: AddressSource;
  /** Distinct per concurrent run: the channel's stats label. */
  label: string;
  durationMs: number;
  /**
   * Runs on past durationMs until this many ticks: each tick waits for its
   * updates to be applied, so a loaded machine fits fewer into the duration,
   * and a test sized by ticks must not depend on machine speed. Default 0.
   */
  minTicks?: number;
  /** One add and one removal per tick. */
  tickMs: number;
  /** Endpoints listed at any time. */
  activeEndpoints: number;
  /** Closed-loop callers. */
  concurrency: number;
  deadlineMs: number;
  /** graceful: time between the balancer dropping an endpoint and its server draining. */
  drainDelayMs?: number;
  /** hard: time between the crash and leaving the list. */
  removeDelayMs?: number;
  /** Called about once a second with a progress line. */
  onProgress?: (line: string) => void;
  /** Forced-GC heap probe (heap.ts); omitted: no heap figures. */
  heapUsedAfterGc?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const MAX_SAMPLES = 10;

/** Our balancers on the channel labelled `label` (one expected). */
function balancersOf(label: string): BalancerStats[] {
  return getLoadBalancerStats().filter((stats) => stats.label === label);
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

export async function runChurnSoak(options: ChurnOptions): Promise<ChurnReport> {
  const { source, label } = options;
  const drainDelayMs = options.drainDelayMs ?? 300;
  const removeDelayMs = options.removeDelayMs ?? 30;
  let nextId = 0;
  // Service times 1..20 ms, varied so that peak_ewma has something to choose between.
  const newBackend = () => {
    const id = nextId++;
    return startChurnBackend(options.mode, `${label}-${id}`, 1 + ((id * 7) % 20));
  };

  const active: ChurnBackend[] = await Promise.all(Array.from({ length: options.activeEndpoints }, newBackend));
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
    lateStats: 0,
    statsMismatches: 0,
    violations: 0,
    samples: 0,
    maxOutstandingTotal: 0,
  };
  const unexpectedSamples: FailureRecord[] = [];
  const violationSamples: string[] = [];
  const served = new Set<string>();

  const initialList = source.publish(active.map((backend) => backend.address));
  const client: ProbeClient = createProbeClient(source.target, credentials.createInsecure(), {
    ...source.channelOptions,
    [STATS_LABEL_OPTION]: label,
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1_000,
  });

  /** Publishes the active list and checks the balancer shows exactly it. */
  const publish = async () => {
    const listed = active.map((backend) => backend.address);
    await source.publish(listed);
    const shows = () => {
      const balancers = balancersOf(label);
      return balancers.length === 1 && sameSet(balancers[0].endpoints.map((endpoint) => endpoint.address), listed);
    };
    if (shows()) return;
    const giveUpAt = performance.now() + source.settleMs;
    while (performance.now() < giveUpAt) {
      await sleep(5);
      if (shows()) {
        counters.lateStats++;
        return;
      }
    }
    counters.statsMismatches++;
  };

  const checkOutstanding = () => {
    const balancers = balancersOf(label);
    if (balancers.length === 0) return;
    counters.samples++;
    let total = 0;
    for (const endpoint of balancers.flatMap((balancer) => balancer.endpoints)) {
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
  await initialList;
  await waitForReady(label, 20_000);
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
  const minTicks = options.minTicks ?? 0;
  while (performance.now() - startedAt < options.durationMs || counters.ticks < minTicks) {
    const tickStartedAt = performance.now();
    counters.ticks++;
    active.push(await newBackend());
    counters.added++;
    const oldest = active[0];
    if (options.mode === 'graceful') {
      active.shift();
      await publish();
      counters.removed++;
      track(retiring, sleep(drainDelayMs).then(() => oldest.retire()));
    } else {
      await publish(); // the new one joins; the oldest is still listed when it crashes
      crashedAt.set(oldest.address, performance.now());
      oldest.crash!();
      counters.crashed++;
      await sleep(removeDelayMs);
      active.splice(active.indexOf(oldest), 1);
      await publish();
      counters.removed++;
      track(retiring, oldest.retire());
    }
    if (options.onProgress && performance.now() - lastProgressAt >= 1_000) {
      lastProgressAt = performance.now();
      options.onProgress(
        `t=${((lastProgressAt - startedAt) / 1000).toFixed(1)}s sent=${counters.sent} ok=${counters.ok} ` +
          `allowed-failures=${counters.allowed} unexpected-failures=${counters.unexpected} listed=${active.length}`,
      );
    }
    await sleep(Math.max(0, options.tickMs - (performance.now() - tickStartedAt)));
  }

  trafficOn = false;
  await Promise.all(workers);
  clearInterval(sampler);
  checkOutstanding();
  await Promise.all(retiring);
  const atRest = balancersOf(label);
  const heapAfterBytes = options.heapUsedAfterGc?.() ?? null;

  client.close();
  await Promise.all(active.map((backend) => backend.retire()));
  source.close();

  return {
    mode: options.mode,
    source: source.kind,
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
    lateStatsUpdates: counters.lateStats,
    statsMismatches: counters.statsMismatches,
    outstandingViolations: counters.violations,
    violationSamples,
    outstandingSamples: counters.samples,
    maxOutstandingTotal: counters.maxOutstandingTotal,
    balancersAtRest: atRest.length,
    outstandingAtRest: atRest.flatMap((balancer) => balancer.endpoints.map((endpoint) => endpoint.outstanding)),
    endpointsAtRest: atRest.reduce((sum, balancer) => sum + balancer.endpoints.length, 0),
    distinctBackendsServed: served.size,
    heapBeforeBytes,
    heapAfterBytes,
  };
}

function track(pending: Set<Promise<void>>, promise: Promise<void>): void {
  pending.add(promise);
  void promise.finally(() => pending.delete(promise));
}

async function waitForReady(label: string, timeoutMs: number): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (balancersOf(label)[0]?.state !== 'READY') {
    if (Date.now() > giveUpAt) {
      throw new Error(`churn soak ${label}: no READY balancer after ${timeoutMs} ms`);
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
