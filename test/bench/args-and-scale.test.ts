import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from '../../scripts/bench/args';
import {
  DEFAULT_SCALE,
  DEFAULT_UNIFORM_CLIENTS,
  isLowConcurrency,
  LOW_CONCURRENCY_SCALES,
  offeredLoad,
  regimeLabel,
  regimeOf,
  regimeShort,
  scaleBehaviour,
  scaleMethods,
  gcPhaseMsAt,
  gcPhaseRangeMsAt,
  MACHINE_BUDGET_RPS,
  overMachineBudget,
} from '../../scripts/bench/scale';
import { behaviourAtSlots, behaviourOf, fleetRoles, halfSlots, SINGLE_METHOD } from '../../scripts/model';
import {
  SCENARIOS,
  scenarioById,
  shortId,
  simulatorKnows,
  timelineFor,
  TWO_METHODS,
} from '../../scripts/bench/scenarios';
import { POLICY_IDS } from '../../scripts/bench/policies';
import { planLoadRuns, planWallTimeS } from '../../scripts/bench/plan';

describe('bench CLI arguments', () => {
  it('defaults to the quick load suite in the reference layout', () => {
    const options = parseArgs([]);
    expect(options.suites).toEqual(['load']);
    expect(options.scenarios).toEqual(['s01', 's02', 's03', 's10']);
    expect(options.policies).toEqual([...POLICY_IDS]);
    expect(options.layouts).toEqual(['reference']);
    expect(options.durationS).toBe(45);
    expect(options.repeats).toBe(5);
    // 8 slots as the reference, time × 16, 70 % of the fleet's capacity.
    expect(options.scale).toEqual({ slots: 8, timeFactor: 16, load: 0.7 });
    expect(options.clientsPerPolicy).toBe(2);
    expect(options.uniformClients).toBe(8);
    expect(options.report).toBe(false);
  });

  it('--full runs everything at the reference timeline', () => {
    const options = parseArgs(['--full']);
    expect(options.suites).toEqual(['load', 'pick', 'cpu', 'update']);
    expect(options.scenarios).toEqual(SCENARIOS.map(shortId));
    expect(options.scenarios).toEqual(['s01', 's02', 's03', 's04', 's05', 's06', 's07', 's08', 's09', 's10', 's11', 's12', 's13', 's14', 's15', 's16', 's17', 's18']);
    expect(options.layouts).toEqual(['reference', 'uniform']);
    expect(options.durationS).toBe(90);
    expect(options.warmupS).toBe(20);
    expect(options.repeats).toBe(5);
    expect(options.xds).toBe(true);
  });

  it('parses lists, inline values and the scale', () => {
    const options = parseArgs([
      '--scenario=s03,s10-node-cpu-contention',
      '--policy',
      'round_robin,peak_ewma',
      '--duration',
      '30',
      '--slots',
      '2',
      '--time-factor',
      '4',
      '--backends',
      '6',
      '--suite',
      'overhead',
      '--json',
      'out.json',
    ]);
    expect(options.scenarios).toEqual(['s03', 's10']);
    expect(options.policies).toEqual(['round_robin', 'peak_ewma']);
    expect(options.durationS).toBe(30);
    expect(options.scale).toEqual({ ...DEFAULT_SCALE, slots: 2, timeFactor: 4, backends: 6 });
    expect(options.suites).toEqual(['pick', 'cpu', 'update']);
    expect(options.jsonPath).toBe('out.json');
  });

  it("splits --flag=value at the first '=' only: a value may hold one", () => {
    expect(parseArgs(['--json=/tmp/a=b.json']).jsonPath).toBe('/tmp/a=b.json');
  });

  it('runs s19 (restarts in place) in the uniform layout', () => {
    const options = parseArgs(['--scenario', 's19', '--layout', 'uniform']);
    expect(options.uniformScenarios).toEqual(['s19']);
    expect(options.layouts).toEqual(['uniform']);
  });

  it('rejects mistakes with a message naming the option', () => {
    expect(() => parseArgs(['--scenario', 's99'])).toThrow(/unknown scenario "s99"/);
    expect(() => parseArgs(['--scenario', 'herd'])).toThrow(/simulator-only/);
    expect(() => parseArgs(['--scenario', 'fast-fail'])).toThrow(/simulator-only/);
    expect(() => parseArgs(['--scenario', 's19'])).toThrow(/--scenario s19: runs in the uniform layout only; add --layout uniform/);
    expect(() => parseArgs(['--policy', 'pick_first'])).toThrow(/unknown policy "pick_first"/);
    expect(() => parseArgs(['--duration', '-3'])).toThrow(/--duration must be a number > 0/);
    expect(() => parseArgs(['--repeats', '1.5'])).toThrow(/--repeats must be a whole number/);
    expect(() => parseArgs(['--scale', '4x3'])).toThrow(/unknown option --scale/);
    expect(() => parseArgs(['--slots', '0'])).toThrow(/--slots must be a whole number > 0/);
    expect(() => parseArgs(['--quick', '--full'])).toThrow(/exclude each other/);
    expect(() => parseArgs(['--layout', 'sideways'])).toThrow(/--layout must be/);
    expect(() => parseArgs(['--layout', 'none'])).toThrow(/runs nothing without --low-concurrency/);
    expect(() => parseArgs(['--frobnicate', '1'])).toThrow(/unknown option --frobnicate/);
    expect(() => parseArgs(['--json'])).toThrow(/--json needs a value/);
  });
});

