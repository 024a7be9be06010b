/**
 * The scenarios: the reference's Tier 2 suite (s01–s13, reference-load-test.md
 * §5) and this project's own (herd, fast-fail). Times are seconds of the
 * measured window (t = 0 after the 20 s warm-up); faults run over [20, 60).
 */
import { Behaviour, DEFAULT_BEHAVIOUR } from '../model/behaviour';
import { FIVE_METHODS, MethodSpec, parseMethodMix, SINGLE_METHOD } from '../model/methods';
import { FleetKind, halfSlots, Role, ROLE_OVERRIDES } from '../model/roles';
import { BackendModel } from '../model/backend';
import { Timeline } from './timeline';

/** What a scenario may do to a running world. */
export interface ScenarioControl {
  /** The measured window's length, in seconds (90 at reference scale). */
  readonly measureS: number;
  /** The fault phase, in seconds of the measured window ([20, 60) at reference scale). */
  readonly faultStartS: number;
  readonly faultEndS: number;
  /**
   * Calls the default backend serves at once in this run (the simulator's
   * --slots); absent: DEFAULT_BEHAVIOUR's 8.
   */
  readonly slots?: number;
  /** Runs `action` at second `s` of the measured window. */
  atSecond(s: number, action: () => void): void;
  backend(id: number): BackendModel;
  /** Starts a new backend (not yet published); returns its id. */
  addBackend(role: Role): number;
  published(): readonly number[];
  /** Rewrites the address file; clients see it at their next poll (≤ 500 ms). */
  publish(ids: readonly number[]): void;
  /** Every client replaces its channel: fresh balancer state, warm fleet. */
  restartClients(): void;
  /** Records a cold backend published now, for the herd measures. */
  markFresh(id: number): void;
  /** Servers close each connection after maxAgeMs (±10 % jitter); clients reconnect in reconnectMs. */
  maxConnectionAge(maxAgeMs: number, reconnectMs: number): void;
  /**
   * Backend `id`'s process restarts in place, keeping its address: it is
   * down for `downMs` (calls in flight finish: a graceful stop), and comes
   * back a new process, cold (BackendModel.restart). A client finds it
   * READY again at its next reconnect try (gRPC's back-off: reconnect.ts),
   * a 3 s restart after about 5.2 s.
   */
  restartInPlace(id: number, downMs: number): void;
}

export interface Scenario {
  readonly name: string;
  readonly summary: string;
  readonly fleet: FleetKind;
  readonly backends: number;
  readonly methods: readonly MethodSpec[];
  /** Backends whose share defines detection and recovery. */
  readonly faulty: readonly number[];
  /** Report the fault phase (20–60 s) rather than the whole window. */
  readonly faultWindow: boolean;
  /**
   * The reported fault phase ends this many seconds before the timeline's
   * (absent: 0): s08's, whose scale-down comes 5 s before the phase ends,
   * and which the harness reports as (20, 55] (run.py: s08's fault is
   * (20, 55)), its retirements counting in the phase after.
   */
  readonly faultPhaseEndsEarlyS?: number;
  /** Clients in a uniform run (the reference layout always has 4 policies × 2). */
  readonly uniformClients: number;
  /** Policies of the uniform layout (default: every comparable one). */
  readonly uniformPolicies?: readonly string[];
  /** Whether the reference layout applies (false for this project's own scenarios). */
  readonly referenceLayout: boolean;
  setup(control: ScenarioControl): void;
}

const base = {
  backends: 20,
  methods: SINGLE_METHOD,
  faulty: [] as number[],
  faultWindow: false,
  uniformClients: 8,
  referenceLayout: true,
  setup: (): void => {},
};

/** Sets `patch` on `ids` for the fault window, then `heal`. */
function fault(ids: readonly number[], patch: Partial<Behaviour>, heal: Partial<Behaviour>) {
  return (control: ScenarioControl): void => {
    control.atSecond(control.faultStartS, () => ids.forEach((id) => control.backend(id).setBehaviour(patch)));
    control.atSecond(control.faultEndS, () => ids.forEach((id) => control.backend(id).setBehaviour(heal)));
  };
}

