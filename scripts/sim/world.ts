/**
 * One simulation run: a fleet of model backends, clients each with its own
 * balancer (open loop, as the reference's, or closed loop: closed-loop.ts),
 * a scenario's events, in virtual time.
 *
 * Per call: the client picks with its policy at the intended start (there is
 * no client-side lag in virtual time), accounts the start, and submits to the
 * backend; the call ends at the backend's reply or at the deadline, whichever
 * comes first, and the policy sees that end exactly as grpc-js would report
 * it (OK → SUCCESS, UNAVAILABLE → FAILURE, deadline → DEADLINE_EXCEEDED).
 * Latency is measured from the intended start.
 *
 * Discovery: the address list is a file each client polls every 500 ms at
 * its own phase; a new endpoint is READY `CONNECT_MS` after the poll that
 * finds it; a removed one leaves the READY set at that poll (its calls in
 * flight still finish).
 */
import { CallOutcome } from '../../src/core/endpoint-load';
import { RandomSource, seededRandom } from '../../src/core/random';
import { BackendModel, ReplyStatus } from '../model/backend';
import { outcomeOfStatus as outcomeOfGrpcStatus } from '../../src/policy/call-outcome';
import { fleetCapacityRps, meanServiceMs, ratePerClientRps } from '../model/capacity';
import { meanMedianMs } from '../model/methods';
import { DEFAULT_BEHAVIOUR } from '../model/behaviour';
import { behaviourAtSlots, fleetRoles, Role } from '../model/roles';
import { VirtualScheduler } from '../model/virtual-scheduler';
import { ArrivalCalendar, ArrivalMode, exponentialMs } from './arrivals';
import { ClosedLoopPlan, MIN_CALL_CYCLE_MS, planClosedLoop } from './closed-loop';
import { CALL_ENDED, CALL_FREE, CallTable, DeadlineQueue } from './calls';
import { ClientPolicy } from './client-policy';
import { ClientStall, StallSchedule } from './client-stall';
import { RunMetrics } from './metrics';
import { createPolicy, parsePolicySpec, PolicySpec } from './policies';
import { GroupTally, PathTally } from './tally';
import { phaseTimeline, Scenario, ScenarioControl, scenarioByName } from './scenarios';
import { foundBackAfterMs } from './reconnect';
import { seedFor } from './seeds';
import { Timeline } from './timeline';

export const RESOLVER_POLL_MS = 500;
export const CONNECT_MS = 1;
/** Clients start (connect, begin sending) at a random time in [0, this). */
export const CLIENT_START_SPREAD_MS = 1000;

export interface GroupSpec {
  /** Policy spec text (see policies.ts). */
  readonly policy: string;
  readonly clients: number;
}

export interface RunSpec {
  readonly scenario: string;
  readonly groups: readonly GroupSpec[];
  readonly seed: number;
  readonly timeline: Timeline;
  /** Fleet-size and load overrides (sensitivity grid, scale run). */
  readonly backends?: number;
  readonly load?: number;
  /**
   * How each client spaces its calls: `fixed` (default), every period as the
   * reference's LoadGen does; `poisson`, exponential gaps with the same mean,
   * as many independent users would send (measured: it does not change which
   * policy leads in identical fleets, docs/simulation.md); `closed`, each
   * client runs `workers` callers that wait for each call to end, think, and
   * send the next (closed-loop.ts), at the same offered rate while answers
   * take the default backend's mean service time.
   */
  readonly arrivals?: ArrivalMode;
  /** Closed loop only: callers per client (default: the fewest that offer the rate; closed-loop.ts). */
  readonly workers?: number;
  /**
   * Calls the default backend serves at once (default 8, the reference's);
   * roles keep their relative differences (roles.ts).
   */
  readonly slots?: number;
  /** The clients' own pauses (client-stall.ts); absent: none, as the reference. */
  readonly clientStall?: ClientStall;
  /** Count calls by pod and pick path against this bound (tally.ts); absent: no tally. */
  readonly tallyBoundMs?: number;
}

export interface FreshEvent {
  readonly backend: number;
  readonly atMs: number;
  readonly publishedCount: number;
}

