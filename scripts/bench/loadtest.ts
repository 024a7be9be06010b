/**
 * One load-test run of one scenario: start the fleet (backend hosts), start
 * the clients (one process each), run warm-up and measurement on a shared
 * clock while the scenario's `setup` (the simulator's, through
 * RemoteScenarioControl) injects and heals faults, then collect and analyse.
 *
 * Layouts:
 * - `reference`: `clientsPerPolicy` clients per policy (the reference: 2),
 *   all at once against the same fleet, as the reference ran them.
 * - `uniform`: a fixed number of clients (`uniformClients`, whatever the
 *   policy list) all run one policy, so the fleet sees only that policy's
 *   traffic (no policy profits from, or suffers, another's choices).
 *
 * Every run has the same backend features on (ORCA out-of-band reports
 * included, whether or not a wrr client runs), and runs its scale's regime
 * (scale.ts): the timeline below is in timeline seconds, each `timeFactor`
 * real seconds long.
 */
import { ChildProcess } from 'child_process';
import { Behaviour, behaviourOf, fleetRoles, MethodSpec, Role } from '../model';
import { combineRuns, detectAndRecover, groupShare, sharePerSecond, WindowStats } from './analysis';
import { Fleet } from './fleet';
import { BackendSpec, ClientPrepare, forkChild, FromClientHost, isType, nextMessage, PolicyEvidence, ToClientHost } from './ipc';
import type { RecordedRun } from './load-recorder';
import { prebuildForChildren } from './package-under-test';
import { basePolicyOf, ClientKind, clientLabel, PolicyId } from './policies';
import { formatMs, formatPercent, ProgressLine } from './progress';
import { RemoteScenarioControl } from './remote-control';
import { DEFAULT_CLIENTS_PER_POLICY, DEFAULT_UNIFORM_CLIENTS, gcPhaseMsAt, LegacyScale, offeredLoad, OfferedLoad, Regime, regimeOf, Scale, scaleBehaviour, scaleMethods } from './scale';
import { phasesOf, phaseTimeline, Scenario, shortId, Timeline } from './scenarios';
import { startXdsControlPlane, XdsSetup } from './xds-run';
import { methodGroups } from './method-paths';

export type Layout = 'reference' | 'uniform';

export interface LoadTestSpec {
  readonly scenario: Scenario;
  readonly layout: Layout;
  /** reference: every policy side by side; uniform: exactly one policy. */
  readonly policies: readonly PolicyId[];
  /** reference: clients per policy (default 2, the reference's). */
  readonly clientsPerPolicy?: number;
  /** uniform only: how many clients run the policy (default 8, the reference's total). */
  readonly uniformClients?: number;
  readonly timeline: Timeline;
  readonly scale: Scale;
  readonly backendHosts: number;
  readonly seed: number;
  /** Add a client running peak_ewma through xDS (the fake control plane serves it the fleet). */
  readonly xds?: boolean;
  /** Fields set on every peak_ewma client's config (`--peak-ewma-config`); absent: the defaults. */
  readonly peakEwmaConfig?: Readonly<Record<string, unknown>>;
  /** Attempts per call that fails UNAVAILABLE, every client (`--retry-attempts`); absent: no retries. */
  readonly retryAttempts?: number;
  readonly progress?: ProgressLine;
}

export interface PolicyResult {
  readonly policy: ClientKind;
  readonly clients: number;
  readonly window: WindowStats;
  readonly phases: Record<string, WindowStats>;
  /**
   * Per method group, over the whole window, each method's failures at its
   * own deadline (method-tables.ts); absent for a one-method workload and in
   * older result files.
   */
  readonly methods?: Record<string, WindowStats>;
  /** The reference's headline: fault phase for fault scenarios, else the whole window. */
  readonly headline: WindowStats;
  /** Per second, the share of calls the scenario's faulty backends got (empty without any). */
  readonly faultyShare: readonly number[];
  /**
   * Per second, the share of calls the backends that joined during the run
   * got (s07, s08, s17, s18's newcomers; absent when none joined): s18's
   * are its slow pods, which `faultyShare` cannot name before they exist.
   */
  readonly joinedShare?: readonly number[];
  readonly detectS: number | null;
  readonly recoverS: number | null;
  /** Client CPU during measurement per completed call (open loop, not saturated), µs. */
  readonly cpuMicrosPerCall: number;
  /** Failed calls by gRPC status code, over the whole window. */
  readonly failuresByCode: Record<string, number>;
  /** Our balancers seen alive in the clients: proof the policy ran (empty for grpc-js's own). */
  readonly evidence: PolicyEvidence['balancers'];
  /** The worst p99 and max event-loop delay among the policy's client processes, ms. */
  readonly clientLoopDelayMs: { p99: number; max: number };
}

