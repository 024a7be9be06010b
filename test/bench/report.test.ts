import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aggregate } from '../../scripts/bench/aggregate';
import { P999_MIN_SAMPLES } from '../../scripts/lib/percentile-rules';
import type { LatencySummary } from '../../scripts/bench/histogram';
import type { PolicyResult, ScenarioResult } from '../../scripts/bench/loadtest';
import type { PolicyId } from '../../scripts/bench/policies';
import { BenchResults, renderReport } from '../../scripts/bench/report';
import { orderingDisagreements, readSimulatorJson } from '../../scripts/bench/simulator';
import { cpuVerdicts, isTieOrBetter, loadVerdicts, lowConcurrencyVerdicts, outcomeOf, pickVerdicts, winsOn } from '../../scripts/bench/verdicts';
import { parseArgs } from '../../scripts/bench/args';
import { runTitle } from '../../scripts/bench/report-regimes';
import { mergeLoadCells, mergeLoadRuns, mergeOverhead } from '../../scripts/bench/merge';

function latency(p99Ms: number): LatencySummary {
  return { count: 1000, p50Ms: p99Ms / 2, p90Ms: p99Ms * 0.8, p99Ms, p999Ms: p99Ms * 2, maxMs: p99Ms * 3, meanMs: p99Ms / 2 };
}

function policy(id: PolicyId, p99Ms: number, errorRate = 0): PolicyResult {
  const window = {
    calls: 1000,
    ok: 1000 - errorRate * 1000,
    failed: errorRate * 1000,
    errorRate,
    okLatency: latency(p99Ms),
    allLatency: latency(errorRate > 0 ? 500 : p99Ms),
    meanClientOkP99Ms: p99Ms,
  };
  return {
    policy: id,
    clients: 1,
    window,
    phases: { fault: window },
    headline: window,
    faultyShare: [0.05, 0.05, 0.01, 0.0, 0.05],
    detectS: 2,
    recoverS: 1,
    cpuMicrosPerCall: 900,
    evidence: [],
    failuresByCode: {},
    clientLoopDelayMs: { p99: 5, max: 20 },
  };
}

function scenario(id: string, p99: Partial<Record<PolicyId, number>>, repeat = 0): ScenarioResult & { repeat: number } {
  return {
    scenario: id,
    title: `title of ${id}`,
    layout: 'reference',
    timeline: { warmupMs: 1000, measureS: 5, faultStartS: 1, faultEndS: 3 },
    scale: { slots: 8, timeFactor: 6, load: 0.7 },
    load: { fleetCapacityRps: 637, totalRps: 444, perClientRps: 74 },
    backendCount: 20,
    faultyBackends: [0],
    faultWindow: true,
    loadAverage: [1, 1],
    backendLoopDelayMs: { p99: 3, max: 12 },
    policies: Object.entries(p99).map(([p, v]) => policy(p as PolicyId, v!)),
    startedAt: '2026-11-29T00:00:00Z',
    repeat,
  };
}