export interface RunOutput {
  readonly spec: RunSpec;
  readonly scenario: Scenario;
  readonly metrics: RunMetrics;
  readonly policies: readonly PolicySpec[];
  readonly clientGroups: readonly number[];
  readonly healthy: Uint8Array;
  /** Backends that existed at some point (ids 0..backendCount-1). */
  readonly backendCount: number;
  readonly fresh: readonly FreshEvent[];
  readonly ratePerClientRps: number;
  /** Closed loop: the callers, think time, and the most calls any client had in flight. */
  readonly closedLoop?: ClosedLoopPlan & { readonly maxInFlight: number };
  readonly calls: number;
  readonly events: number;
  readonly wallMs: number;
  /** With `tallyBoundMs`: the calls by pod and pick path (tally.ts). */
  readonly tally?: readonly GroupTally[];
}

interface Client {
  readonly index: number;
  readonly group: number;
  policy: ClientPolicy;
  readonly random: RandomSource;
  readonly periodMs: number;
  readonly startMs: number;
  /** Draws the gaps of Poisson arrivals; its own stream, so fixed-spacing runs are unchanged. */
  readonly arrivalRandom: RandomSource;
  sent: number;
  /** Backend ids in the address list as this client last read it. */
  known: number[];
  /** Ids connected (READY unless blipped). */
  readonly connected: Set<number>;
  readonly down: Set<number>;
  seenVersion: number;
}