export interface ScenarioResult {
  /** Short id, e.g. "s03". */
  readonly scenario: string;
  readonly title: string;
  readonly layout: Layout;
  /** In timeline seconds (× scale.timeFactor real seconds). */
  readonly timeline: Timeline;
  readonly scale: Scale | LegacyScale;
  /** Absent in result files from before regimes were recorded: derive with `regimeOfRun`. */
  readonly regime?: Regime;
  readonly load: OfferedLoad;
  readonly backendCount: number;
  readonly faultyBackends: readonly number[];
  /** A workload of several methods: each (deadline × the time factor), in its policies' `methods` order; absent for one method. */
  readonly methods?: readonly MethodSpec[];
  /** Whether the headline is the fault phase. */
  readonly faultWindow: boolean;
  readonly policies: readonly PolicyResult[];
  readonly startedAt: string;
  /** 1-minute load average before and after the run: how busy the shared machine was. */
  readonly loadAverage: readonly [number, number];
  /** The backend hosts' worst event-loop delay during the run, ms (answers late by this much). */
  readonly backendLoopDelayMs: { p99: number; max: number };
  /** What peak_ewma's clients ran beside the defaults (`--peak-ewma-config`); absent: the defaults. */
  readonly peakEwmaConfig?: Readonly<Record<string, unknown>>;
  /** Attempts per call that failed UNAVAILABLE (`--retry-attempts`); absent: no retries. */
  readonly retryAttempts?: number;
}

interface ClientProcess {
  readonly id: ClientKind;
  readonly child: ChildProcess;
  latest: { ok: number; failed: number; okP99Ms: number; second: number } | null;
}

type Result = Extract<FromClientHost, { type: 'result' }>;

const backendName = (id: number): string => `b${id}`;

function clientKinds(spec: LoadTestSpec): ClientKind[] {
  const kinds: ClientKind[] =
    spec.layout === 'reference'
      ? spec.policies.flatMap((p) => new Array<ClientKind>(spec.clientsPerPolicy ?? DEFAULT_CLIENTS_PER_POLICY).fill(p))
      : new Array<ClientKind>(spec.uniformClients ?? DEFAULT_UNIFORM_CLIENTS).fill(spec.policies[0]);
  if (spec.xds) {
    kinds.push('peak_ewma_xds');
  }
  return kinds;
}

function loadAverage1m(): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return Math.round((require('os') as typeof import('os')).loadavg()[0] * 100) / 100;
}