describe('verdicts', () => {
  it("counts as a tie anything the reference's winner rule (>= 20 % and >= 2 ms better) would not call a win", () => {
    expect(isTieOrBetter(21.5, 21.3)).toBe(true);
    expect(isTieOrBetter(124, 100)).toBe(true);
    expect(isTieOrBetter(126, 100)).toBe(false);
    // 25 % better but less than 2 ms: a tie.
    expect(isTieOrBetter(4, 3)).toBe(true);
  });

  it('judges peak_ewma against each client-only policy, the worst pair deciding', () => {
    const rows = aggregate([
      scenario('s03', { peak_ewma: 30, least_request: 40, lr_od: 35, round_robin: 400, wrr_orca: 10 }),
      scenario('s10', { peak_ewma: 60, least_request: 45, lr_od: 40, round_robin: 400 }),
      scenario('s01', { peak_ewma: 30, least_request: 40, lr_od: 38, round_robin: 400 }),
    ]);
    const verdicts = loadVerdicts(rows).filter((v) => v.measure === 'reference');
    const of = (id: string) => verdicts.find((v) => v.scenario === id)!;
    // s03: beats least_request and round_robin, but 30 vs lr+od's 35 is not 20 % better: a tie, not a win.
    // wrr (server help) beating peak does not count against it.
    expect(of('s03').outcome).toBe('tie');
    expect(of('s03').pairs).toEqual([
      { policy: 'round_robin', outcome: 'win' },
      { policy: 'least_request', outcome: 'win' },
      { policy: 'lr_od', outcome: 'tie' },
    ]);
    expect(of('s01').outcome).toBe('win');
    expect(of('s10').outcome).toBe('loss');
    expect(of('s10').met).toBe(false);
    expect(of('s10').detail).toContain('loss vs lr+od');
  });

  it("applies the reference's whole rule: p99, errors (0.1 pp and 1.5x), recovery (5 s); both ways is a split", () => {
    expect(winsOn({ p99Ms: 20, errorRate: 0.001 }, { p99Ms: 21, errorRate: 0.0025 })).toEqual(['errors']);
    // 0.09 pp lower is not enough, however large the ratio.
    expect(winsOn({ p99Ms: 20, errorRate: 0 }, { p99Ms: 21, errorRate: 0.0009 })).toEqual([]);
    // 1.4x lower is not enough, however many points.
    expect(winsOn({ p99Ms: 20, errorRate: 0.05 }, { p99Ms: 21, errorRate: 0.07 })).toEqual([]);
    expect(winsOn({ p99Ms: 20, recoverS: 3 }, { p99Ms: 21, recoverS: 8 })).toEqual(['recovery']);
    expect(winsOn({ p99Ms: 20, recoverS: 3 }, { p99Ms: 21, recoverS: null })).toEqual([]);
    // round_robin never moves away from a faulty backend: its instant "recovery" beats nobody.
    expect(winsOn({ p99Ms: 20, recoverS: 1, detectS: null }, { p99Ms: 21, recoverS: 7, detectS: 2 })).toEqual([]);
    expect(winsOn({ p99Ms: 20, recoverS: 1, detectS: 3 }, { p99Ms: 21, recoverS: 7, detectS: 2 })).toEqual(['recovery']);
    expect(outcomeOf({ p99Ms: 20, recoverS: 13 }, { p99Ms: 30, recoverS: 4 })).toEqual({ outcome: 'split', won: ['p99'], lost: ['recovery'] });
    expect(outcomeOf({ p99Ms: 21.5 }, { p99Ms: 21.3 }).outcome).toBe('tie');
  });

  it('judges the uniform layout too, each scenario on its own rows', () => {
    const uniform = (id: string, p99: Partial<Record<PolicyId, number>>) => ({ ...scenario(id, p99), layout: 'uniform' as const });
    const rows = aggregate([
      scenario('s03', { peak_ewma: 30, least_request: 40 }),
      uniform('s03', { peak_ewma: 90, least_request: 40 }),
    ]);
    const verdicts = loadVerdicts(rows);
    expect(verdicts.filter((v) => v.name === 's03 (8 slots × 60 ms)').map((v) => v.outcome)).toEqual(['win', 'win']);
    const inUniform = verdicts.filter((v) => v.name === 's03 uniform (8 slots × 60 ms)');
    expect(inUniform.map((v) => v.outcome)).toEqual(['loss', 'loss']);
    expect(inUniform[0].detail).toContain('peak_ewma 90');
  });

  it('keeps regimes apart: the same scenario at another slot count is judged on its own', () => {
    // The uniform layout runs one policy per run.
    const low = (p: PolicyId, p99: number) => ({ ...scenario('s02', { [p]: p99 }), layout: 'uniform' as const, scale: { slots: 1, timeFactor: 1, load: 0.7, backends: 6 } });
    const runs = [
      { ...scenario('s02', { peak_ewma: 30 }), layout: 'uniform' as const },
      { ...scenario('s02', { round_robin: 30 }), layout: 'uniform' as const },
      low('peak_ewma', 39),
      low('round_robin', 30),
    ];
    const rows = aggregate(runs);
    expect(rows.map((r) => `${r.policy} ${r.regime.slots}`).sort()).toEqual(['peak_ewma 1', 'peak_ewma 8', 'round_robin 1', 'round_robin 8']);
    const verdicts = loadVerdicts(rows).filter((v) => v.measure === 'reference');
    expect(verdicts.map((v) => `${v.name}: ${v.outcome}`).sort()).toEqual(['s02 uniform (1 slot × 10 ms): loss', 's02 uniform (8 slots × 60 ms): tie']);
    // Issue 15's bound on identical backends applies to the low-concurrency regime only: 39 vs 30 ms is 1.30×.
    expect(lowConcurrencyVerdicts(rows, runs)).toEqual([
      {
        target: "s02 uniform (1 slot × 10 ms): peak_ewma p99 over all calls ≤ 1.05× round_robin's",
        met: false,
        detail: '39.0ms vs 30.0ms: 1.30× [1.30, 1.30] (ratio of the means over 1 paired repeats, 95 % bootstrap interval over the pairs; paired median 1.30×)',
      },
    ]);
  });

  it('averages repeats before judging, as the reference did', () => {
    const rows = aggregate([
      scenario('s03', { peak_ewma: 30, round_robin: 100 }, 0),
      scenario('s03', { peak_ewma: 50, round_robin: 100 }, 1),
    ]);
    expect(rows.find((r) => r.policy === 'peak_ewma')!.p99Ms).toBe(40);
    expect(rows.find((r) => r.policy === 'peak_ewma')!.repeats).toBe(2);
  });

  it('judges CPU ratios against 1.03 (10, 50 backends) and 1.05 (500)', () => {
    const result = (backends: number, ratio: number) => ({
      backends,
      policy: 'peak_ewma' as const,
      cpuMicrosPerCall: 500 * ratio,
      ratioToRoundRobin: ratio,
      callsPerSecond: 1000,
      rounds: 5,
      perRound: [],
    });
    const verdicts = cpuVerdicts([result(10, 1.02), result(50, 1.04), result(500, 1.04)]);
    expect(verdicts.map((v) => v.met)).toEqual([true, false, true]);
  });

  it('judges peak_ewma via xDS against round_robin via xDS, paired by round, not against the service-config path', () => {
    const result = (policy: 'peak_ewma' | 'peak_ewma_xds' | 'round_robin_xds', perRound: number[]) => ({
      backends: 10,
      policy,
      cpuMicrosPerCall: perRound[1],
      ratioToRoundRobin: 1,
      callsPerSecond: 1000,
      rounds: perRound.length,
      perRound,
    });
    // Round by round xDS costs 1.02× round_robin via xDS; both are far above the service-config path.
    const verdicts = cpuVerdicts([
      result('peak_ewma', [500, 500, 500]),
      result('peak_ewma_xds', [612, 714, 816]),
      result('round_robin_xds', [600, 700, 800]),
    ]);
    const xds = verdicts.filter((v) => v.target.includes('via xDS'));
    expect(xds).toHaveLength(1);
    expect(xds[0].target).toMatch(/peak_ewma at 10 backends ≤ 1.03× round_robin/);
    expect(xds[0].met).toBe(true);
    expect(xds[0].detail).toMatch(/^1\.020×/);
  });

  it('judges the pick path against 1.2x round_robin and flatness from the fewest to the most endpoints', () => {
    const r = (endpoints: number, policy: PolicyId, p50Ns: number, p99Ns: number) => ({
      endpoints,
      policy,
      samples: 100,
      p50Ns,
      p99Ns,
      p999Ns: p99Ns,
      meanNs: p50Ns,
      exitIdleNs: 1,
    });
    const verdicts = pickVerdicts({
      timerOverheadNs: 50,
      results: [r(10, 'round_robin', 50, 100), r(10, 'peak_ewma', 55, 110), r(1000, 'round_robin', 50, 100), r(1000, 'peak_ewma', 200, 400)],
    });
    // Ratios and flatness use the batch means (meanNs = p50Ns in this fixture).
    expect(verdicts.map((v) => v.met)).toEqual([true, false, false]);
    expect(verdicts[2].target).toContain('flat from 10 to 1000');
  });
});

describe('aggregate', () => {
  const run = (p99Ms: number, minClientOk: number, faultyShare: number[]) => {
    const base = scenario('s03', { peak_ewma: p99Ms });
    const policy = base.policies[0];
    const timeline = { warmupMs: 1000, measureS: 4, faultStartS: 1, faultEndS: 3 };
    return { ...base, timeline, policies: [{ ...policy, headline: { ...policy.headline, minClientOk }, faultyShare }] };
  };

  it('publishes p99.9 only when every client of every repeat had 10,000 OK calls; the faulty share over the fault window', () => {
    const enough = aggregate([run(20, P999_MIN_SAMPLES, [0.05, 0.02, 0.04, 0.05]), run(30, 20_000, [0.05, 0.0, 0.02, 0.05])]);
    expect(enough[0].p999Ms).toBe(50);
    expect(enough[0].p99Ms).toBe(25);
    expect(enough[0].p99CiMs).toEqual([20, 30]);
    // Fault window = seconds 1 and 2: (0.02 + 0.04) / 2 and (0 + 0.02) / 2.
    expect(enough[0].faultyShare).toBeCloseTo(0.02, 10);
    expect(enough[0].fairShare).toBe(0.05);
    const short = aggregate([run(20, P999_MIN_SAMPLES - 1, [0, 0, 0, 0]), run(30, 20_000, [0, 0, 0, 0])]);
    expect(short[0].p999Ms).toBeNaN();
  });
});