describe('scale', () => {
  it('keeps 8 slots and multiplies every time by the factor: service, GC, extra delay, deadline', () => {
    const scale = { slots: 8, timeFactor: 6, load: 0.7 };
    expect(scaleBehaviour(behaviourOf('throttled'), scale)).toMatchObject({ slots: 4, latencyFactor: 9, sigma: 0.3 });
    expect(scaleBehaviour({ latencyFactor: 5 }, scale)).toEqual({ latencyFactor: 30 });
    expect(scaleBehaviour({ mode: 'blackhole' as const }, scale)).toEqual({ mode: 'blackhole' });
    expect(scaleBehaviour({ gcPeriodMs: 10_000, gcPauseMs: 500 }, scale)).toEqual({ gcPeriodMs: 60_000, gcPauseMs: 3000 });
    expect(scaleMethods(SINGLE_METHOD, scale)[0].deadlineMs).toBe(3000);
  });

  it('gives every role and s10\'s patch the simulator\'s slots at any slot count, odd ones too (halves round down)', () => {
    for (let slots = 1; slots <= 16; slots++) {
      const scale = { slots, timeFactor: 1, load: 0.7 };
      for (const role of ['normal', 'throttled', 'single', 'noisy'] as const) {
        expect([slots, role, scaleBehaviour(behaviourOf(role), scale).slots]).toEqual([slots, role, behaviourAtSlots(role, slots).slots]);
      }
      // s10 sets half the reference's slots on four pods, and the simulator halfSlots of the run's.
      expect([slots, scaleBehaviour({ slots: 4 }, scale).slots]).toEqual([slots, halfSlots(slots)]);
    }
  });

  it('stretches the GC phase\'s range as it stretches the period, so a pause can fall anywhere in a window', () => {
    const scale = { slots: 8, timeFactor: 16, load: 0.7 };
    expect(gcPhaseRangeMsAt(scale)).toBe(scaleBehaviour({ gcPeriodMs: 10_000 }, scale).gcPeriodMs);
    const phases = Array.from({ length: 200 }, (_, seed) => gcPhaseMsAt(scale, seed));
    // Before, every phase was under 10 s of a 160 s period: the pauses came at the same point of every repeat.
    expect(phases.filter((ms) => ms >= 10_000).length).toBeGreaterThan(150);
    expect(Math.max(...phases)).toBeLessThan(160_000);
  });

  it('keeps a one-slot server at one slot at any scale, as the simulator does (s15)', () => {
    for (const slots of [1, 2, 8, 16, 32]) {
      expect([slots, scaleBehaviour(behaviourOf('single'), { slots, timeFactor: 1, load: 0.7 }).slots]).toEqual([slots, 1]);
    }
    expect(scaleBehaviour(behaviourOf('throttled'), { slots: 16, timeFactor: 1, load: 0.7 }).slots).toBe(8);
  });

  it('at fewer slots keeps each role\'s ratio to a normal backend, at least 1', () => {
    const two = { slots: 2, timeFactor: 1, load: 0.7 };
    expect(scaleBehaviour(behaviourOf('normal'), two).slots).toBe(2);
    expect(scaleBehaviour(behaviourOf('throttled'), two).slots).toBe(1);
    expect(scaleBehaviour(behaviourOf('throttled'), { ...two, slots: 1 }).slots).toBe(1);
    // s10's fault sets 4 slots on an 8-slot fleet: half, whatever the fleet's slots.
    expect(scaleBehaviour({ slots: 4 }, { ...two, slots: 8 }).slots).toBe(4);
    expect(scaleBehaviour({ slots: 0 }, two).slots).toBe(0);
  });

  it('names the regime: slots, median, time factor, fleet, clients and their rate', () => {
    const regime = regimeOf(DEFAULT_SCALE, 20, 28, 2);
    expect(regimeLabel(regime)).toBe('8 slots, 160 ms median (time × 16), 20 backends, 2 clients per policy at 28 calls/s');
    // The low-concurrency regimes at time × 2 (scale.ts: 10 ms was more than this machine served).
    expect(regimeShort(regimeOf(LOW_CONCURRENCY_SCALES[0], 6, 25, 8))).toBe('1 slot × 20 ms');
    expect(regimeLabel(regimeOf(LOW_CONCURRENCY_SCALES[1], 3, 25, 8))).toBe('2 slots, 20 ms median (time × 2), 3 backends, 8 clients per policy at 25 calls/s');
    // Older result files: a slot divisor, timeline unscaled.
    const legacy = regimeOf({ slotDivisor: 4, timeFactor: 12, load: 0.7 }, 20, 37, 1);
    expect(regimeLabel(legacy)).toBe('2 slots, 120 ms median (service × 12, timeline unscaled), 20 backends, 1 client per policy at 37 calls/s');
  });

  it('keeps 70 % utilisation: the reference scale reproduces its published rates', () => {
    const reference = { slots: 8, timeFactor: 1, load: 0.7 };
    const homo = fleetRoles('homo', 20).map((r) => scaleBehaviour(behaviourOf(r), reference));
    const het = fleetRoles('het', 20).map((r) => scaleBehaviour(behaviourOf(r), reference));
    // reference-load-test.md §4: 1,338 (homo) and 1,169 (het) calls/s per client over 8 clients.
    expect(offeredLoad(homo, SINGLE_METHOD, 8, reference).perClientRps).toBe(1338);
    expect(offeredLoad(het, SINGLE_METHOD, 8, reference).perClientRps).toBe(1169);
    const scaled = fleetRoles('homo', 20).map((r) => scaleBehaviour(behaviourOf(r), DEFAULT_SCALE));
    const load = offeredLoad(scaled, SINGLE_METHOD, 12, DEFAULT_SCALE);
    expect(load.totalRps / load.fleetCapacityRps).toBeGreaterThan(0.69);
    expect(load.totalRps / load.fleetCapacityRps).toBeLessThanOrEqual(0.7);
    // Time × 16 at the reference's 8 slots: 1/16 of its rate.
    expect(load.fleetCapacityRps).toBeCloseTo(15_296 / 16, 0);
  });

  it('keeps the reference timeline proportions for shorter windows', () => {
    // The reference's: 20 s warm-up, 90 s measured, faults over 20–60 s.
    expect(timelineFor(90, 20)).toEqual({ warmupMs: 20_000, measureS: 90, faultStartS: 20, faultEndS: 60 });
    // 45 s is the simulator's quick timeline.
    expect(timelineFor(45)).toEqual({ warmupMs: 10_000, measureS: 45, faultStartS: 10, faultEndS: 30 });
    expect(timelineFor(30)).toEqual({ warmupMs: 7000, measureS: 30, faultStartS: 7, faultEndS: 20 });
  });
});