export async function runLoadTest(spec: LoadTestSpec): Promise<ScenarioResult> {
  prebuildForChildren();
  const loadBefore = loadAverage1m();
  const { timeline, scale } = spec;
  const scenario = spec.scale.backends === undefined ? spec.scenario : { ...spec.scenario, backends: spec.scale.backends };
  const secondMs = 1000 * scale.timeFactor;
  const errors: unknown[] = [];
  const control = new RemoteScenarioControl(timeline, scenario.backends, (error) => errors.push(error));
  scenario.setup(control);
  const methods = scaleMethods(scenario.methods, scale);
  const methodNames = methodGroups(methods);
  const behaviours: Behaviour[] = fleetRoles(scenario.fleet, scenario.backends).map((role, i) =>
    scaleBehaviour({ ...behaviourOf(role), ...control.standing.get(i) }, scale),
  );
  const kinds = clientKinds(spec);
  // Capacity of the starting fleet (churn keeps the count about level).
  const load = offeredLoad(behaviours, methods, kinds.length, scale);
  const fleet = await Fleet.start(
    behaviours.map((behaviour, i) => backendSpec(spec, i, behaviour)),
    {
      hosts: spec.backendHosts,
      // Always on, so every run (and every uniform policy) pays the same backend features.
      orca: true,
      maxConnectionAgeMs: control.maxConnectionAgeMs === undefined ? undefined : control.maxConnectionAgeMs * scale.timeFactor,
      methodNames,
    },
  );
  const processes: ClientProcess[] = [];
  const timers: NodeJS.Timeout[] = [];
  let xds: XdsSetup | null = null;
  const addressIndex = (): Record<string, number> =>
    Object.fromEntries(Array.from(fleet.addresses, ([id, address]) => [address, Number(id.slice(1))]));
  try {
    if (spec.xds) {
      xds = await startXdsControlPlane(Array.from(fleet.addresses.values()));
    }
    await Promise.all(
      kinds.map(async (kind, i) => {
        const child = forkChild('client-host.ts');
        processes.push({ id: kind, child, latest: null });
        const prepare: ClientPrepare = {
          type: 'prepare',
          policy: basePolicyOf(kind),
          addresses: Array.from(fleet.addresses.values()),
          dynamicAddresses: true,
          addressIndex: addressIndex(),
          backendCount: scenario.backends,
          seed: spec.seed * 100 + i,
          timeFactor: scale.timeFactor,
          markMethods: methodNames.length > 0,
          ...(spec.peakEwmaConfig ? { peakEwmaConfig: spec.peakEwmaConfig } : {}),
          ...(spec.retryAttempts ? { retryAttempts: spec.retryAttempts } : {}),
          ...(kind === 'peak_ewma_xds' && xds ? { xdsTarget: xds.target, xdsBootstrap: xds.bootstrap } : {}),
        };
        const ready = nextMessage(child, isType<Extract<FromClientHost, { type: 'ready' }>>('ready'));
        child.send(prepare satisfies ToClientHost);
        await ready;
      }),
    );
    control.start(fleetActions({ ...spec, scenario }, fleet, processes, addressIndex, timers));
    const zeroAtEpochMs = Date.now() + 1000 + timeline.warmupMs * scale.timeFactor;
    // Reset the hosts' loop-delay monitors at t = 0, read them at the end.
    timers.push(setTimeout(() => void fleet.stats().catch(() => {}), zeroAtEpochMs - Date.now()));
    const results = processes.map((p) => {
      p.child.on('message', (message: FromClientHost) => {
        if (message.type === 'progress') {
          p.latest = message;
        }
      });
      return nextMessage(p.child, isType<Result>('result'), (timeline.warmupMs + timeline.measureS * 1000) * scale.timeFactor + 120_000);
    });
    processes.forEach((p, i) =>
      p.child.send({
        type: 'run',
        zeroAtEpochMs,
        warmupS: timeline.warmupMs / 1000,
        measureS: timeline.measureS,
        timeFactor: scale.timeFactor,
        rateRps: load.perClientRps,
        methods,
        phases: phasesOf(phaseTimeline(scenario, timeline)),
        phaseOffset: i / processes.length,
        deadlineMs: Math.max(...methods.map((m) => m.deadlineMs)),
      } satisfies ToClientHost),
    );
    for (const event of control.events) {
      timers.push(
        setTimeout(() => {
          try {
            event.action();
          } catch (error) {
            errors.push(error);
          }
        }, zeroAtEpochMs + event.atS * secondMs - Date.now()),
      );
    }
    const progressTimer = setInterval(() => spec.progress?.update(progressText(spec, processes, zeroAtEpochMs)), 1000);
    let finished: Result[];
    try {
      finished = await Promise.all(results);
      await control.settled();
    } finally {
      clearInterval(progressTimer);
      spec.progress?.done();
    }
    errors.push(...fleet.hostFailures());
    if (errors.length > 0) {
      throw new Error(`${scenario.name}: scenario actions failed: ${errors.map(String).join('; ')}`);
    }
    const { loopDelayMs } = await fleet.stats();
    return analyse(
      { ...spec, scenario },
      load,
      [loadBefore, loadAverage1m()],
      loopDelayMs,
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
    await Promise.all(processes.map((p) => exited(p.child)));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill(), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
  });
}

