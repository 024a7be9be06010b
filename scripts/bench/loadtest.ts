/**
 * One load-test run of one scenario: start the fleet (backend hosts), start
 * the clients (one process each), run warm-up and measurement on a shared
 * clock, inject and heal the fault, collect and analyse.
 *
 * Layouts:
 * - `reference`: one client per policy, all at once against the same fleet,
 *   as the reference ran them (2 per policy there; 1 here for CPU).
 * - `uniform`: every client runs the same policy, so the fleet sees only that
 *   policy's traffic (no policy profits from, or suffers, another's choices).
 */
import { ChildProcess } from 'child_process';
import { behaviourOf, Behaviour, fleetRoles, parseMethodMix } from '../model';
import { combineRuns, groupShare, sharePerSecond, timeToDetectS, timeToRecoverS, WindowStats } from './analysis';
import { Fleet } from './fleet';
import { BackendSpec, ClientPrepare, forkChild, FromClientHost, isType, nextMessage, ToClientHost } from './ipc';
import type { RecordedRun } from './load-recorder';
import { ClientKind, clientLabel, PolicyId } from './policies';
import { formatMs, formatPercent, ProgressLine } from './progress';
import { offeredLoad, OfferedLoad, Scale, scaleBehaviour, scaleMethods } from './scale';
import { hasFaultPhase, phasesOf, ScenarioSpec, Timeline } from './scenarios';
import { prebuildForChildren } from './package-under-test';
import { startXdsControlPlane, XdsSetup } from './xds-run';

export type Layout = 'reference' | 'uniform';

export interface LoadTestSpec {
  readonly scenario: ScenarioSpec;
  readonly layout: Layout;
  /** reference: one client per policy; uniform: exactly one policy. */
  readonly policies: readonly PolicyId[];
  /** uniform only: how many clients run the policy. */
  readonly uniformClients?: number;
  readonly timeline: Timeline;
  readonly scale: Scale;
  readonly backendCount: number;
  readonly backendHosts: number;
  readonly seed: number;
  /** Add a client running peak_ewma through xDS (the fake control plane serves it the fleet). */
  readonly xds?: boolean;
  readonly progress?: ProgressLine;
}

export interface PolicyResult {
  readonly policy: ClientKind;
  readonly clients: number;
  readonly window: WindowStats;
  readonly phases: Record<string, WindowStats>;
  /** The reference's headline: fault phase for fault scenarios, else the whole window. */
  readonly headline: WindowStats;
  /** Per second, the share of calls the fault's backends got (empty without a fault). */
  readonly faultyShare: readonly number[];
  readonly detectS: number | null;
  readonly recoverS: number | null;
  /** Client CPU during measurement per completed call (open loop, not saturated), µs. */
  readonly cpuMicrosPerCall: number;
  /** Failed calls by gRPC status code, over the whole window. */
  readonly failuresByCode: Record<string, number>;
  /** Our balancers seen alive in the clients: proof the policy ran (empty for grpc-js's own). */
  readonly evidence: { policy: string; callsStarted: number }[];
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly title: string;
  readonly layout: Layout;
  readonly timeline: Timeline;
  readonly scale: Scale;
  readonly load: OfferedLoad;
  readonly backendCount: number;
  readonly faultyBackends: readonly number[];
  readonly policies: readonly PolicyResult[];
  readonly startedAt: string;
}

type ClientId = ClientKind;

interface ClientProcess {
  readonly id: ClientId;
  readonly child: ChildProcess;
  latest: { ok: number; failed: number; okP99Ms: number; second: number } | null;
}

/** The ids of every backend the run will ever have (churn adds cold pods). */
function backendIds(spec: LoadTestSpec): string[] {
  const extra =
    spec.scenario.churn === 'rolling_restart'
      ? Math.floor((spec.timeline.faultToS - spec.timeline.faultFromS) / 2)
      : spec.scenario.churn === 'scale_up_down'
        ? 5
        : 0;
  return Array.from({ length: spec.backendCount + extra }, (_, i) => `b${i}`);
}

