/**
 * Per-method groups from recorder to report: clients' LoadRecorders with two
 * method groups, combined as the load test combines them, folded over
 * repeats and tabled; issue 16's target judged on the cheap method.
 */
import { combineRuns } from '../../scripts/bench/analysis';
import { LoadRecorder } from '../../scripts/bench/load-recorder';
import type { PolicyResult, ScenarioResult } from '../../scripts/bench/loadtest';
import { aggregateMethods, ALL_METHODS, cheapMethodVerdict, methodRunTable, methodSections, methodTable, renderMethodsPage } from '../../scripts/bench/method-tables';
import type { PolicyId } from '../../scripts/bench/policies';
import { BenchResults, renderReport } from '../../scripts/bench/report';
import { parseArgs } from '../../scripts/bench/args';
import { parseMethodMix } from '../../scripts/model';

const METHODS = parseMethodMix('U5_cheap:90,U100_costly:10');
const PHASES = [{ name: 'before', fromS: 0, toS: 5 }];

/** One client: 1,000 cheap calls (98 % at 5 ms, 2 % at `cheapTailMs`: its p99), 100 costly at 100 ms, `cheapFailures` cheap timeouts. */
function client(cheapTailMs: number, cheapFailures = 0): ReturnType<LoadRecorder['export']> {
  const recorder = new LoadRecorder(5, PHASES, 2, 500, 1000, METHODS);
  for (let i = 0; i < 1000; i++) {
    recorder.record(i * 4, i % 50 === 0 || i % 50 === 1 ? cheapTailMs : 5, true, i % 2, 0, 0);
  }
  for (let i = 0; i < 100; i++) {
    recorder.record(i * 40, 100, true, i % 2, 0, 1);
  }
  for (let i = 0; i < cheapFailures; i++) {
    recorder.record(i * 40, 30, false, 0, 4, 0);
  }
  return recorder.export();
}

function policy(id: PolicyId, cheapTailMs: number, cheapFailures = 0): PolicyResult {
  const { window, phases, methods } = combineRuns([client(cheapTailMs, cheapFailures), client(cheapTailMs, cheapFailures)]);
  return {
    policy: id,
    clients: 2,
    window,
    phases,
    methods,
    headline: window,
    faultyShare: [],
    detectS: null,
    recoverS: null,
    cpuMicrosPerCall: 900,
    evidence: id === 'peak_ewma' ? [{ policy: 'peak_ewma_experimental', callsStarted: 2200, methods: [{ method: '/loadtest.Probe/U5_cheap', calls: 2000 }, { method: '/loadtest.Probe/U100_costly', calls: 200 }] }] : [],
    failuresByCode: {},
    clientLoopDelayMs: { p99: 5, max: 20 },
  };
}

function run(tails: Partial<Record<PolicyId, number>>, repeat = 0, layout: 'reference' | 'uniform' = 'reference'): ScenarioResult & { repeat: number } {
  return {
    scenario: 'm2',
    title: 'het fleet; 2 methods',
    layout,
    timeline: { warmupMs: 1000, measureS: 5, faultStartS: 1, faultEndS: 3 },
    scale: { slots: 8, timeFactor: 16, load: 0.7 },
    load: { fleetCapacityRps: 576, totalRps: 400, perClientRps: 50 },
    backendCount: 20,
    faultyBackends: [],
    methods: METHODS,
    faultWindow: false,
    loadAverage: [1, 1],
    backendLoopDelayMs: { p99: 3, max: 12 },
    policies: Object.entries(tails).map(([p, tail]) => policy(p as PolicyId, tail!)),
    startedAt: '2026-12-01T00:00:00Z',
    repeat,
  };
}

const near = (value: number, expected: number): void => {
  // HDR histograms keep 3 significant digits.
  expect(Math.abs(value - expected) / expected).toBeLessThan(0.002);
};