/** Backend `id` with its seed, and its GC phase drawn at the run's scale (`gcPhaseMsAt`). */
function backendSpec(spec: LoadTestSpec, id: number, behaviour: Behaviour): BackendSpec {
  const seed = spec.seed * 1000 + id;
  return { id: backendName(id), behaviour, seed, gcPhaseMs: gcPhaseMsAt(spec.scale, seed) };
}

/** What the scenario's control does to this run's processes. */
function fleetActions(
  spec: LoadTestSpec,
  fleet: Fleet,
  processes: readonly ClientProcess[],
  addressIndex: () => Record<string, number>,
  timers: NodeJS.Timeout[],
) {
  let published = new Set(Array.from({ length: spec.scenario.backends }, (_, i) => i));
  return {
    setBehaviour: (id: number, patch: Partial<Behaviour>) => fleet.set([backendName(id)], scaleBehaviour(patch, spec.scale)),
    addBackend: (id: number, role: Role) =>
      fleet.add([backendSpec(spec, id, scaleBehaviour(behaviourOf(role), spec.scale))]),
    publish: async (ids: readonly number[]) => {
      const next = new Set(ids);
      const leaving = Array.from(published).filter((id) => !next.has(id));
      published = next;
      // Every backend named must be listening: one left out in silence would measure another fleet (as s18's lost patch did).
      const unknown = ids.filter((id) => !fleet.addresses.has(backendName(id)));
      if (unknown.length > 0) throw new Error(`publish: no backend ${unknown.map(backendName).join(', ')} listening`);
      const addresses = ids.map((id) => fleet.addresses.get(backendName(id))!);
      for (const p of processes) {
        p.child.send({ type: 'addresses', addresses, addressIndex: addressIndex() } satisfies ToClientHost);
      }
      // Out of the list now; SIGTERM 1 s later: GOAWAY, then up to 5 s for calls in flight (the reference's, × the time factor).
      if (leaving.length > 0) {
        const f = spec.scale.timeFactor;
        timers.push(setTimeout(() => fleet.retire(leaving.map(backendName), 5000 * f), 1000 * f));
      }
    },
    restartClients: () => {
      for (const p of processes) {
        p.child.send({ type: 'restart' } satisfies ToClientHost);
      }
    },
    // The simulator's restart is graceful: the old process's calls in flight finish (5 s, the reference's SIGTERM grace, × F).
    restartInPlace: (id: number, downMs: number) => {
      const f = spec.scale.timeFactor;
      fleet.restartInPlace(backendName(id), downMs * f, 5000 * f);
    },
  };
}

function shortName(kind: ClientKind): string {
  return kind === 'peak_ewma_xds' ? 'pe/xds' : clientLabel(kind);
}

function progressText(spec: LoadTestSpec, processes: readonly ClientProcess[], zeroAtEpochMs: number): string {
  const t = Math.floor((Date.now() - zeroAtEpochMs) / (1000 * spec.scale.timeFactor));
  const timeline = phaseTimeline(spec.scenario, spec.timeline);
  const faulted = spec.scenario.faultWindow && t >= timeline.faultStartS && t < timeline.faultEndS;
  const phase = t < 0 ? 'warm-up' : faulted ? 'FAULT' : 'run';
  const byKind = new Map<ClientKind, { ok: number; failed: number; p99: number[] }>();
  for (const p of processes) {
    const entry = byKind.get(p.id) ?? { ok: 0, failed: 0, p99: [] };
    if (p.latest) {
      entry.ok += p.latest.ok;
      entry.failed += p.latest.failed;
      if (Number.isFinite(p.latest.okP99Ms)) entry.p99.push(p.latest.okP99Ms);
    }
    byKind.set(p.id, entry);
  }
  const parts = Array.from(byKind, ([kind, e]) => {
    const p99 = e.p99.length > 0 ? Math.max(...e.p99) : NaN;
    const errors = e.ok + e.failed > 0 ? e.failed / (e.ok + e.failed) : NaN;
    return `${shortName(kind)} ${formatMs(p99)} ${formatPercent(errors, 1)}`;
  });
  const clock = t < 0 ? `${t}s` : `${t}/${timeline.measureS}s`;
  return `${shortId(spec.scenario)} ${spec.layout} ${clock} ${phase} | p99 (so far), errors: ${parts.join(' | ')}`;
}

