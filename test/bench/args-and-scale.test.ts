import { parseArgs } from '../../scripts/bench/args';
import { DEFAULT_SCALE, offeredLoad, scaleBehaviour, scaleMethods } from '../../scripts/bench/scale';
import { behaviourOf, fleetRoles, SINGLE_METHOD } from '../../scripts/model';
import { QUICK_SCENARIOS, QUICK_TIMELINE, REFERENCE_TIMELINE, SCENARIOS, shortId, timelineFor } from '../../scripts/bench/scenarios';
import { POLICY_IDS } from '../../scripts/bench/policies';
import { planLoadRuns } from '../../scripts/bench/plan';

describe('bench CLI arguments', () => {
  it('defaults to the quick load suite in the reference layout', () => {
    const options = parseArgs([]);
    expect(options.suites).toEqual(['load']);
    expect(options.scenarios).toEqual(QUICK_SCENARIOS);
    expect(options.policies).toEqual([...POLICY_IDS]);
    expect(options.layouts).toEqual(['reference']);
    expect(options.durationS).toBe(45);
    expect(options.repeats).toBe(1);
    expect(options.scale).toEqual(DEFAULT_SCALE);
    expect(options.report).toBe(false);
  });

  it('--full runs everything at the reference timeline', () => {
    const options = parseArgs(['--full']);
    expect(options.suites).toEqual(['load', 'pick', 'cpu', 'update']);
    expect(options.scenarios).toEqual(SCENARIOS.map(shortId));
    expect(options.scenarios).toEqual(['s01', 's02', 's03', 's04', 's05', 's06', 's07', 's08', 's09', 's10', 's11', 's12', 's13']);
    expect(options.layouts).toEqual(['reference', 'uniform']);
    expect(options.durationS).toBe(90);
    expect(options.warmupS).toBe(20);
    expect(options.repeats).toBe(2);
    expect(options.xds).toBe(true);
  });

  it('parses lists, inline values and the scale', () => {
    const options = parseArgs([
      '--scenario=s03,s10-node-cpu-contention',
      '--policy',
      'round_robin,peak_ewma',
      '--duration',
      '30',
      '--scale',
      '2x4',
      '--suite',
      'overhead',
      '--json',
      'out.json',
    ]);
    expect(options.scenarios).toEqual(['s03', 's10']);
    expect(options.policies).toEqual(['round_robin', 'peak_ewma']);
    expect(options.durationS).toBe(30);
    expect(options.scale).toEqual({ ...DEFAULT_SCALE, slotDivisor: 2, timeFactor: 4 });
    expect(options.suites).toEqual(['pick', 'cpu', 'update']);
    expect(options.jsonPath).toBe('out.json');
  });

  it('rejects mistakes with a message naming the option', () => {
    expect(() => parseArgs(['--scenario', 's99'])).toThrow(/unknown scenario "s99"/);
    expect(() => parseArgs(['--scenario', 'herd'])).toThrow(/simulator-only/);
    expect(() => parseArgs(['--policy', 'pick_first'])).toThrow(/unknown policy "pick_first"/);
    expect(() => parseArgs(['--duration', '-3'])).toThrow(/--duration must be a number > 0/);
    expect(() => parseArgs(['--repeats', '1.5'])).toThrow(/--repeats must be a whole number/);
    expect(() => parseArgs(['--scale', 'big'])).toThrow(/--scale must look like 4x3/);
    expect(() => parseArgs(['--layout', 'sideways'])).toThrow(/--layout must be/);
    expect(() => parseArgs(['--frobnicate', '1'])).toThrow(/unknown option --frobnicate/);
    expect(() => parseArgs(['--json'])).toThrow(/--json needs a value/);
  });
});

describe('scale', () => {
  it('divides slots and stretches service times and deadlines, leaving other fields alone', () => {
    const scale = { slotDivisor: 4, timeFactor: 6, load: 0.7 };
    expect(scaleBehaviour(behaviourOf('throttled'), scale)).toMatchObject({ slots: 1, latencyFactor: 9, sigma: 0.3 });
    expect(scaleBehaviour({ latencyFactor: 5 }, scale)).toEqual({ latencyFactor: 30 });
    expect(scaleBehaviour({ mode: 'blackhole' as const }, scale)).toEqual({ mode: 'blackhole' });
    expect(scaleBehaviour({ gcPeriodMs: 10_000, gcPauseMs: 500 }, scale)).toEqual({ gcPeriodMs: 10_000, gcPauseMs: 500 });
    expect(scaleMethods(SINGLE_METHOD, scale)[0].deadlineMs).toBe(3000);
    expect(() => scaleBehaviour({ slots: 4 }, { ...scale, slotDivisor: 3 })).toThrow(/not a whole number/);
  });

  it('keeps 70 % utilisation: the reference scale reproduces its published rates', () => {
    const reference = { slotDivisor: 1, timeFactor: 1, load: 0.7 };
    const homo = fleetRoles('homo', 20).map((r) => scaleBehaviour(behaviourOf(r), reference));
    const het = fleetRoles('het', 20).map((r) => scaleBehaviour(behaviourOf(r), reference));
    // reference-load-test.md §4: 1,338 (homo) and 1,169 (het) calls/s per client over 8 clients.
    expect(offeredLoad(homo, SINGLE_METHOD, 8, reference).perClientRps).toBe(1338);
    expect(offeredLoad(het, SINGLE_METHOD, 8, reference).perClientRps).toBe(1169);
    const scaled = fleetRoles('homo', 20).map((r) => scaleBehaviour(behaviourOf(r), DEFAULT_SCALE));
    const load = offeredLoad(scaled, SINGLE_METHOD, 6, DEFAULT_SCALE);
    expect(load.totalRps / load.fleetCapacityRps).toBeGreaterThan(0.69);
    expect(load.totalRps / load.fleetCapacityRps).toBeLessThanOrEqual(0.7);
  });

  it('keeps the reference timeline proportions for shorter windows', () => {
    expect(timelineFor(90, 20)).toEqual(REFERENCE_TIMELINE);
    // 45 s is the simulator's quick timeline.
    expect(timelineFor(45)).toEqual(QUICK_TIMELINE);
    expect(timelineFor(30)).toEqual({ warmupMs: 7000, measureS: 30, faultStartS: 7, faultEndS: 20 });
  });
});

describe('run plan', () => {
  it('runs the reference layout once per scenario with every policy, the uniform layout once per policy, xDS once', () => {
    const plan = planLoadRuns(
      parseArgs(['--scenario', 's01,s03', '--uniform-scenario', 's03', '--layout', 'both', '--policy', 'round_robin,peak_ewma', '--xds']),
    );
    expect(plan.map((r) => `${r.layout} ${r.scenario} ${r.policies.join('+')}${r.xds ? ' xds' : ''}`)).toEqual([
      'reference s01 round_robin+peak_ewma',
      'reference s03 round_robin+peak_ewma xds',
      'uniform s03 round_robin',
      'uniform s03 peak_ewma',
    ]);
  });
});