function initialBehaviours(spec: LoadTestSpec): Behaviour[] {
  const roles = fleetRoles(spec.scenario.fleet, spec.backendCount);
  return roles.map((role, i) => {
    let behaviour = scaleBehaviour(behaviourOf(role), spec.scale);
    if (spec.scenario.standing?.backends.includes(i)) {
      behaviour = { ...behaviour, ...scaleBehaviour(spec.scenario.standing.patch, spec.scale) };
    }
    return behaviour;
  });
}

function clientIds(spec: LoadTestSpec): ClientId[] {
  const ids: ClientId[] =
    spec.layout === 'reference'
      ? [...spec.policies]
      : new Array<ClientId>(spec.uniformClients ?? 6).fill(spec.policies[0]);
  if (spec.xds) {
    ids.push('peak_ewma_xds');
  }
  return ids;
}

export async function runLoadTest(spec: LoadTestSpec): Promise<ScenarioResult> {
  prebuildForChildren();
  const { scenario, timeline } = spec;
  const methods = scaleMethods(parseMethodMix(scenario.methods), spec.scale);
  const behaviours = initialBehaviours(spec);
  const ids = backendIds(spec);
  const clients = clientIds(spec);
  // Capacity counts the starting fleet (churn keeps the count about level).
  const load = offeredLoad(behaviours, methods, clients.length, spec.scale);
  const specs: BackendSpec[] = behaviours.map((behaviour, i) => ({ id: ids[i], behaviour, seed: spec.seed * 1000 + i }));
  const fleet = await Fleet.start(specs, {
    hosts: spec.backendHosts,
    orca: spec.policies.includes('wrr_orca'),
    maxConnectionAgeMs: scenario.maxConnectionAgeMs,
  });
  const processes: ClientProcess[] = [];
  const timers: NodeJS.Timeout[] = [];
  let xds: XdsSetup | null = null;
  try {
    if (spec.xds) {
      xds = await startXdsControlPlane(Array.from(fleet.addresses.values()));
    }
    const addressIndex: Record<string, number> = {};
    for (const [id, address] of fleet.addresses) {
      addressIndex[address] = ids.indexOf(id);
    }
    const dynamic = scenario.churn !== undefined;
    await Promise.all(
      clients.map(async (id, i) => {
        const child = forkChild('client-host.ts');
        processes.push({ id, child, latest: null });
        const prepare: ClientPrepare = {
          type: 'prepare',
          policy: id === 'peak_ewma_xds' ? 'peak_ewma' : id,
          addresses: Array.from(fleet.addresses.values()),
          dynamicAddresses: dynamic,
          backendIds: ids,
          addressIndex,
          seed: spec.seed * 100 + i,
          ...(id === 'peak_ewma_xds' && xds ? { xdsTarget: xds.target, xdsBootstrap: xds.bootstrap } : {}),
        };
        const ready = nextMessage(child, isType<Extract<FromClientHost, { type: 'ready' }>>('ready'));
        child.send(prepare satisfies ToClientHost);
        await ready;
      }),
    );
    const zeroAtEpochMs = Date.now() + 1000 + timeline.warmupS * 1000;
    const results = processes.map((p) => {
      p.child.on('message', (message: FromClientHost) => {
        if (message.type === 'progress') {
          p.latest = message;
        }
      });
      return nextMessage(
        p.child,
        isType<Extract<FromClientHost, { type: 'result' }>>('result'),
        (timeline.warmupS + timeline.measureS + 120) * 1000,
      );
    });
    processes.forEach((p, i) =>
      p.child.send({
        type: 'run',
        zeroAtEpochMs,
        warmupS: timeline.warmupS,
        measureS: timeline.measureS,
        rateRps: load.perClientRps,
        methods,
        phases: phasesOf(timeline),
        phaseOffset: i / processes.length,
        deadlineMs: Math.max(...methods.map((m) => m.deadlineMs)),
        ...(scenario.replaceClientAtFraction !== undefined
          ? { replaceClientAtS: Math.round(scenario.replaceClientAtFraction * timeline.measureS) }
          : {}),
      } satisfies ToClientHost),
    );
    const at = (s: number, action: () => void | Promise<void>): void => {
      timers.push(
        setTimeout(() => {
          Promise.resolve(action()).catch((error: unknown) => console.error(`event at t=${s}s failed:`, error));
        }, zeroAtEpochMs + s * 1000 - Date.now()),
      );
    };
    scheduleFaults(spec, fleet, ids, processes, at);
    const progressTimer = setInterval(() => spec.progress?.update(progressText(spec, processes, zeroAtEpochMs)), 1000);
    let finished: Extract<FromClientHost, { type: 'result' }>[];
    try {
      finished = await Promise.all(results);
    } finally {
      clearInterval(progressTimer);
      spec.progress?.done();
    }
    return analyse(
      spec,
      load,
      ids.length,
      processes.map((p, i) => ({ id: p.id, ...finished[i] })),
    );
  } finally {
    timers.forEach(clearTimeout);
    for (const p of processes) {
      if (p.child.connected) {
        p.child.send({ type: 'stop' } satisfies ToClientHost);
      }
    }
    xds?.close();
    await fleet.stop();
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null) return resolve();
            const kill = setTimeout(() => p.child.kill(), 5000);
            p.child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
          }),
      ),
    );
  }
}