export function runSimulation(spec: RunSpec): RunOutput {
  const wallStart = performance.now();
  const scenario = scenarioByName(spec.scenario);
  const methods = scenario.methods;
  const backendCount = spec.backends ?? scenario.backends;
  const load = spec.load ?? 0.7;
  const timeline = spec.timeline;
  const measureStartMs = timeline.warmupMs;
  const endMs = timeline.warmupMs + timeline.measureS * 1000;
  const policies = spec.groups.map((group) => parsePolicySpec(group.policy));
  const tally = spec.tallyBoundMs === undefined ? undefined : new PathTally(policies.map((policy) => policy.label), spec.tallyBoundMs);
  const clientGroups = spec.groups.flatMap((group, g) => new Array<number>(group.clients).fill(g));
  const clientCount = clientGroups.length;

  // Load: the harness's rps_each = max(10, int(load · capacity / clients)).
  const roles = fleetRoles(scenario.fleet, backendCount);
  const slots = spec.slots ?? DEFAULT_BEHAVIOUR.slots;
  const capacityRps = fleetCapacityRps(roles.map((role) => behaviourAtSlots(role, slots)), methods);
  const rateRps = ratePerClientRps(capacityRps, load, clientCount);
  const scheduler = new VirtualScheduler(0, { bucketMs: calendarBucketMs((rateRps * clientCount) / 1000) });
  if (spec.workers !== undefined && spec.arrivals !== 'closed') {
    throw new RangeError(`workers (${spec.workers}) is for closed-loop arrivals only, got arrivals "${spec.arrivals ?? 'fixed'}"`);
  }
  const closedLoop =
    spec.arrivals === 'closed' ? planClosedLoop(rateRps, meanServiceMs(behaviourAtSlots('normal', slots), meanMedianMs(methods)), spec.workers) : undefined;
  // Closed loop: calls each client has in flight now, and the most it ever had.
  const inFlight = new Int32Array(clientCount);
  let maxInFlight = 0;

  // Fleet.
  const backends: BackendModel[] = [];
  const backendRoles: Role[] = [];
  // Room for backends a scenario adds (s07 adds 20, s08 5, herd 2).
  const maxBackends = backendCount * 2 + 8;
  const stalls = spec.clientStall === undefined ? undefined : new StallSchedule(spec.clientStall, clientCount, spec.seed);
  const onReply = (callId: number, status: ReplyStatus): void => {
    const slot = calls.openSlot(callId);
    if (slot < 0) {
      return;
    }
    // A paused client sees the answer when it resumes.
    const pausedMs = stalls === undefined ? 0 : stalls.remainingMs(calls.client[slot], scheduler.nowMs());
    if (pausedMs > 0) {
      scheduler.schedule(scheduler.nowMs() + pausedMs, () => onReply(callId, status));
      return;
    }
    endCall(slot, outcomeOfStatus(status));
  };
  const addBackend = (role: Role): number => {
    const id = backends.length;
    if (id >= maxBackends) {
      throw new RangeError(`scenario ${scenario.name} adds more than ${maxBackends - backendCount} backends`);
    }
    backends.push(
      new BackendModel({ scheduler, random: seededRandom(seedFor(spec.seed, 'backend', id)), behaviour: behaviourAtSlots(role, slots), onReply }),
    );
    backendRoles.push(role);
    return id;
  };
  roles.forEach((role) => addBackend(role));
  let published: readonly number[] = backends.map((_, id) => id);
  let publishedVersion = 0;

  const maxDeadlineMs = Math.max(...methods.map((m) => m.deadlineMs));
  const calls = new CallTable(((rateRps * clientCount * (maxDeadlineMs + 2 * RESOLVER_POLL_MS)) / 1000) * 1.5);
  const methodCumulative = cumulativeWeights(methods.map((m) => m.weight));
  const methodMedian = methods.map((m) => m.medianMs);
  const methodDeadline = methods.map((m) => m.deadlineMs);
  const methodNames = methods.map((m) => m.name);

  const metrics = new RunMetrics({
    clientGroups,
    groupCount: spec.groups.length,
    maxBackends,
    timeline: phaseTimeline(scenario, timeline),
    methodCount: methods.length,
  });

  // Deadlines: one FIFO per distinct deadline.
  const deadlineQueues = new Map<number, DeadlineQueue>();
  const expire = (slot: number): void => endCall(slot, CallOutcome.DEADLINE_EXCEEDED);
  const queueOfMethod = methods.map((m) => {
    let queue = deadlineQueues.get(m.deadlineMs);
    if (!queue) {
      queue = new DeadlineQueue(m.deadlineMs, calls, scheduler, expire);
      deadlineQueues.set(m.deadlineMs, queue);
    }
    return queue;
  });

  // Per-call method of the pick in progress, for the oracles.
  let currentMethod = 0;
  const makePolicy = (client: number): ClientPolicy =>
    createPolicy(policies[clientGroups[client]], {
      scheduler,
      backends,
      random: seededRandom(seedFor(spec.seed, 'policy', client, restarts)),
      currentMedianMs: () => methodMedian[currentMethod],
      methodNames,
    });
  let restarts = 0;

  const clients: Client[] = [];
  for (let c = 0; c < clientCount; c++) {
    const random = seededRandom(seedFor(spec.seed, 'client', c));
    clients.push({
      index: c,
      group: clientGroups[c],
      policy: makePolicy(c),
      random,
      periodMs: 1000 / rateRps,
      startMs: random() * CLIENT_START_SPREAD_MS,
      arrivalRandom: seededRandom(seedFor(spec.seed, 'arrivals', c)),
      sent: 0,
      known: [],
      connected: new Set(),
      down: new Set(),
      seenVersion: -1,
    });
  }

  function endCall(slot: number, outcome: CallOutcome): void {
    const nowMs = scheduler.nowMs();
    calls.state[slot] = CALL_ENDED;
    const client = calls.client[slot];
    const ok = outcome === CallOutcome.SUCCESS;
    const backend = calls.backend[slot];
    if (backend >= 0) {
      (calls.owner[slot] as ClientPolicy).ended(backend, outcome, ok, calls.token[slot]);
    }
    const method = calls.method[slot];
    metrics.recordEnd(client, nowMs - calls.intendedMs[slot], ok, methodDeadline[method], nowMs, method);
    if (tally !== undefined && backend >= 0 && nowMs >= measureStartMs) {
      const pods = scenario.faulty.includes(backend) ? 'faulty' : backend >= roles.length ? `joined ${backendRoles[backend]}` : backendRoles[backend];
      tally.record(clients[client].group, pods, calls.path[slot], nowMs - calls.intendedMs[slot], ok);
    }
    if (closedLoop !== undefined && backend >= 0) {
      inFlight[client]--;
      // The caller thinks, then sends again (a call that failed at the pick is retried by `send`).
      sendAfterThinking(calls.source[slot], calls.intendedMs[slot], nowMs);
    }
  }

  /** Client c sends one call (for the caller `source`); whether it went out to a backend. */
  const send = (c: number, source: number): boolean => {
    const client = clients[c];
    const nowMs = scheduler.nowMs();
    const method = methods.length === 1 ? 0 : pickWeighted(methodCumulative, client.random());
    currentMethod = method;
    const callId = calls.open(c, method, nowMs, source);
    const slot = callId & calls.mask;
    const policy = client.policy;
    const backend = policy.pick(method);
    client.sent++;
    if (backend < 0) {
      // No READY endpoint: the call fails (wait-for-ready is off).
      endCall(slot, CallOutcome.FAILURE);
      calls.state[slot] = CALL_FREE;
      return false;
    }
    calls.backend[slot] = backend;
    if (tally !== undefined) {
      calls.path[slot] = policy.lastPickPath?.() ?? -1;
    }
    calls.token[slot] = policy.started(backend, method);
    // Calls end on the policy instance that started them (s11 replaces instances).
    calls.owner[slot] = policy;
    metrics.recordSend(client.group, backend, nowMs);
    queueOfMethod[method].push(callId);
    if (closedLoop !== undefined) {
      maxInFlight = Math.max(maxInFlight, ++inFlight[c]);
    }
    // Last: a backend may answer at once (unavailable), and in a closed loop that schedules the next send.
    backends[backend].submit(callId, methodMedian[method], nowMs + methodDeadline[method]);
    return true;
  };

  // Open loop: client c sends at startMs + k · period, or after exponential gaps of mean period.
  const poisson = spec.arrivals === 'poisson';
  const arrive = (c: number): number => {
    const client = clients[c];
    const nowMs = scheduler.nowMs();
    send(c, c);
    const nextMs = poisson
      ? nowMs + exponentialMs(client.periodMs, client.arrivalRandom())
      : client.startMs + client.sent * client.periodMs;
    return nextMs < endMs ? nextMs : Infinity;
  };
  const arrivals = new ArrivalCalendar(clientCount, arrive);
  if (closedLoop === undefined) {
    scheduler.setSource(arrivals);
  }

  // Closed loop: caller `source` (client source % clientCount) sends; its next send follows the call's end.
  const sendFromCaller = (source: number): void => {
    if (!send(source % clientCount, source)) {
      sendAfterThinking(source, scheduler.nowMs(), scheduler.nowMs());
    }
  };
  function sendAfterThinking(source: number, sentAtMs: number, endedAtMs: number): void {
    const client = clients[source % clientCount];
    const nextMs = Math.max(endedAtMs + exponentialMs(closedLoop!.thinkMs, client.arrivalRandom()), sentAtMs + MIN_CALL_CYCLE_MS);
    if (nextMs < endMs) {
      scheduler.schedule(nextMs, sendFromCaller, source);
    }
  }

  // Discovery and connectivity.
  const refreshReady = (client: Client): void => {
    client.policy.setReady(client.known.filter((id) => client.connected.has(id) && !client.down.has(id)));
  };
  const connect = (clientAndBackend: number): void => {
    const client = clients[clientAndBackend % clientCount];
    const id = Math.floor(clientAndBackend / clientCount);
    if (client.known.includes(id)) {
      client.connected.add(id);
      refreshReady(client);
    }
  };
  const poll = (c: number): void => {
    const client = clients[c];
    scheduler.schedule(scheduler.nowMs() + RESOLVER_POLL_MS, poll, c);
    if (client.seenVersion === publishedVersion) {
      return;
    }
    client.seenVersion = publishedVersion;
    const before = new Set(client.known);
    client.known = published.slice();
    for (const id of before) {
      if (!published.includes(id)) {
        client.connected.delete(id);
      }
    }
    for (const id of published) {
      if (!before.has(id) && !client.connected.has(id)) {
        scheduler.schedule(scheduler.nowMs() + CONNECT_MS, connect, id * clientCount + c);
      }
    }
    refreshReady(client);
  };
  const startClient = (c: number): void => {
    const client = clients[c];
    // The channel connects before the clock starts (getState(true)).
    client.known = published.slice();
    client.seenVersion = publishedVersion;
    published.forEach((id) => client.connected.add(id));
    refreshReady(client);
    scheduler.schedule(client.startMs + client.random() * RESOLVER_POLL_MS, poll, c);
    if (closedLoop === undefined) {
      arrivals.add(c, client.startMs);
      return;
    }
    // The client's callers start one period apart, as its open-loop calls would.
    for (let worker = 0; worker < closedLoop.workers; worker++) {
      scheduler.schedule(client.startMs + worker * client.periodMs, sendFromCaller, c + worker * clientCount);
    }
  };

  const fresh: FreshEvent[] = [];
  const reconnectRandom = seededRandom(seedFor(spec.seed, 'reconnect'));
  /** `client` sees backend `id` not READY for `forMs`, then READY again, and then `then`. */
  const downFor = (client: Client, id: number, forMs: number, then?: () => void): void => {
    client.down.add(id);
    refreshReady(client);
    scheduler.schedule(scheduler.nowMs() + forMs, () => {
      client.down.delete(id);
      refreshReady(client);
      then?.();
    });
  };
  const control: ScenarioControl = {
    measureS: timeline.measureS,
    faultStartS: timeline.faultStartS,
    faultEndS: timeline.faultEndS,
    slots,
    atSecond: (s, action) => scheduler.schedule(measureStartMs + s * 1000, () => action()),
    backend: (id) => backends[id],
    addBackend,
    published: () => published,
    publish: (ids) => {
      published = ids.slice();
      publishedVersion++;
    },
    restartClients: () => {
      restarts++;
      for (const client of clients) {
        client.policy = makePolicy(client.index);
        refreshReady(client);
      }
    },
    markFresh: (id) => fresh.push({ backend: id, atMs: scheduler.nowMs(), publishedCount: published.length }),
    restartInPlace: (id, downMs) => {
      backends[id].restart();
      // Each client finds it back at its own next try (gRPC's connection back-off, reconnect.ts).
      for (const client of clients) {
        downFor(client, id, foundBackAfterMs(downMs, reconnectRandom));
      }
    },
    maxConnectionAge: (maxAgeMs, reconnectMs) => {
      // Each (client, backend) connection is closed after maxAge ± 10 %
      // (grpc-java's jitter); the endpoint is not READY until it reconnects.
      const blipRandom = seededRandom(seedFor(spec.seed, 'blips'));
      for (const client of clients) {
        for (const id of published) {
          const cycle = (): void =>
            downFor(client, id, reconnectMs, () => scheduler.schedule(scheduler.nowMs() + maxAgeMs * (0.9 + 0.2 * blipRandom()), cycle));
          scheduler.schedule(client.startMs + maxAgeMs * (0.9 + 0.2 * blipRandom()), cycle);
        }
      }
    },
  };

  // The published list, once per measured second, for fair shares.
  const recordPublished = (s: number): void => {
    metrics.recordPublished(s, published);
    if (s + 1 < metrics.seconds) {
      scheduler.schedule(measureStartMs + (s + 1) * 1000, recordPublished, s + 1);
    }
  };
  scheduler.schedule(measureStartMs, recordPublished, 0);

  scenario.setup(control);
  for (let c = 0; c < clientCount; c++) {
    startClient(c);
  }
  scheduler.runUntil(endMs + maxDeadlineMs);

  const healthy = new Uint8Array(maxBackends);
  backendRoles.forEach((role, id) => {
    healthy[id] = role === 'normal' && !scenario.faulty.includes(id) ? 1 : 0;
  });
  return {
    spec,
    scenario,
    metrics,
    policies,
    clientGroups,
    healthy,
    backendCount: backends.length,
    fresh,
    ratePerClientRps: rateRps,
    ...(closedLoop === undefined ? {} : { closedLoop: { ...closedLoop, maxInFlight } }),
    calls: calls.opened,
    events: scheduler.executed,
    wallMs: performance.now() - wallStart,
    ...(tally === undefined ? {} : { tally: tally.summary() }),
  };
}