function analyse(
  spec: LoadTestSpec,
  load: OfferedLoad,
  loadAverage: [number, number],
  backendLoopDelayMs: { p99: number; max: number },
  finished: readonly ({ id: ClientKind } & Result)[],
): ScenarioResult {
  const { scenario } = spec;
  // The phases as measured (s08's fault phase ends at its scale-down): the report's titles and windows read them.
  const timeline = phaseTimeline(scenario, spec.timeline);
  const faulty = scenario.faulty;
  const fairShare = faulty.length / scenario.backends;
  const kinds = Array.from(new Set(finished.map((f) => f.id)));
  const policies = kinds.map((kind): PolicyResult => {
    const mine = finished.filter((f) => f.id === kind);
    const runs: RecordedRun[] = mine.map((f) => f.run);
    const { window, phases, methods } = combineRuns(runs);
    const shares = sharePerSecond(runs);
    const joined = Array.from({ length: Math.max(0, (shares[0]?.length ?? 0) - scenario.backends) }, (_, i) => scenario.backends + i);
    const { detectS, recoverS } =
      faulty.length > 0 ? detectAndRecover(shares, faulty, fairShare, timeline) : { detectS: null, recoverS: null };
    return {
      policy: kind,
      clients: mine.length,
      window,
      phases,
      ...(Object.keys(methods).length > 0 ? { methods } : {}),
      headline: scenario.faultWindow ? phases.fault : window,
      faultyShare: faulty.length > 0 ? groupShare(shares, faulty) : [],
      ...(joined.length > 0 ? { joinedShare: groupShare(shares, joined) } : {}),
      detectS,
      recoverS,
      cpuMicrosPerCall: window.calls > 0 ? mine.reduce((s, f) => s + f.cpuMicros, 0) / window.calls : NaN,
      failuresByCode: mine.reduce<Record<string, number>>((acc, f) => {
        for (const [code, n] of Object.entries(f.run.failuresByCode)) acc[code] = (acc[code] ?? 0) + n;
        return acc;
      }, {}),
      evidence: mine.flatMap((f) => f.evidence.balancers),
      clientLoopDelayMs: {
        p99: Math.max(...mine.map((f) => f.loopDelayMs.p99)),
        max: Math.max(...mine.map((f) => f.loopDelayMs.max)),
      },
    };
  });
  for (const result of policies) {
    checkEvidence(result);
  }
  return {
    scenario: shortId(scenario),
    title: scenario.summary,
    layout: spec.layout,
    timeline,
    scale: spec.scale,
    regime: regimeOf(spec.scale, scenario.backends, load.perClientRps, Math.max(...policies.map((p) => p.clients))),
    load,
    backendCount: scenario.backends,
    faultyBackends: faulty,
    ...(methodGroups(scenario.methods).length > 0 ? { methods: scaleMethods(scenario.methods, spec.scale) } : {}),
    faultWindow: scenario.faultWindow,
    policies,
    startedAt: new Date().toISOString(),
    loadAverage,
    backendLoopDelayMs,
    ...(spec.peakEwmaConfig ? { peakEwmaConfig: spec.peakEwmaConfig } : {}),
    ...(spec.retryAttempts ? { retryAttempts: spec.retryAttempts } : {}),
  };
}

const OUR_POLICY_NAME: Partial<Record<ClientKind, string>> = {
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
  // Balancers replaced during the run (s11) take their counts with them: ask for a share, not all.
  if (accounted < result.window.calls * 0.3) {
    throw new Error(
      `${result.policy}: ${expected} accounted ${accounted} of ${result.window.calls} calls; the policy did not run ` +
        `(grpc-js may have fallen back to pick_first)`,
    );
  }
}