describe('run plan', () => {
  const describeRun = (r: ReturnType<typeof planLoadRuns>[number]) =>
    `${r.repeat} ${r.layout} ${r.scenario} ${r.policies.join('+')} ${r.scale.slots}${r.xds ? ' xds' : ''}`;

  it('runs every repeat as a block of everything, shuffled by the seed, xDS once', () => {
    const options = parseArgs([
      '--scenario', 's01,s03', '--uniform-scenario', 's03', '--layout', 'both', '--policy', 'round_robin,peak_ewma', '--xds', '--repeats', '3',
    ]);
    const plan = planLoadRuns(options);
    expect(plan).toHaveLength(3 * 4);
    for (let repeat = 0; repeat < 3; repeat++) {
      const block = plan.slice(repeat * 4, repeat * 4 + 4);
      expect(block.every((r) => r.repeat === repeat)).toBe(true);
      expect(block.map(describeRun).map((d) => d.replace(/ xds$/, '')).sort()).toEqual(
        [`${repeat} reference s01 round_robin+peak_ewma 8`, `${repeat} reference s03 round_robin+peak_ewma 8`, `${repeat} uniform s03 peak_ewma 8`, `${repeat} uniform s03 round_robin 8`],
      );
    }
    expect(plan.filter((r) => r.xds).map(describeRun)).toEqual(['0 reference s03 round_robin+peak_ewma 8 xds']);
    // Same seed, same order; the order differs between blocks (not one fixed order repeated).
    expect(planLoadRuns(options).map(describeRun)).toEqual(plan.map(describeRun));
    const orders = [0, 1, 2].map((k) => plan.slice(k * 4, k * 4 + 4).map((r) => describeRun(r).slice(2).replace(/ xds$/, '')).join());
    expect(new Set(orders).size).toBeGreaterThan(1);
  });

  it('adds the low-concurrency regimes: 1 and 2 slots at 20 ms (time × 2), uniform, every policy, own fleet size (6 and 3)', () => {
    const plan = planLoadRuns(parseArgs(['--scenario', 's02', '--layout', 'reference', '--policy', 'round_robin,peak_ewma', '--low-concurrency', '--repeats', '1']));
    const low = plan.filter((r) => r.scale.timeFactor === 2);
    expect(low.map((r) => `${r.layout} ${r.scenario} ${r.policies[0]} ${r.scale.slots}/${r.scale.backends}`).sort()).toEqual(
      ['s01', 's02', 's03']
        .flatMap((s) => [[1, 6], [2, 3]].flatMap(([slots, backends]) => ['peak_ewma', 'round_robin'].map((p) => `uniform ${s} ${p} ${slots}/${backends}`)))
        .sort(),
    );
    expect(plan.filter((r) => r.layout === 'reference').map((r) => r.scale)).toEqual([DEFAULT_SCALE]);
    // --layout none: the low-concurrency runs alone.
    const alone = planLoadRuns(parseArgs(['--layout', 'none', '--low-concurrency', '--repeats', '1']));
    expect(alone.every((r) => r.scale.timeFactor === 2)).toBe(true);
    expect(alone).toHaveLength(3 * 2 * 6);
    // Its wall time: the 10 s timeline × 2 per run, plus start-up.
    expect(planWallTimeS(alone, parseArgs(['--duration', '8', '--warmup', '2']))).toBe(36 * (2 * 10 + 16));
  });

  it("offers both low-concurrency regimes within this machine's budget at the reference's utilisation, the same rate on the same 6 slots", () => {
    const offered = (scale: (typeof LOW_CONCURRENCY_SCALES)[number], id: string) => {
      const scenario = scenarioById(id);
      const fleet = fleetRoles(scenario.fleet, scale.backends!).map((role) => scaleBehaviour(behaviourOf(role), scale));
      return offeredLoad(fleet, scaleMethods(scenario.methods, scale), DEFAULT_UNIFORM_CLIENTS, scale);
    };
    for (const scale of LOW_CONCURRENCY_SCALES) {
      for (const id of ['s01', 's02', 's03']) {
        const load = offered(scale, id);
        // 6 backends × 2 slots offered 800 calls/s, over the ~669 the machine serves.
        expect(load.totalRps).toBeLessThanOrEqual(MACHINE_BUDGET_RPS);
        expect(overMachineBudget(regimeOf(scale, scale.backends!, load.perClientRps, DEFAULT_UNIFORM_CLIENTS))).toBe(false);
        // 70 % of the fleet's capacity, less the rule's rounding down to whole calls/s per client (at time × 2
        // ~25 calls/s per client, so up to 1/25 of the rate: s01 at 2 slots offers 0.678).
        expect(load.totalRps / load.fleetCapacityRps).toBeGreaterThan(0.67);
        expect(load.totalRps / load.fleetCapacityRps).toBeLessThanOrEqual(0.7);
      }
    }
    // Same total slots, so the same rate from the same clients: the regimes differ only in how the slots are split.
    expect(LOW_CONCURRENCY_SCALES.map((s) => s.slots * s.backends!)).toEqual([6, 6]);
    // 200 calls/s: what this machine served cleanly at 10 ms (400 did not, scale.ts), here at a 20 ms median.
    expect(LOW_CONCURRENCY_SCALES.map((s) => offered(s, 's02').totalRps)).toEqual([200, 200]);
    expect(LOW_CONCURRENCY_SCALES.map((s) => scaleMethods(scenarioById('s02').methods, s)[0].deadlineMs)).toEqual([1000, 1000]);
  });

  it('tells the low-concurrency regimes, at any time factor below the stand-in\'s, from the 8-slot stand-in and legacy runs', () => {
    for (const scale of LOW_CONCURRENCY_SCALES) expect(isLowConcurrency(regimeOf(scale, scale.backends!, 25, 8))).toBe(true);
    // Result files measured before time × 2 (2026-12-01, commit 74b613c): still low-concurrency, so a merge replaces them.
    expect(isLowConcurrency(regimeOf({ slots: 1, timeFactor: 1, load: 0.7, backends: 6 }, 6, 50, 8))).toBe(true);
    expect(isLowConcurrency(regimeOf(DEFAULT_SCALE, 20, 83, 8))).toBe(false);
    // Fewer slots at the stand-in's time × 16: a --slots run of the stand-in, not a low-concurrency regime.
    expect(isLowConcurrency(regimeOf({ ...DEFAULT_SCALE, slots: 2 }, 20, 20, 8))).toBe(false);
    // Legacy: service times scaled, timeline unscaled.
    expect(isLowConcurrency(regimeOf({ slotDivisor: 4, timeFactor: 1, load: 0.7 }, 20, 37, 1))).toBe(false);
  });

  it('--uniform-policy narrows the one-policy-per-run layouts, not the side-by-side one', () => {
    const plan = planLoadRuns(
      parseArgs(['--scenario', 's03', '--layout', 'both', '--uniform-scenario', 's02', '--uniform-policy', 'round_robin,peak_ewma', '--low-concurrency', '--low-scenario', 's02', '--repeats', '1']),
    );
    expect(plan.filter((r) => r.layout === 'reference').map((r) => r.policies)).toEqual([[...POLICY_IDS]]);
    const onePolicy = plan.filter((r) => r.layout === 'uniform');
    // s02 at 8 slots, then at 1 and 2 slots: two policies each.
    expect(onePolicy.map((r) => `${r.scenario} ${r.policies[0]} ${r.scale.slots}`).sort()).toEqual(
      [1, 2, 8].flatMap((slots) => ['peak_ewma', 'round_robin'].map((p) => `s02 ${p} ${slots}`)).sort(),
    );
    expect(() => parseArgs(['--uniform-policy', 'fastest'])).toThrow(/unknown policy "fastest"/);
  });

  it('the fitted report plan fits a session; the full one is stated, not hidden', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const hoursOf = (script: string): number => {
      const argv = scripts[script].split(/\s+/);
      const options = parseArgs(argv.slice(argv.indexOf('scripts/bench/cli.ts') + 1));
      expect(options.repeats).toBeGreaterThanOrEqual(5);
      return planWallTimeS(planLoadRuns(options), options) / 3600;
    };
    expect(hoursOf('bench:report')).toBeLessThan(1.5);
    expect(hoursOf('bench:report:full')).toBeGreaterThan(10);
  });

  it('states the wall time: timeline × time factor per run, plus start-up', () => {
    const options = parseArgs(['--scenario', 's02', '--policy', 'round_robin', '--repeats', '2']);
    const plan = planLoadRuns(options);
    // 10 s warm-up + 45 s, × 16, + 16 s each.
    expect(planWallTimeS(plan, options)).toBe(2 * (55 * 16 + 16));
  });
});