/** The reference's fault scenarios hit pod 0 (pods 0–3 for s10). */
const POD0 = [0];

/**
 * The herd: 16 clients of one policy; a cold pod joins at 20 s and pod 1
 * restarts cold (new address) at 50 s.
 */
const HERD = {
  ...base,
  fleet: 'homo' as FleetKind,
  uniformClients: 16,
  referenceLayout: false,
  uniformPolicies: ['least_connection', 'least_request', 'peak_ewma', 'round_robin'],
  setup: (control: ScenarioControl): void => {
    control.atSecond(control.faultStartS, () => {
      const fresh = control.addBackend('normal');
      control.publish([...control.published(), fresh]);
      control.markFresh(fresh);
    });
    // 50 s at reference scale.
    control.atSecond(control.faultEndS - 10, () => {
      const fresh = control.addBackend('normal');
      control.publish([...control.published().filter((id) => id !== 1), fresh]);
      control.markFresh(fresh);
    });
  },
};

/**
 * 5 new pods join at the fault phase's start, each with `patch` on top of
 * 'normal', and the first 5 originals are retired 5 s before its end (s08, s18).
 */
/** s08's scale-down: this many seconds before the fault phase ends (55 s at reference scale). */
const SCALE_DOWN_BEFORE_FAULT_END_S = 5;

/** The timeline as a scenario's phases are reported: the fault phase shortened by `faultPhaseEndsEarlyS`. */
export function phaseTimeline(scenario: Pick<Scenario, 'faultPhaseEndsEarlyS'>, timeline: Timeline): Timeline {
  const earlyS = scenario.faultPhaseEndsEarlyS ?? 0;
  return earlyS === 0 ? timeline : { ...timeline, faultEndS: timeline.faultEndS - earlyS };
}

function scaleUpDown(patch: Partial<Behaviour>) {
  return (control: ScenarioControl): void => {
    control.atSecond(control.faultStartS, () => {
      const fresh = [0, 1, 2, 3, 4].map(() => control.addBackend('normal'));
      fresh.forEach((id) => control.backend(id).setBehaviour(patch));
      control.publish([...control.published(), ...fresh]);
      fresh.forEach((id) => control.markFresh(id));
    });
    control.atSecond(control.faultEndS - SCALE_DOWN_BEFORE_FAULT_END_S, () => control.publish(control.published().filter((id) => id >= 5)));
  };
}

/** Runs `action(round)` at the fault phase's start and every 2 s after, while the phase lasts (s07, s17, s19). */
function everyTwoSecondsOfTheFault(control: ScenarioControl, action: (round: number) => void): void {
  for (let round = 0; round < (control.faultEndS - control.faultStartS) / 2; round++) {
    control.atSecond(control.faultStartS + 2 * round, () => action(round));
  }
}

/** Every 2 s over the fault phase a new pod of `role` replaces the oldest (s07, s17). */
function rollingRestart(role: Role) {
  return (control: ScenarioControl): void =>
    everyTwoSecondsOfTheFault(control, () => {
      const fresh = control.addBackend(role);
      // Retire the oldest: it leaves the address file now; SIGTERM's GOAWAY
      // 1 s later finds no client still using it, and its queue drains.
      const [, ...rest] = control.published();
      control.publish([...rest, fresh]);
      control.markFresh(fresh);
    });
}

/**
 * Every 2 s over the fault phase the next pod in the list restarts in place
 * (s19): down for `downMs`, then back on its address as a new process that
 * warms up with work (role `warming`), found by each client at its next
 * reconnect try.
 */
function restartsInPlace(downMs: number) {
  return (control: ScenarioControl): void =>
    everyTwoSecondsOfTheFault(control, (round) => {
      const ids = control.published();
      const id = ids[round % ids.length];
      control.backend(id).setBehaviour(ROLE_OVERRIDES.warming);
      control.restartInPlace(id, downMs);
    });
}

/**
 * A service five times faster than the engine's defaultRtt (10 ms): a new
 * endpoint priced at defaultRtt lost every comparison with its peers and
 * got no calls (issue 14).
 */
const FAST_METHOD: readonly MethodSpec[] = parseMethodMix('U2_get');