function scheduleFaults(
  spec: LoadTestSpec,
  fleet: Fleet,
  ids: readonly string[],
  processes: readonly ClientProcess[],
  at: (s: number, action: () => void | Promise<void>) => void,
): void {
  const { scenario, timeline, scale } = spec;
  if (scenario.fault) {
    const faulty = scenario.fault.backends.map((i) => ids[i]);
    at(timeline.faultFromS, () => fleet.set(faulty, scaleBehaviour(scenario.fault!.patch, scale)));
    at(timeline.faultToS, () => fleet.set(faulty, scaleBehaviour(scenario.fault!.heal, scale)));
  }
  const publish = (): void => {
    const addresses = Array.from(fleet.addresses.values());
    const addressIndex: Record<string, number> = {};
    for (const [id, address] of fleet.addresses) {
      addressIndex[address] = ids.indexOf(id);
    }
    for (const p of processes) {
      p.child.send({ type: 'addresses', addresses, addressIndex } satisfies ToClientHost);
    }
  };
  const coldPod = (index: number): BackendSpec => ({
    id: ids[index],
    behaviour: scaleBehaviour(behaviourOf('normal'), scale),
    seed: spec.seed * 1000 + index,
  });
  if (scenario.churn === 'rolling_restart') {
    // Every 2 s: a cold pod joins, the oldest original leaves the list, and is stopped 1 s later.
    const steps = Math.floor((timeline.faultToS - timeline.faultFromS) / 2);
    for (let k = 0; k < steps; k++) {
      at(timeline.faultFromS + 2 * k, async () => {
        await fleet.add([coldPod(spec.backendCount + k)]);
        const old = ids[k];
        const oldAddress = fleet.addresses.get(old);
        fleet.addresses.delete(old);
        publish();
        setTimeout(() => {
          if (oldAddress !== undefined) fleet.addresses.set(old, oldAddress);
          fleet.retire([old], 5000);
        }, 1000);
      });
    }
  } else if (scenario.churn === 'scale_up_down') {
    at(timeline.faultFromS, async () => {
      await fleet.add(Array.from({ length: 5 }, (_, k) => coldPod(spec.backendCount + k)));
      publish();
    });
    const retireAtS = Math.round((timeline.measureS * 55) / 90);
    at(retireAtS, () => {
      const old = ids.slice(0, 5);
      const addresses = old.map((id) => fleet.addresses.get(id));
      for (const id of old) fleet.addresses.delete(id);
      publish();
      setTimeout(() => {
        old.forEach((id, k) => addresses[k] !== undefined && fleet.addresses.set(id, addresses[k]!));
        fleet.retire(old, 5000);
      }, 1000);
    });
  }
}

function shortName(id: ClientId): string {
  return id === 'peak_ewma_xds' ? 'pe/xds' : clientLabel(id);
}