describe('the two-method scenario (issue 16)', () => {
  it('is reachable by id, two methods on the het fleet, and not sent to the simulator, which does not know it', () => {
    const options = parseArgs(['--scenario', 'm2', '--methods-report']);
    expect(options.scenarios).toEqual(['m2']);
    expect(options.methodsReport).toBe(true);
    const scenario = scenarioById('m2');
    expect(scenario.fleet).toBe('het');
    expect(scenario.methods.map((m) => [m.name, m.medianMs, m.weight, m.deadlineMs])).toEqual([
      ['U5_cheap', 5, 90, 500],
      ['U100_costly', 100, 10, 500],
    ]);
    expect(simulatorKnows('m2')).toBe(false);
    expect(simulatorKnows('s13')).toBe(true);
    // Not part of --full: the published report's plan is unchanged.
    expect(SCENARIOS.map(shortId)).not.toContain('m2');
    expect(() => parseArgs(['--scenario', 'm9'])).toThrow(/unknown scenario "m9".*m2-two-methods/);
  });

  it("offers no more than this machine's budget at the default scale, side by side or one policy per run", () => {
    const scale = DEFAULT_SCALE;
    const fleet = fleetRoles('het', 20).map((role) => scaleBehaviour(behaviourOf(role), scale));
    const load = offeredLoad(fleet, scaleMethods(TWO_METHODS.methods, scale), 8, scale);
    expect(load.totalRps).toBeLessThanOrEqual(MACHINE_BUDGET_RPS);
    for (const clientsPerPolicy of [2, 8]) {
      expect(overMachineBudget(regimeOf(scale, 20, load.perClientRps, clientsPerPolicy))).toBe(false);
    }
  });

  it('bench:methods runs it with the four client-only policies side by side, 5 repeats, time × 32, in under an hour', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const argv = scripts['bench:methods'].split(/\s+/);
    const options = parseArgs(argv.slice(argv.indexOf('scripts/bench/cli.ts') + 1));
    expect(options.scenarios).toEqual(['m2']);
    expect(options.policies).toEqual(['round_robin', 'least_request', 'lr_od', 'peak_ewma']);
    expect(options.layouts).toEqual(['reference']);
    expect(options.repeats).toBeGreaterThanOrEqual(5);
    expect(options.scale.timeFactor).toBe(32);
    expect(planWallTimeS(planLoadRuns(options), options) / 3600).toBeLessThan(1);
  });
});