export const SCENARIOS: readonly Scenario[] = [
  { ...base, name: 's01-steady-uneven', summary: 'het fleet (3 noisy, gc, flaky, throttled), steady', fleet: 'het' },
  { ...base, name: 's02-steady-identical', summary: '20 identical pods', fleet: 'homo' },
  {
    ...base,
    name: 's03-brownout',
    summary: 'pod 0 5x slower for 40 s',
    fleet: 'homo',
    faulty: POD0,
    faultWindow: true,
    setup: fault(POD0, { latencyFactor: 5 }, { latencyFactor: 1 }),
  },
  {
    ...base,
    name: 's04-crashloop',
    summary: 'pod 0 fails every call with UNAVAILABLE for 40 s',
    fleet: 'homo',
    faulty: POD0,
    faultWindow: true,
    setup: fault(POD0, { mode: 'unavailable' }, { mode: 'normal' }),
  },
  {
    ...base,
    name: 's05-blackhole',
    summary: 'pod 0 accepts calls and never answers for 40 s',
    fleet: 'homo',
    faulty: POD0,
    faultWindow: true,
    setup: fault(POD0, { mode: 'blackhole' }, { mode: 'normal' }),
  },
  {
    ...base,
    name: 's06-gc-pause',
    summary: 'pod 0 pauses 500 ms every 10 s for 40 s',
    fleet: 'homo',
    faulty: POD0,
    faultWindow: true,
    setup: fault(POD0, { gcPeriodMs: 10_000, gcPauseMs: 500 }, { gcPeriodMs: 0, gcPauseMs: 0 }),
  },
  {
    ...base,
    name: 's07-rolling-restart',
    summary: 'every 2 s over 20–60 s a cold pod replaces an old one',
    fleet: 'homo',
    faultWindow: true,
    setup: rollingRestart('normal'),
  },
  {
    ...base,
    name: 's08-scale-up-down',
    summary: '+5 cold pods at 20 s, the first 5 originals retired at 55 s',
    fleet: 'homo',
    faultWindow: true,
    faultPhaseEndsEarlyS: SCALE_DOWN_BEFORE_FAULT_END_S,
    setup: scaleUpDown({}),
  },
  {
    ...base,
    name: 's09-max-connection-age',
    summary: 'servers close connections after 10 s; clients reconnect (endpoint briefly not READY)',
    fleet: 'homo',
    setup: (control) => control.maxConnectionAge(10_000, 2),
  },
  {
    ...base,
    name: 's10-node-cpu-contention',
    summary: 'pods 0–3 2x slower with half the slots (4 of 8) for 40 s',
    fleet: 'homo',
    faulty: [0, 1, 2, 3],
    faultWindow: true,
    setup: (control) => {
      const slots = control.slots ?? DEFAULT_BEHAVIOUR.slots;
      fault([0, 1, 2, 3], { latencyFactor: 2, slots: halfSlots(slots) }, { latencyFactor: 1, slots })(control);
    },
  },
  {
    ...base,
    name: 's11-client-restart',
    summary: 'het fleet; every client replaces its channel at 30 s (cold balancer, warm fleet)',
    fleet: 'het',
    // The harness restarts at 30 s of its 90 s measured window (run.py restart_at 30, which LoadGen.java
    // counts from the measurement's start): a third of the window, whatever its scale.
    setup: (control) => control.atSecond(Math.round(control.measureS / 3), () => control.restartClients()),
  },
  {
    ...base,
    name: 's12-cross-zone',
    summary: 'pods 0–5 answer 2 ms later (cross-zone RTT)',
    fleet: 'homo',
    setup: (control) => {
      for (let id = 0; id < 6; id++) {
        control.backend(id).setBehaviour({ extraDelayMs: 2 });
      }
    },
  },
  {
    ...base,
    name: 's13-five-methods',
    summary: 'het fleet; 5 methods from 1 ms to 1 s (mean 49.4 ms)',
    fleet: 'het',
    methods: FIVE_METHODS,
  },
  {
    ...base,
    // Not the reference's: how a many-method service recovers from a
    // brownout, which s13 (steady) cannot show (docs/tuning-log.md §17).
    name: 's14-brownout-five-methods',
    summary: "pod 0 5x slower for 40 s; s13's five methods",
    fleet: 'homo',
    faulty: POD0,
    faultWindow: true,
    methods: FIVE_METHODS,
    setup: fault(POD0, { latencyFactor: 5 }, { latencyFactor: 1 }),
  },
  {
    ...base,
    // Not the reference's: a service behind one name served by two kinds of
    // server (a migration, a mixed-language fleet), as fast per call, one
    // handling a call at a time.
    name: 's15-mixed-concurrency',
    summary: 'the first half of the pods serve one call at a time, the rest the default slots; steady',
    fleet: 'mixed',
  },
  {
    ...base,
    // Not the reference's: s15 with one-slot pods that shed load rather than
    // queue (grpcio's maximum_concurrent_rpcs=1 on one worker): a call that
    // finds the slot busy is refused at once with RESOURCE_EXHAUSTED.
    name: 's16-mixed-shedding',
    summary: 'as s15, but the one-slot pods refuse (RESOURCE_EXHAUSTED) a call that finds their slot busy; steady',
    fleet: 'mixed-shedding',
  },
  {
    ...base,
    // Not the reference's: s07 with pods that warm up with work (a JVM's JIT,
    // cold caches), which a policy that avoids slow pods could keep cold.
    name: 's17-rolling-warmup',
    summary: 'as s07, but each new pod warms up with work: first call 5x slower, the extra falling by 1/e every 300 calls it serves',
    fleet: 'homo',
    faultWindow: true,
    setup: rollingRestart('warming'),
  },
  {
    ...base,
    // Not the reference's: what slow start (src/core/slow-start.ts) must not
    // do, give a newcomer that is slow for good (a bad node, a regressed
    // release) the share it gives a pod warming up.
    name: 's18-slow-scale-out',
    summary: 'as s08, but the 5 new pods are 10x slower and stay so',
    fleet: 'homo',
    faultWindow: true,
    setup: scaleUpDown({ latencyFactor: 10 }),
  },
  {
    ...base,
    // Not the reference's: s17's pods that warm up, restarted in place (a
    // container's process killed and started again: an OOM kill, a crash),
    // so each comes back on the address the clients knew. Uniform layout
    // only (the reference's layout has no such scenario); the load test
    // stops a real server and starts it again on its port.
    name: 's19-restart-in-place',
    summary: 'every 2 s one pod restarts in place: down 3 s (clients find it back ~5 s after: reconnect back-off), back on its address cold (as s17)',
    fleet: 'homo',
    faultWindow: true,
    referenceLayout: false,
    setup: restartsInPlace(3_000),
  },
  { ...HERD, name: 'herd', summary: '16 independent clients; a cold pod joins at 20 s, pod 1 restarts cold at 50 s' },
  {
    ...HERD,
    name: 'herd-fast',
    summary: 'herd with a 2 ms service and 256 light clients (~209 calls/s each): cold pods must still get their share',
    methods: FAST_METHOD,
    // Light clients: under one call in flight each, so a peer's cost is its
    // bare estimate (~2 ms) and never exceeds a 10 ms prior by chance.
    uniformClients: 256,
  },
  {
    ...base,
    name: 'fast-fail',
    summary: 'pod 0 answers UNAVAILABLE instantly for 40 s: error penalty and ejection',
    fleet: 'homo',
    faulty: POD0,
    faultWindow: true,
    referenceLayout: false,
    uniformPolicies: [
      'no-penalty=peak_ewma{"errorPenaltyFactor":1}',
      'peak_ewma',
      'peak_ewma_od',
      'no-penalty-od=peak_ewma_od{"errorPenaltyFactor":1}',
      'lr_od',
    ],
    setup: fault(POD0, { mode: 'unavailable' }, { mode: 'normal' }),
  },
];

export function scenarioByName(name: string): Scenario {
  const found = SCENARIOS.find((scenario) => scenario.name === name || scenario.name.startsWith(`${name}-`));
  if (!found) {
    throw new RangeError(`unknown scenario "${name}"; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  return found;
}