function progressText(spec: LoadTestSpec, processes: readonly ClientProcess[], zeroAtEpochMs: number): string {
  const t = Math.floor((Date.now() - zeroAtEpochMs) / 1000);
  const { timeline } = spec;
  const phase = t < 0 ? 'warm-up' : hasFaultPhase(spec.scenario) && t >= timeline.faultFromS && t < timeline.faultToS ? 'FAULT' : 'run';
  const byPolicy = new Map<ClientId, { ok: number; failed: number; p99: number[] }>();
  for (const p of processes) {
    const entry = byPolicy.get(p.id) ?? { ok: 0, failed: 0, p99: [] };
    if (p.latest) {
      entry.ok += p.latest.ok;
      entry.failed += p.latest.failed;
      entry.p99.push(p.latest.okP99Ms);
    }
    byPolicy.set(p.id, entry);
  }
  const parts = Array.from(byPolicy, ([id, e]) => {
    const p99 = e.p99.length > 0 ? Math.max(...e.p99) : NaN;
    return `${shortName(id)} ${formatMs(p99)} ${formatPercent(e.ok + e.failed > 0 ? e.failed / (e.ok + e.failed) : NaN, 1)}`;
  });
  return `${spec.scenario.id} ${spec.layout} ${t < 0 ? t : `${t}/${timeline.measureS}`}s ${phase} | p99 err: ${parts.join(' | ')}`;
}

function analyse(
  spec: LoadTestSpec,
  load: OfferedLoad,
  backendCount: number,
  finished: readonly { id: ClientId; run: RecordedRun; cpuMicros: number; evidence: { balancers: { policy: string; callsStarted: number }[] } }[],
): ScenarioResult {
  const faulty = spec.scenario.fault?.backends ?? [];
  const fairShare = faulty.length / spec.backendCount;
  const ids = Array.from(new Set(finished.map((f) => f.id)));
  const policies = ids.map((id): PolicyResult => {
    const mine = finished.filter((f) => f.id === id);
    const runs = mine.map((f) => f.run);
    const { window, phases } = combineRuns(runs);
    const faultyShare = faulty.length > 0 ? groupShare(sharePerSecond(runs, backendCount), faulty) : [];
    const calls = window.calls;
    return {
      policy: id,
      clients: mine.length,
      window,
      phases,
      headline: hasFaultPhase(spec.scenario) ? phases.fault : window,
      faultyShare,
      detectS: faulty.length > 0 ? timeToDetectS(faultyShare, fairShare, spec.timeline.faultFromS, spec.timeline.faultToS) : null,
      recoverS: faulty.length > 0 ? timeToRecoverS(faultyShare, fairShare, spec.timeline.faultToS) : null,
      cpuMicrosPerCall: calls > 0 ? mine.reduce((s, f) => s + f.cpuMicros, 0) / calls : NaN,
      evidence: mine.flatMap((f) => f.evidence.balancers),
      failuresByCode: mine.reduce<Record<string, number>>((acc, f) => {
        for (const [code, n] of Object.entries(f.run.failuresByCode)) acc[code] = (acc[code] ?? 0) + n;
        return acc;
      }, {}),
    };
  });
  for (const result of policies) {
    checkEvidence(result);
  }
  return {
    scenario: spec.scenario.id,
    title: spec.scenario.title,
    layout: spec.layout,
    timeline: spec.timeline,
    scale: spec.scale,
    load,
    backendCount: spec.backendCount,
    faultyBackends: faulty,
    policies,
    startedAt: new Date().toISOString(),
  };
}

const OUR_POLICY_NAME: Partial<Record<ClientId, string>> = {
  least_request: 'least_request_experimental',
  lr_od: 'least_request_experimental',
  peak_ewma: 'peak_ewma_experimental',
  peak_ewma_od: 'peak_ewma_experimental',
  peak_ewma_xds: 'peak_ewma_experimental',
};

/** grpc-js falls back to pick_first silently: refuse results from a policy that did not run. */
function checkEvidence(result: PolicyResult): void {
  const expected = OUR_POLICY_NAME[result.policy];
  if (expected === undefined) {
    return;
  }
  const accounted = result.evidence.filter((b) => b.policy === expected).reduce((s, b) => s + b.callsStarted, 0);
  if (accounted < result.window.calls * 0.5) {
    throw new Error(
      `${result.policy}: ${expected} accounted ${accounted} of ${result.window.calls} calls; the policy did not run ` +
        `(grpc-js may have fallen back to pick_first)`,
    );
  }
}