describe('simulator ordering', () => {
  it("reads the simulator's reference-layout JSON by short scenario id, keeping the compared policies", () => {
    const summary = readSimulatorJson(
      {
        meta: {},
        reference: {
          scenarios: {
            's03-brownout': { peak_ewma: { p99: 20.6, errorRate: 0.00002 }, oracle: { p99: 19, errorRate: 0 } },
          },
        },
      },
      'npm run simulate',
    );
    expect(summary.rows).toEqual([{ scenario: 's03', policy: 'peak_ewma', p99Ms: 20.6, errorRate: 0.00002 }]);
  });

  it('flags only pairs both sides order clearly and oppositely', () => {
    const real = new Map<PolicyId, number>([
      ['peak_ewma', 30],
      ['least_request', 100],
      ['round_robin', 101],
    ]);
    const sim = new Map<PolicyId, number>([
      ['peak_ewma', 120],
      ['least_request', 50],
      ['round_robin', 50],
    ]);
    expect(orderingDisagreements(real, sim)).toEqual([
      ['peak_ewma', 'least_request'],
      ['peak_ewma', 'round_robin'],
    ]);
  });
});

describe('report', () => {
  it('renders targets, our numbers beside the reference, charts and the regenerate command', () => {
    const results: BenchResults = {
      startedAt: '2026-11-29T00:00:00Z',
      machine: { cpuModel: 'Test CPU', cpus: 2, memoryGiB: 24, platform: 'Linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] },
      options: parseArgs([]),
      load: [
        scenario('s03', { peak_ewma: 30, least_request: 40, lr_od: 35, round_robin: 400, peak_ewma_od: 31, wrr_orca: 25 }),
      ],
      pick: null,
      cpu: null,
    };
    const { markdown, charts } = renderReport(results);
    expect(markdown).toContain('npm run bench:report');
    expect(markdown).toContain('2 × Test CPU');
    // 8 slots, time × 6: our s03 p99 in the reference's units (÷ 6) beside the reference's.
    expect(markdown).toContain('5.0ms / 21.5ms');
    expect(markdown).toContain('66.7ms / 450ms');
    expect(markdown).toContain('8 slots, 60 ms median (time × 6), 20 backends, 1 client per policy at 74 calls/s');
    // 30 vs lr+od's 35 (÷ 6: 5.0 vs 5.8 ms) is no win by the rule.
    expect(markdown).toMatch(/s03 \(8 slots × 60 ms\): peak_ewma vs each client-only policy, p99 \(OK calls\), errors, recovery \| tie \|/);
    expect(markdown).toContain('| CPU per RPC vs round_robin | not measured |');
    // No p99.9 chart: the fixture's clients did not record 10,000 OK calls each.
    expect(charts.map((c) => c.file)).toEqual(['p99.svg', 'p99-all-calls.svg', 's03-share.svg']);
    // The share chart's title states the run's own fault (2 timeline s here), not the reference's 40 s.
    expect(charts[2].svg).toContain('for 2 s');
    expect(charts[2].svg).not.toContain('40 s');
    for (const chart of charts) {
      expect(markdown).toContain(`(benchmarks/${chart.file})`);
    }
    // The fixture's window ends 2 s after the fault: recovery cannot be measured, and is not compared
    // with the reference's; its detection (2 s) is.
    expect(markdown).toMatch(/\| 2 s \| n\/m \|/);
    expect(markdown).not.toContain('Reference recovery');
    expect(markdown).not.toContain('recovery 1 s');
  });

  it("labels each chart and heading with its own runs' rates, a range where repeats differ, not the first scenario's", () => {
    const at = (run: ScenarioResult & { repeat: number }, perClientRps: number) => ({ ...run, load: { ...run.load, perClientRps } });
    const results: BenchResults = {
      startedAt: '2026-11-29T00:00:00Z',
      machine: { cpuModel: 'Test CPU', cpus: 2, memoryGiB: 24, platform: 'Linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] },
      options: parseArgs([]),
      load: [
        at(scenario('s01', { peak_ewma: 30, round_robin: 40 }), 48),
        // s03's first repeat ran one more client (an xDS one) at a lower rate, its second at the rest's.
        at(scenario('s03', { peak_ewma: 30, round_robin: 40 }, 0), 51),
        at(scenario('s03', { peak_ewma: 31, round_robin: 41 }, 1), 55),
        at(scenario('s10', { peak_ewma: 30, round_robin: 40 }), 55),
      ],
      pick: null,
      cpu: null,
    };
    const { markdown, charts } = renderReport(results);
    const caption = (file: string) => charts.find((c) => c.file === file)!.caption;
    expect(caption('s03-share.svg')).toContain('at 51–55 calls/s');
    expect(caption('s10-share.svg')).toContain('at 55 calls/s');
    expect(caption('p99.svg')).toContain('at 48 (s01) / 51–55 (s03) / 55 (s10) calls/s');
    expect(markdown).toContain('## Load test beside the reference (8 slots, 60 ms median (time × 6), 20 backends, 1 client per policy at 48 (s01) / 51–55 (s03) / 55 (s10) calls/s)');
    expect(markdown).toContain('(reference layout; 8 slots, 60 ms median (time × 6), 20 backends, 1 client per policy at 51–55 calls/s;');
  });

  it('prints recovery, and the reference\'s beside it, where the window runs 5 s past the fault', () => {
    const long = { ...scenario('s03', { peak_ewma: 30, least_request: 40, lr_od: 35, round_robin: 400 }), timeline: { warmupMs: 1000, measureS: 8, faultStartS: 1, faultEndS: 3 } };
    const { markdown } = renderReport({ startedAt: '2026-11-29T00:00:00Z', machine: { cpuModel: 'Test CPU', cpus: 2, memoryGiB: 24, platform: 'Linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] }, options: parseArgs([]), load: [long], pick: null, cpu: null });
    expect(markdown).toMatch(/\| 2 s \| 1 s \|/);
    expect(markdown).not.toContain('n/m |');
    expect(markdown).toContain('Reference recovery: peak 13 s, least_request 4 s');
  });
});

describe("the report's GC-phase note", () => {
  const machine = { cpuModel: 'Test CPU', cpus: 2, memoryGiB: 24, platform: 'Linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] };
  const at = (id: string, startedAt: string, backendCount = 20) => ({ ...scenario(id, { peak_ewma: 30, round_robin: 40 }), startedAt, backendCount });
  const render = (load: BenchResults['load']) => renderReport({ startedAt: '2026-11-29T00:00:00Z', machine, options: parseArgs([]), load, pick: null, cpu: null }).markdown;

  it("counts the runs whose fleet has a GC-pausing pod that drew its phase before the harness's draw was mended", () => {
    // s01's fleet of 20 has a GC-pausing pod, s03's identical fleet none; one s01 run before 57840e8, one after.
    const markdown = render([at('s01', '2026-12-06T17:15:00Z'), at('s01', '2026-12-07T15:30:00Z'), at('s03', '2026-12-01T00:00:00Z')]);
    expect(markdown).toContain("; 1 of this report's 2 runs with a GC-pausing pod (s01 reference) drew it the old way)");
  });

  it('says every such run drew it anywhere when none predates the mend, and nothing when no fleet has such a pod', () => {
    expect(render([at('s01', '2026-12-07T15:30:00Z'), at('s01', '2026-12-07T15:33:00Z')])).toContain(
      '; every run in this report with a GC-pausing pod (2, s01 reference) was measured with the phase drawn anywhere)',
    );
    // A het fleet of 6 (the low-concurrency layout) has a noisy and a flaky pod, no GC-pausing one.
    const markdown = render([at('s01', '2026-12-01T00:00:00Z', 6), at('s03', '2026-12-01T00:00:00Z')]);
    expect(markdown).not.toContain('GC-pausing pod (');
    expect(markdown).toContain('the harness\'s pauses fall anywhere)');
  });
});

describe('report headline', () => {
  const machine = { cpuModel: 'Test CPU', cpus: 2, memoryGiB: 24, platform: 'Linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] };
  const uniform = (id: string, p99: Partial<Record<PolicyId, number>>) => ({ ...scenario(id, p99), layout: 'uniform' as const });
  // s02 uniform is the real report's case: peak_ewma 390 ms vs round_robin 272 (a loss by the rule).
  const results: BenchResults = {
    startedAt: '2026-11-29T00:00:00Z',
    machine,
    options: parseArgs([]),
    load: [
      scenario('s01', { peak_ewma: 30, least_request: 80, lr_od: 80, round_robin: 95 }),
      scenario('s03', { peak_ewma: 30, least_request: 31, lr_od: 30, round_robin: 400 }),
      uniform('s02', { peak_ewma: 390, least_request: 346, lr_od: 350, round_robin: 272 }),
    ],
    pick: null,
    cpu: null,
  };

  it('says a loss is a loss, and claims no win the verdict table does not show', () => {
    const { markdown } = renderReport(results);
    // The old headline ("in every scenario run, peak_ewma's p99 ... is the lowest ... or tied") missed uniform losses.
    expect(markdown).not.toMatch(/in every scenario/);
    expect(markdown).not.toMatch(/is the lowest/);
    const table = new Map<string, string>();
    for (const match of markdown.matchAll(/^\| (s\d\d[^:|]*): peak_ewma vs each client-only policy, p99 \(OK calls\), errors, recovery \| ([^|]+) \|/gm)) {
      table.set(match[1], match[2].replace(/\*/g, '').trim());
    }
    expect(Object.fromEntries(table)).toEqual({
      's01 (8 slots × 60 ms)': 'win',
      's03 (8 slots × 60 ms)': 'tie',
      's02 uniform (8 slots × 60 ms)': 'loss',
    });
    const headline = markdown.split('\n').find((l) => l.startsWith("- **Load test, by the reference's winner rule"))!;
    expect(headline).toBeDefined();
    const named = (word: string): string[] => {
      const part = headline.split(/: peak_ewma |; /).find((p) => p.startsWith(`${word} in `));
      return part ? part.slice(`${word} in `.length).replace(/\.$/, '').split(', ') : [];
    };
    // Every outcome in the headline is the table's, and nothing else.
    for (const [word, outcome] of [['wins', 'win'], ['ties', 'tie'], ['loses', 'loss']] as const) {
      expect(named(word).sort()).toEqual(Array.from(table).filter(([, o]) => o === outcome).map(([n]) => n).sort());
    }
    expect(markdown).toContain('  - s02 uniform (8 slots × 60 ms): peak_ewma 390ms');
    expect(markdown).toContain('loss vs round_robin 272ms');
    expect(markdown).toContain('Load test, by the reference\'s rule: 1 wins, 1 ties, 0 splits, 1 losses.');
  });
});

describe("a regime over this machine's budget", () => {
  it('is flagged in its verdicts and not judged on the healthy-fleet bound', () => {
    const { overMachineBudget, MACHINE_BUDGET_RPS } = jest.requireActual('../../scripts/bench/scale') as typeof import('../../scripts/bench/scale');
    const regime = { slots: 2, medianMs: 10, timeFactor: 1, timeScaled: true, backends: 6, perClientRps: 100, clientsPerPolicy: 8 };
    expect(overMachineBudget(regime)).toBe(true);
    expect(overMachineBudget({ ...regime, slots: 1, perClientRps: 50 })).toBe(false);
    expect(MACHINE_BUDGET_RPS).toBeGreaterThan(400);
    const { groupName } = jest.requireActual('../../scripts/bench/verdicts') as typeof import('../../scripts/bench/verdicts');
    expect(groupName('s02', 'uniform', regime)).toMatch(/over this machine's budget/);
    expect(groupName('s02', 'uniform', { ...regime, perClientRps: 50 })).not.toMatch(/budget/);
    expect(groupName('s02', 'reference', regime)).not.toMatch(/budget/);
  });
});

describe('the low-concurrency regimes in the report (issue 15 item 3)', () => {
  const machine = { cpuModel: 'Test CPU', cpus: 2, memoryGiB: 24, platform: 'Linux', node: 'v20', grpcJs: '1.14.7', loadAverage: [1, 1, 1] };
  const timeline = { warmupMs: 2000, measureS: 8, faultStartS: 2, faultEndS: 5 };
  /** A one-policy run at `slots` × 20 ms (time × 2, `timeFactor`) on `backends` backends, 8 clients at `perClientRps`, 8 s timeline window. */
  const low = (id: string, policy: PolicyId, allP99Ms: number, slots: number, backends: number, perClientRps = 25, repeat = 0, timeFactor = 2) => {
    const run = scenario(id, { [policy]: allP99Ms }, repeat);
    return {
      ...run,
      layout: 'uniform' as const,
      timeline,
      scale: { slots, timeFactor, load: 0.7, backends },
      load: { fleetCapacityRps: 286, totalRps: perClientRps * 8, perClientRps },
      backendCount: backends,
      policies: run.policies.map((p) => ({ ...p, clients: 8 })),
    };
  };
  const results = (load: BenchResults['load'], startedAt = '2026-12-01T13:26:05Z'): BenchResults => ({
    startedAt,
    packageSource: 'HEAD abc',
    machine,
    options: parseArgs(['--duration', '8', '--warmup', '2']),
    load,
    pick: null,
    cpu: null,
  });
  const fourPolicies = (id: string, p99: Record<'round_robin' | 'least_request' | 'lr_od' | 'peak_ewma', number>, slots: number, backends: number, perClientRps = 25) =>
    Object.entries(p99).map(([p, v]) => low(id, p as PolicyId, v, slots, backends, perClientRps));

  it("states each chart's own scale in its title: slots, median, backends, clients, rate per scenario, window", () => {
    const { charts } = renderReport(
      results([
        // Runs come in shuffled order (plan.ts); the chart's groups are in scenario order.
        ...fourPolicies('s02', { round_robin: 30, least_request: 31, lr_od: 32, peak_ewma: 31 }, 2, 3),
        ...fourPolicies('s01', { round_robin: 90, least_request: 60, lr_od: 61, peak_ewma: 40 }, 2, 3, 22),
        ...fourPolicies('s02', { round_robin: 40, least_request: 41, lr_od: 42, peak_ewma: 41 }, 1, 6),
      ]),
    );
    const two = charts.find((c) => c.file === 'low-concurrency-2-slot.svg')!;
    const one = charts.find((c) => c.file === 'low-concurrency-1-slot.svg')!;
    // The old title, "p99 all calls, uniform, 2 slots × 10 ms", stated neither the fleet nor the clients nor the window.
    // At time × 2 the title says so, as the 8-slot stand-in's say time × 16, and gives the window in real seconds.
    expect(two.svg).toContain("2 slots, 20 ms median (time × 2: ms ÷ 2 are the reference's units), 3 backends");
    expect(two.svg).toContain('8 clients of one policy at 22 (s01) / 25 (s02) calls/s each');
    expect(two.svg).toContain('16 s window after 4 s warm-up, fault 4–10 s (timeline seconds × 2: 8 s after 2 s, fault 2–5 s)');
    expect(one.svg).toContain('1 slot, 20 ms median (time × 2');
    expect(one.svg).toContain('8 clients of one policy at 25 calls/s each');
    expect(two.caption).toContain('3 backends');
    // Every policy that ran is a bar series.
    for (const name of ['round_robin', 'least_request', 'lr+od', 'peak_ewma']) expect(two.svg).toContain(`>${name}</text>`);
    expect(two.svg.indexOf('>s01</text>')).toBeLessThan(two.svg.indexOf('>s02</text>'));
  });

  it('judges peak_ewma lowest of the client-only policies on s01 and s03, and the 1.05× bound on s02', () => {
    const runs = [
      ...fourPolicies('s01', { round_robin: 90, least_request: 60, lr_od: 61, peak_ewma: 40 }, 2, 3, 22),
      ...fourPolicies('s03', { round_robin: 400, least_request: 50, lr_od: 49, peak_ewma: 49.5 }, 2, 3),
      ...fourPolicies('s02', { round_robin: 30, least_request: 31, lr_od: 32, peak_ewma: 31 }, 2, 3),
    ];
    const verdicts = lowConcurrencyVerdicts(aggregate(runs), runs);
    expect(verdicts.map((v) => [v.target, v.met])).toEqual([
      ["s02 uniform (2 slots × 20 ms): peak_ewma p99 over all calls ≤ 1.05× round_robin's", true],
      ['s01 uniform (2 slots × 20 ms): peak_ewma p99 over all calls lowest of the client-only policies', true],
      // 49.5 vs lr+od's 49: not the lowest, however small the gap.
      ['s03 uniform (2 slots × 20 ms): peak_ewma p99 over all calls lowest of the client-only policies', false],
    ]);
    expect(verdicts[2].detail).toBe('lr+od 49.0ms ≤ peak_ewma 49.5ms ≤ least_request 50.0ms ≤ round_robin 400ms (means of 1 repeat)');
  });

  it('judges the 1.05× bound on its interval over paired repeats: met below it, missed above it, not resolved across it', () => {
    // Repeat i of each policy ran in the same block, with the same service-time seed: a pair.
    const pairs = (peak: readonly number[], rr: readonly number[]) =>
      peak.flatMap((p, i) => [low('s02', 'peak_ewma', p, 1, 6, 25, i), low('s02', 'round_robin', rr[i], 1, 6, 25, i)]);
    const judge = (runs: BenchResults['load']) => lowConcurrencyVerdicts(aggregate(runs), runs).find((v) => v.target.startsWith('s02'))!;
    // Each repeat moves both policies alike; peak_ewma is 1–3 % under round_robin in every pair.
    const under = judge(pairs([60, 90, 75, 120, 66], [61, 92, 77, 122, 68]));
    expect(under.met).toBe(true);
    expect(under.unresolved).toBeUndefined();
    expect(under.detail).toMatch(/^82\.2ms vs 84\.0ms: 0\.98× \[0\.97, 0\.98\] \(ratio of the means over 5 paired repeats/);
    // 20 % over in every pair: missed, the whole interval above the bound.
    expect(judge(pairs([72, 108, 90, 144, 79], [60, 90, 75, 120, 66])).met).toBe(false);
    // Equal means, but one pair 40 % over and one 30 % under: the interval holds 1.05.
    const across = judge(pairs([84, 90, 75, 120, 42], [60, 92, 77, 122, 60]));
    expect(across.met).toBeNull();
    expect(across.unresolved).toBe(true);
    expect(across.detail).toMatch(/^not resolved, the interval holds 1\.05×: /);
    const [low95, high95] = across.detail.match(/\[([\d.]+), ([\d.]+)\]/)!.slice(1).map(Number);
    expect(low95).toBeLessThan(1.05);
    expect(high95).toBeGreaterThan(1.05);
    // In the report's table: "not resolved", and counted apart from what was not measured.
    const markdown = renderReport(results(pairs([84, 90, 75, 120, 42], [60, 92, 77, 122, 60]))).markdown;
    expect(markdown).toContain("| s02 uniform (1 slot × 20 ms): peak_ewma p99 over all calls ≤ 1.05× round_robin's | not resolved | not resolved, the interval holds");
    expect(markdown).toMatch(/1 not resolved, \d+ not measured/);
  });

  it('breaks a tie at the deadline by the share of calls failed: met when the intervals lie apart, not resolved when they overlap', () => {
    // Every policy failed over 1 % of its calls in every repeat: p99 over all calls sits at the deadline for all.
    const failing = (p: PolicyId, errorRates: readonly number[]) =>
      errorRates.map((errorRate, repeat) => {
        const run = low('s01', p, 0, 2, 3, 22, repeat);
        return { ...run, policies: [{ ...policy(p, 0, errorRate), clients: 8 }] };
      });
    const judge = (rates: Partial<Record<PolicyId, readonly number[]>>) =>
      lowConcurrencyVerdicts(aggregate(Object.entries(rates).flatMap(([p, r]) => failing(p as PolicyId, r!))), []).find((v) => v.target.startsWith('s01'))!;
    const others = { least_request: [0.02, 0.021, 0.022], lr_od: [0.019, 0.02, 0.021], round_robin: [0.27, 0.28, 0.29] };
    // peak_ewma fails 1.5 % ± 0.1 against 2.0–2.1 %: apart from each, so lowest.
    const apart = judge({ peak_ewma: [0.014, 0.015, 0.016], ...others });
    expect(apart.met).toBe(true);
    expect(apart.detail).toContain('tied at 500ms, where p99 cannot rank them (1 % or more of calls failed), so the share of calls at the deadline does');
    expect(apart.detail).toMatch(/errors peak_ewma 1\.50% \[[\d.]+%, [\d.]+%\] ≤ lr\+od 2\.00% .* ≤ least_request 2\.10% .* ≤ round_robin 28\.00% .*; peak_ewma failed the fewest, its interval apart from each$/);
    // Fewer on the means, but one repeat at 2.1 %: its interval reaches lr+od's and least_request's, and the data say neither.
    const overlapping = judge({ peak_ewma: [0.012, 0.015, 0.021], ...others });
    expect(overlapping.met).toBeNull();
    expect(overlapping.unresolved).toBe(true);
    expect(overlapping.detail).toMatch(/^not resolved: /);
    expect(overlapping.detail).toMatch(/peak_ewma failed the fewest, but its interval overlaps least_request's and lr\+od's$/);
    // More failed than lr+od: missed.
    const more = judge({ peak_ewma: [0.024, 0.025, 0.026], ...others });
    expect(more.met).toBe(false);
    expect(more.detail).toMatch(/peak_ewma did not fail the fewest$/);
    // One repeat each has no interval to hold apart: not resolved, however far the rates.
    const once = judge({ peak_ewma: [0.015], least_request: [0.021], lr_od: [0.02], round_robin: [0.28] });
    expect(once.met).toBeNull();
    expect(once.unresolved).toBe(true);
    // An equal p99 with under 1 % failed is not a tie at the deadline: not lower, and no tie text.
    const fewFailed = judge({ peak_ewma: [0.005, 0.005], least_request: [0.005, 0.006] });
    expect(fewFailed.met).toBe(false);
    expect(fewFailed.detail).not.toContain('tied');
    // No tie, no tie text.
    const clear = lowConcurrencyVerdicts(aggregate(fourPolicies('s01', { round_robin: 90, least_request: 60, lr_od: 61, peak_ewma: 40 }, 2, 3, 22)), []);
    expect(clear.find((v) => v.target.startsWith('s01'))!.detail).not.toContain('tied');
  });

  it("merges a later session's low-concurrency runs in place of the file's own, keeping every other run and benchmark", () => {
    const reference = scenario('s03', { peak_ewma: 30, round_robin: 400 });
    const base: BenchResults = {
      ...results([
        { ...reference, timeline },
        { ...scenario('s02', { peak_ewma: 30 }), layout: 'uniform' as const, timeline },
        // The session before time × 2 (scale.ts): 10 ms in real time, one of them still on 6 backends × 2 slots.
        low('s02', 'peak_ewma', 261, 2, 6, 100, 0, 1),
        low('s02', 'peak_ewma', 146, 1, 6, 50, 0, 1),
      ]),
      pick: { timerOverheadNs: 50, results: [] },
    };
    const addition = results(
      [...fourPolicies('s01', { round_robin: 90, least_request: 60, lr_od: 61, peak_ewma: 40 }, 2, 3, 22), low('s02', 'round_robin', 40, 1, 6)],
      '2026-12-01T19:38:50Z',
    );
    const merged = mergeLoadRuns(base, addition);
    const describeRun = (r: BenchResults['load'][number]) => `${r.layout} ${r.scenario} ${r.policies[0].policy} ${'slots' in r.scale ? r.scale.slots : '?'}/${r.backendCount}`;
    // The time × 1 runs go, the old 2-slot regime on 6 backends with them, though the new runs are at time × 2 and 3
    // backends; the stand-in's uniform run (8 slots, time × 16) stays.
    expect(merged.load.map(describeRun)).toEqual([
      'reference s03 peak_ewma 8/20',
      'uniform s02 peak_ewma 8/20',
      'uniform s01 round_robin 2/3',
      'uniform s01 least_request 2/3',
      'uniform s01 lr_od 2/3',
      'uniform s01 peak_ewma 2/3',
      'uniform s02 round_robin 1/6',
    ]);
    expect(merged.pick).toBe(base.pick);
    expect(merged.startedAt).toBe(base.startedAt);
    expect(merged.merged).toEqual([{ startedAt: '2026-12-01T19:38:50Z', packageSource: 'HEAD abc', loadAverage: [1, 1, 1], kinds: ['low-concurrency'], runs: 5, repeats: 5 }]);
    const { markdown } = renderReport(merged);
    expect(markdown).toContain("The low-concurrency runs (5, 5 repeats) are a later session's, measured 2026-12-01 19:38 UTC");
    expect(markdown).toContain("This report's load test is 7 runs, in 2 sessions");
    // Each session's own repeat count, not the first session's for all.
    expect(markdown).toMatch(/in 2 sessions \(\d+ repeats? of each of this file's own runs, 5 repeats of each merged one, interleaved/);
    // Once cell merges have replaced every one of its runs, that session is no longer described ("0 of its 5").
    const later = results([...fourPolicies('s01', { round_robin: 91, least_request: 61, lr_od: 62, peak_ewma: 41 }, 2, 3, 22), low('s02', 'round_robin', 41, 1, 6)], '2026-12-05T13:13:00Z');
    const partly = renderReport(mergeLoadCells(merged, [later], { scenarios: ['s01'] })).markdown;
    expect(partly).toContain("The low-concurrency runs (1 of its 5, 5 repeats; the others pooled by cell below) are a later session's");
    const wholly = renderReport(mergeLoadCells(merged, [later], { scenarios: ['s01', 's02'] })).markdown;
    expect(wholly).not.toMatch(/The low-concurrency runs \(/);
    expect(wholly).toContain('pooled from 1 session with `--merge-cells`');
    // A switch measured with --peak-ewma-config is not peak_ewma's defaults: it stays out of the report.
    expect(() => mergeLoadRuns(base, { ...addition, options: { ...addition.options, peakEwmaConfig: { rotationMargin: 0.25 } } })).toThrow(
      /--peak-ewma-config/,
    );
    // Nor are callers that retry: the reference's do not.
    expect(() => mergeLoadRuns(base, { ...addition, options: { ...addition.options, retryAttempts: 2 } })).toThrow(/--retry-attempts/);
    // The session's load while it ran, not only at its start.
    expect(markdown).toContain("load average at start 1 / 1 / 1 (at its runs' starts: median 1.0, range 1–1)");
    // The fixture's clients stall 5 ms (p99): a quarter of a 20 ms median, so every low-concurrency run is flagged.
    expect(markdown).toMatch(
      /\*\*2 slots × 20 ms\*\*, uniform layout: 2 slots, 20 ms median \(time × 2\), 3 backends, 8 clients per policy at 22 calls\/s; its own regime, not the reference's: its numbers compare only with each other; time × 2: ms ÷ 2 are in the reference's units \(10 ms median\); warm-up 4 s, measurement 16 s, fault 4 s–10 s \(timeline 2 \/ 8 \/ 2–5 s × 2\)\..* Event-loop delay p99 above 10% of the median in 4 of 4 runs/,
    );
    // The simulator's run stays the base's, unless the addition brings reference-layout runs: it is their yardstick.
    const simulated = (source: string) => ({ source, rows: [] });
    expect(mergeLoadRuns({ ...base, simulator: simulated('base') }, { ...addition, simulator: simulated('addition') }).simulator).toEqual(simulated('base'));
    const withReference = { ...addition, load: [...addition.load, { ...reference, timeline }], simulator: simulated('addition') };
    expect(mergeLoadRuns({ ...base, simulator: simulated('base') }, withReference).simulator).toEqual(simulated('addition'));
    // Merging again replaces the first merge's runs and its note, not adds to them.
    const again = mergeLoadRuns(merged, addition);
    expect(again.load).toHaveLength(7);
    expect(again.merged).toHaveLength(1);
    // One report, one timeline.
    const longer = results([{ ...low('s02', 'round_robin', 40, 1, 6), timeline: { ...timeline, measureS: 45 } }]);
    expect(() => mergeLoadRuns(base, longer)).toThrow(/timelines differ/);
    expect(() => parseArgs(['--merge-load', 'x.json'])).toThrow(/needs --report-from/);
    expect(parseArgs(['--report-from', 'a.json', '--merge-load', 'b.json']).mergeLoad).toBe('b.json');
  });

  it("takes a later session's overhead benchmarks in place of the file's own, each one it ran, and says whose they are", () => {
    const base: BenchResults = { ...results([low('s02', 'round_robin', 40, 1, 6)]), pick: { timerOverheadNs: 50, results: [] }, cpu: [], update: null };
    const pickOnly: BenchResults = { ...results([], '2026-12-04T16:40:00Z'), pick: { timerOverheadNs: 47, results: [] }, cpu: null };
    const merged = mergeOverhead(base, pickOnly);
    expect(merged.pick).toBe(pickOnly.pick);
    expect(merged.cpu).toBe(base.cpu);
    expect(merged.load).toBe(base.load);
    expect(merged.overheadMerged).toEqual([{ startedAt: '2026-12-04T16:40:00Z', packageSource: 'HEAD abc', loadAverage: [1, 1, 1], suites: ['pick'] }]);
    expect(renderReport(merged).markdown).toContain('Measured 2026-12-01, parts re-measured up to 2026-12-04 (each named below) on 2 ×');
    expect(renderReport(base).markdown).toContain('Measured 2026-12-01 on 2 ×');
    expect(renderReport(merged).markdown).toContain(
      "The overhead benchmarks (pick path) are a later session's, measured 2026-12-04 16:40 UTC with the package built from HEAD abc, load average at start 1 / 1 / 1, merged in with `--merge-overhead`",
    );
    // A later session's CPU per RPC: the pick path stays the first merge's.
    const cpuOnly: BenchResults = { ...results([], '2026-12-05T09:00:00Z'), pick: null, cpu: [] };
    expect(mergeOverhead(merged, cpuOnly).overheadMerged!.map((s) => [s.startedAt, s.suites])).toEqual([
      ['2026-12-04T16:40:00Z', ['pick']],
      ['2026-12-05T09:00:00Z', ['cpu']],
    ]);
    expect(() => mergeOverhead(base, { ...results([]), pick: null, cpu: null })).toThrow(/no overhead benchmark/);
    expect(() => parseArgs(['--merge-overhead', 'x.json'])).toThrow(/needs --report-from/);
  });

  it('pools several sessions of one cell in place of the file\'s own, each session\'s pairs kept apart, stalled repeats dropped by a bound', () => {
    const stalled = <R extends BenchResults['load'][number]>(run: R, maxMs: number): R => ({ ...run, backendLoopDelayMs: { p99: 5, max: maxMs } });
    // The file's own one-slot s02: three repeats of all four policies, its third repeat stalled 254 ms in peak_ewma's run.
    const own = [0, 1, 2].flatMap((i) => [
      i === 2 ? stalled(low('s02', 'peak_ewma', 180, 1, 6, 25, i), 254) : low('s02', 'peak_ewma', 80, 1, 6, 25, i),
      low('s02', 'round_robin', 70, 1, 6, 25, i),
      low('s02', 'least_request', 100, 1, 6, 25, i),
    ]);
    const base = results([...own, ...fourPolicies('s01', { round_robin: 900, least_request: 400, lr_od: 410, peak_ewma: 150 }, 1, 6, 22)]);
    // Two later sessions of peak_ewma and round_robin only; in each, peak_ewma is 10 % under round_robin repeat by repeat.
    const pair = (i: number, rr: number) => [low('s02', 'peak_ewma', rr * 0.9, 1, 6, 25, i), low('s02', 'round_robin', rr, 1, 6, 25, i)];
    const later = results([...pair(0, 60), ...pair(1, 100)], '2026-12-04T14:21:24Z');
    const latest = { ...results([...pair(0, 140), ...pair(1, 80), stalled(low('s02', 'peak_ewma', 50, 1, 6, 25, 2), 150), low('s02', 'round_robin', 300, 1, 6, 25, 2)], '2026-12-04T15:05:04Z') };
    latest.options = { ...latest.options, maxStallMs: 100 };
    const merged = mergeLoadCells(base, [base, later, latest], { scenarios: ['s02'], dropStalledMs: 100 });
    const group = 's02 uniform 1x20/6';
    const repeatsOf = (policy: PolicyId) =>
      merged.load.filter((r) => r.scenario === 's02' && r.policies[0].policy === policy).map((r) => `${r.repeat}:${r.policies[0].headline.allLatency.p99Ms}`);
    // The file's stalled third repeat goes with all its runs; each later session's repeats follow the one before, in pairs.
    expect(repeatsOf('round_robin')).toEqual(['0:70', '1:70', '2:60', '3:100', '4:140', '5:80']);
    expect(repeatsOf('peak_ewma')).toEqual(['0:80', '1:80', '2:54', '3:90', '4:126', '5:72']);
    expect(repeatsOf('least_request')).toEqual(['0:100', '1:100']);
    // Cells no file to merge measured (s01 here: --merge-scenario s02) stay the file's own.
    expect(merged.load.filter((r) => r.scenario === 's01')).toEqual(base.load.filter((r) => r.scenario === 's01'));
    // The verdict pairs within a session only: 6 pairs, the two of the file's own 80 / 70 and four at 0.9.
    const verdict = lowConcurrencyVerdicts(aggregate(merged.load), merged.load).find((v) => v.target.startsWith('s02'))!;
    expect(verdict.detail).toMatch(/ratio of the means over 6 paired repeats/);
    expect(verdict.detail).toContain('83.7ms vs 86.7ms: 0.97× [');
    expect(merged.merged!.map((s) => [s.startedAt, s.runs, s.cells, s.dropped])).toEqual([
      ['2026-12-01T13:26:05Z', 6, { [`${group} round_robin`]: 2, [`${group} least_request`]: 2, [`${group} peak_ewma`]: 2 }, [{ group, repeat: 2, stallMs: 254 }]],
      ['2026-12-04T14:21:24Z', 4, { [`${group} round_robin`]: 2, [`${group} peak_ewma`]: 2 }, []],
      ['2026-12-04T15:05:04Z', 4, { [`${group} round_robin`]: 2, [`${group} peak_ewma`]: 2 }, [{ group, repeat: 2, stallMs: 150 }]],
    ]);
    const { markdown } = renderReport(merged);
    expect(markdown).toContain(
      'The runs of s02 uniform (1 slot × 20 ms, 6 backends) are pooled from 3 sessions with `--merge-cells`, numbered apart so that each session\'s runs pair only with their own: ' +
        '2026-12-01 13:26 UTC, HEAD abc: 2 repeats of round_robin, least_request, peak_ewma (no stall rule; dropped for a stall: #3 254 ms); ' +
        '2026-12-04 14:21 UTC, HEAD abc: 2 repeats of round_robin, peak_ewma (no stall rule); ' +
        '2026-12-04 15:05 UTC, HEAD abc: 2 repeats of round_robin, peak_ewma (stall rule 100 ms; dropped for a stall: #3 150 ms). ' +
        "A repeat in which any run's event loop stalled longer than 100 ms was dropped with every run of it (`--drop-stalled`), in each session alike.",
    );
    // A group whose policies stand on different counts says so.
    expect(markdown).toMatch(/\*\*s02 [^*]+\*\* \(uniform layout; /);
    expect(markdown).toContain('(uniform layout; 1 slot, 20 ms median (time × 2), 6 backends, 8 clients per policy at 25 calls/s; 6 repeats (2 of least_request))');
    // Merging the same cells again replaces their sessions; a session keeps the cells still its (here least_request).
    const again = mergeLoadCells(merged, [later], { scenarios: ['s02'] });
    expect(again.merged!.map((s) => [s.startedAt, s.cells])).toEqual([
      ['2026-12-01T13:26:05Z', { [`${group} least_request`]: 2 }],
      ['2026-12-04T14:21:24Z', { [`${group} round_robin`]: 2, [`${group} peak_ewma`]: 2 }],
    ]);
    expect(again.load.filter((r) => r.scenario === 's02').map((r) => `${r.policies[0].policy}#${r.repeat}`).sort()).toEqual([
      'least_request#0', 'least_request#1', 'peak_ewma#2', 'peak_ewma#3', 'round_robin#2', 'round_robin#3',
    ]);
    // A file with peak_ewma alone pairs with nothing of another session: its repeats follow the base's round_robin.
    const alone = mergeLoadCells(base, [results([low('s02', 'peak_ewma', 50, 1, 6, 25, 0)], '2026-12-05T09:00:00Z')], { scenarios: ['s02'] });
    expect(alone.load.filter((r) => r.scenario === 's02').map((r) => `${r.policies[0].policy}#${r.repeat}`)).toEqual([
      'round_robin#0', 'least_request#0', 'round_robin#1', 'least_request#1', 'round_robin#2', 'least_request#2', 'peak_ewma#3',
    ]);
    expect(lowConcurrencyVerdicts(aggregate(alone.load), alone.load).find((v) => v.target.startsWith('s02'))!.met).toBeNull();
    // Runs measured with a switch are refused, as by --merge-load.
    expect(() => mergeLoadCells(base, [{ ...later, options: { ...later.options, peakEwmaConfig: { rotationGate: 0 } } }])).toThrow(/file 1 to merge ran peak_ewma with --peak-ewma-config/);
    expect(() => mergeLoadCells(base, [later], { scenarios: ['s03'] })).toThrow(/no load-test runs of s03/);
    expect(() => parseArgs(['--merge-cells', 'x.json'])).toThrow(/needs --report-from/);
    expect(() => parseArgs(['--report-from', 'a.json', '--drop-stalled', '100'])).toThrow(/needs --merge-cells/);
    const parsed = parseArgs(['--report-from', 'a.json', '--merge-cells', 'b.json,c.json', '--merge-scenario', 's02', '--drop-stalled', '100']);
    expect([parsed.mergeCells, parsed.mergeScenarios, parsed.dropStalledMs]).toEqual([['b.json', 'c.json'], ['s02'], 100]);
  });

  it('--merge-cells @LIST takes the files a list names, one a line, comments and blank lines aside', () => {
    const dir = mkdtempSync(join(tmpdir(), 'merge-list-'));
    try {
      const listPath = join(dir, 'sets.txt');
      writeFileSync(listPath, '# why these\nb.json\n\n  c.json  # the second session\n');
      expect(parseArgs(['--report-from', 'a.json', '--merge-cells', `@${listPath}`]).mergeCells).toEqual(['b.json', 'c.json']);
      writeFileSync(listPath, '# nothing yet\n');
      expect(() => parseArgs(['--report-from', 'a.json', '--merge-cells', `@${listPath}`])).toThrow(/the list names no file/);
      expect(() => parseArgs(['--report-from', 'a.json', '--merge-cells', `@${join(dir, 'missing.txt')}`])).toThrow(/cannot read the list/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the identical-fleet lists name only files that exist, each once, and no set in both (each list is one engine's)", () => {
    const read = (list: string) => parseArgs(['--report-from', 'a.json', '--merge-cells', `@${list}`]).mergeCells!;
    const earlier = read('docs/benchmarks/identical-fleet-sets.txt');
    const today = read('docs/benchmarks/identical-fleet-sets-2026-12-05-defaults.txt');
    expect(earlier.length).toBeGreaterThan(30);
    expect(today.length).toBeGreaterThanOrEqual(20);
    for (const listed of [earlier, today]) {
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed.filter((file) => !existsSync(file))).toEqual([]);
    }
    expect(today.filter((file) => earlier.includes(file))).toEqual([]);
  });
});

describe('runTitle', () => {
  const timeline = { warmupMs: 2000, measureS: 8, faultStartS: 2, faultEndS: 5 };
  it("states the run's own fault length wherever the summary says the reference's 40 s", () => {
    expect(runTitle({ title: 'pod 0 5x slower for 40 s', timeline, faultWindow: true, backendCount: 20 })).toBe('pod 0 5x slower for 3 s');
    // s14's summary goes on after the fault (found by a measurement audit: it read "for 40 s; … for 3 s").
    expect(runTitle({ title: "pod 0 5x slower for 40 s; s13's five methods", timeline, faultWindow: true, backendCount: 20 })).toBe(
      "pod 0 5x slower for 3 s; s13's five methods",
    );
    expect(runTitle({ title: 'pod 0 slower', timeline, faultWindow: true, backendCount: 20 })).toBe('pod 0 slower for 3 s');
    expect(runTitle({ title: '20 identical pods', timeline, faultWindow: false, backendCount: 20 })).toBe('20 identical pods');
  });
});