describe('per-method groups', () => {
  const results = [
    run({ round_robin: 60, least_request: 40, lr_od: 45, peak_ewma: 20 }, 0),
    run({ round_robin: 80, least_request: 44, lr_od: 55, peak_ewma: 30 }, 1),
  ];

  it("folds each method group over repeats: the p99 is the mean of the runs' p99s, the all-methods row beside it", () => {
    const rows = aggregateMethods(results);
    const of = (method: string, p: PolicyId) => rows.find((r) => r.method === method && r.policy === p)!;
    expect(new Set(rows.map((r) => r.method))).toEqual(new Set(['U5_cheap', 'U100_costly', ALL_METHODS]));
    expect(rows.every((r) => r.scenario === 'm2' && r.repeats === 2)).toBe(true);
    near(of('U5_cheap', 'peak_ewma').p99Ms, 25);
    near(of('U5_cheap', 'round_robin').p99Ms, 70);
    near(of('U5_cheap', 'peak_ewma').p50Ms, 5);
    near(of('U100_costly', 'lr_od').p99Ms, 100);
    // Costly calls are 100 of the 1,100 per client, all at 100 ms: the all-methods p99 is theirs.
    near(of(ALL_METHODS, 'peak_ewma').p99Ms, 100);
    expect(of('U5_cheap', 'round_robin').p99CiMs[0]).toBeGreaterThanOrEqual(59.9);
    expect(of('U5_cheap', 'round_robin').p99CiMs[1]).toBeLessThanOrEqual(80.1);
  });

  it("counts a method's failures at its own deadline in its p99 over all calls", () => {
    // 30 of 1,030 cheap calls time out (2.9 % > 1 %): the cheap p99 over all calls is the cheap deadline, 500 ms.
    const failing = { ...run({ peak_ewma: 20 }), policies: [policy('peak_ewma', 20, 30)] };
    const cheap = aggregateMethods([failing]).find((r) => r.method === 'U5_cheap')!;
    near(cheap.allP99Ms, 500);
    near(cheap.errorRate, 30 / 1030);
  });

  it("tables every method and policy with the p99 as a multiple of peak_ewma's, method by method", () => {
    const rows = aggregateMethods(results);
    const table = methodTable(rows.filter((r) => r.layout === 'reference'));
    expect(table.headers).toEqual(['method', 'policy', 'p50', 'p99 [95 % CI]', 'p99.9', 'p99 all calls [95 % CI]', 'errors [95 % CI]', "p99 ÷ peak_ewma's"]);
    const rr = table.rows.find((r) => r[0] === 'U5_cheap' && r[1] === 'round_robin')!;
    expect(rr[7]).toBe('2.80×');
    expect(rr[3]).toMatch(/^70\.\dms \[/);
    // Too few OK calls per client for a p99.9.
    expect(rr[4]).toBe('–');
  });

  it('gives a terminal table per run, and none for a one-method workload', () => {
    const table = methodRunTable(results[0])!;
    expect(table.rows.map((r) => r[0])).toEqual([...new Array(4).fill('U5_cheap'), ...new Array(4).fill('U100_costly'), ...new Array(4).fill(ALL_METHODS)]);
    expect(table.rows.slice(0, 4).map((r) => r[1])).toEqual(['round_robin', 'least_request', 'lr+od', 'peak_ewma']);
    const single = { ...results[0], methods: undefined, policies: results[0].policies.map((p) => ({ ...p, methods: undefined })) };
    expect(methodRunTable(single)).toBeNull();
    expect(methodSections([single])).toEqual([]);
  });

  it("judges the cheap method's p99: met when peak_ewma's is lowest, missed when any client-only policy's is lower", () => {
    const met = cheapMethodVerdict(results, aggregateMethods(results));
    expect(met.met).toBe(true);
    expect(met.detail).toContain('U5_cheap, 2 repeats: peak_ewma 25.0ms');
    expect(met.detail).toContain('least_request 42.0ms [40.0ms, 44.0ms] (1.68×; intervals disjoint; winner rule: win)');
    const lost = [run({ round_robin: 60, least_request: 18, lr_od: 45, peak_ewma: 20 })];
    expect(cheapMethodVerdict(lost, aggregateMethods(lost)).met).toBe(false);
  });

  it('puts the per-method section, with the picker evidence, into the report only for a multi-method workload', () => {
    const bench = (load: ScenarioResult[]): BenchResults => ({
      startedAt: '2026-12-01T00:00:00Z',
      machine: { cpus: 2, cpuModel: 'test', memoryGiB: 4, platform: 'linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] },
      options: parseArgs(['--scenario', 'm2']),
      load,
      pick: null,
      cpu: null,
    });
    const markdown = renderReport(bench(results)).markdown;
    expect(markdown).toContain('### Per method group');
    expect(markdown).toContain('peak_ewma: /loadtest.Probe/U5_cheap 4,000, /loadtest.Probe/U100_costly 400');
    const single = results.map((r) => ({ ...r, methods: undefined, policies: r.policies.map((p) => ({ ...p, methods: undefined })) }));
    expect(renderReport(bench(single)).markdown).not.toContain('Per method group');
  });

  it('renders the methods page from saved results: how to reproduce, each layout, the target', () => {
    const uniform = (['round_robin', 'least_request', 'lr_od', 'peak_ewma'] as const).map((p, i) => run({ [p]: [60, 40, 45, 20][i] }, 0, 'uniform'));
    const page = renderMethodsPage({
      startedAt: '2026-12-01T00:00:00Z',
      machine: { cpus: 2, cpuModel: 'test', memoryGiB: 4, platform: 'linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] },
      options: parseArgs(['--scenario', 'm2', '--layout', 'both', '--policy', 'round_robin,least_request,lr_od,peak_ewma', '--repeats', '3', '--duration', '8', '--warmup', '2']),
      load: [...results, ...uniform],
      pick: null,
      cpu: null,
    });
    expect(page).toContain('npm run bench:methods');
    expect(page).toContain('npm run bench -- --report-from docs/benchmarks/methods.json --methods-report');
    // 3 repeats × (1 side-by-side run + 4 one-policy runs), 10 timeline s × 16 + 16 s each.
    expect(page).toContain('15 runs, about 44 min');
    expect(page).toContain('## Per method group');
    expect(page).toMatch(/\*\*m2 het fleet; 2 methods\*\* \(reference layout;/);
    expect(page).toMatch(/\*\*m2 het fleet; 2 methods\*\* \(uniform layout;/);
    expect(page.match(/Target — .*: \*\*met\*\*/g)).toHaveLength(2);
  });
});