/**
 * A model status as the engine's outcome: the model answers with gRPC codes
 * (OK, RESOURCE_EXHAUSTED when it sheds load, UNAVAILABLE), read by the rule
 * a real client's picker reads them with (src/policy/call-outcome.ts), so the
 * simulator and the load test cannot map them apart. Every one but OK is a
 * failed call in the reports (counted at the deadline).
 */
export function outcomeOfStatus(status: ReplyStatus): CallOutcome {
  return outcomeOfGrpcStatus(status, '');
}

/**
 * The event calendar's bucket width for a run sending `callsPerMs`: about
 * two tasks per bucket (each call schedules about one, its completion),
 * as a power of two in [1/1024, 1] ms.
 */
function calendarBucketMs(callsPerMs: number): number {
  return 2 ** Math.round(Math.log2(Math.min(1, Math.max(1 / 1024, 2 / callsPerMs))));
}

function cumulativeWeights(weights: readonly number[]): Float64Array {
  const total = weights.reduce((a, b) => a + b, 0);
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w / total;
    out[i] = sum;
  });
  return out;
}

function pickWeighted(cumulative: Float64Array, u: number): number {
  for (let i = 0; i < cumulative.length - 1; i++) {
    if (u < cumulative[i]) {
      return i;
    }
  }
  return cumulative.length - 1;
}
