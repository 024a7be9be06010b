/**
 * judge.ts's tables, on small hand-made judgements: the means it judges on,
 * the targets it counts and marks, and the per-method rows of issue 16.
 */
import { goodputSummary, gridSection, Judgement, smallFleetSection, JudgedResult, JudgedSeed, meanRegimes, methodsSection, referenceSection, ReferenceSeed, scaleSection, targetsMet, unlikeJudgements } from '../../scripts/sim/judge-report';
import { ScoredResult } from '../../scripts/sim/reference-targets';

const r = (p99All: number, errorRate = 0, recoverySeconds: number | null = null): JudgedResult => ({ p99: p99All, p999: p99All, p99All, errorRate, recoverySeconds, busiestP95: 1 });

/** One cell (1 slot × 8 clients) with round_robin and least_request fixed and peak_ewma's p99s given. */
function gridSeed(seed: number, peak: { s01: number; s02: number }): JudgedSeed {
  return {
    seed,
    regimes: {
      '1x8': {
        's02-steady-identical': { round_robin: r(30), least_request: r(50), peak_ewma: r(peak.s02) },
        's01-steady-uneven': { round_robin: r(500), least_request: r(60), peak_ewma: r(peak.s01) },
      },
    },
    methods: { uniform: {}, reference: {} },
  };
}

const judgement = (...seeds: JudgedSeed[]): Judgement => ({ meta: {}, seeds });

describe('meanRegimes', () => {
  it('averages each p99All over the seeds, and leaves out what a seed lacks', () => {
    const a = gridSeed(1, { s01: 30, s02: 30 });
    const b = gridSeed(2, { s01: 50, s02: 31 });
    delete b.regimes['1x8']['s01-steady-uneven'].least_request;
    const mean = meanRegimes([a, b]);
    expect(mean['1x8']['s01-steady-uneven'].peak_ewma.p99All).toBe(40);
    expect(mean['1x8']['s02-steady-identical'].peak_ewma.p99All).toBe(30.5);
    expect(mean['1x8']['s01-steady-uneven'].least_request).toBeUndefined();
  });

  it('reads a percentile a seed could not take (NaN, null in the JSON) as none, not as 0 ms', () => {
    const a = gridSeed(1, { s01: 30, s02: 30 });
    const b = gridSeed(2, { s01: 50, s02: 31 });
    // Seed 2's peak_ewma had no OK call in s01: its OK-call p99 was NaN, written as null.
    (b.regimes['1x8']['s01-steady-uneven'].peak_ewma as { p99: number | null }).p99 = null;
    const mean = meanRegimes(JSON.parse(JSON.stringify([a, b])));
    expect(mean['1x8']['s01-steady-uneven'].peak_ewma.p99).toBeNaN();
    expect(mean['1x8']['s01-steady-uneven'].peak_ewma.p99All).toBe(40);
  });
});

describe('gridSection', () => {
  // s02: peak 30.5 vs round_robin 30 (≤ 1.02: met); s01: bound 1.3 × 30 = 39.
  const after = judgement(gridSeed(1, { s01: 36, s02: 30 }), gridSeed(2, { s01: 40, s02: 31 }));
  const before = judgement(gridSeed(1, { s01: 70, s02: 40 }), gridSeed(2, { s01: 70, s02: 40 }));

  it('counts the targets on the means and at the first seed', () => {
    // Means: s02 30.5 ≤ 30.6 met; s01 38 ≤ 39 met; 38 < 60 met.
    expect(targetsMet(meanRegimes(after.seeds))).toEqual({ met: 3, of: 3 });
    // Before: s02 40 > 30.6; s01 70 > 39 and 70 ≥ 60.
    expect(targetsMet(meanRegimes(before.seeds))).toEqual({ met: 0, of: 3 });
  });

  it('shows before → after per scenario, marks what the after values miss, and sums up', () => {
    const text = gridSection(after, before);
    expect(text).toContain('| 1 × 8 | 30.0 | 70.0 → 38.0 | 40.0 → 30.5 |');
    expect(text).toContain('targets met: 0 → 3 of 3 on the 2-seed means; 0 → 3 at seed 1');
    const missing = judgement(gridSeed(1, { s01: 62, s02: 30 }));
    // Over 1.3 × 30 (✗) and not below least_request's 60 (†).
    expect(gridSection(missing)).toContain('| 1 × 8 | 30.0 | 62.0 ✗† | 30.0 |');
    // These judgements have no pooled figures (as those written before them): no pooled line.
    expect(text).not.toContain('pooled');
  });

  it('judges the same targets on the pooled p99 when the judgements carry it, in one line', () => {
    // Pooled: round_robin's healthy fleet 45 instead of 30 (the fixed-period effect), so s01's bound is 58.5.
    const pooled = (seed: JudgedSeed, pooledPeak: { s01: number; s02: number }): JudgedSeed => {
      const cell = seed.regimes['1x8'];
      cell['s02-steady-identical'].round_robin.p99AllPooled = 45;
      cell['s02-steady-identical'].least_request.p99AllPooled = 60;
      cell['s02-steady-identical'].peak_ewma.p99AllPooled = pooledPeak.s02;
      cell['s01-steady-uneven'].round_robin.p99AllPooled = 500;
      cell['s01-steady-uneven'].least_request.p99AllPooled = 70;
      cell['s01-steady-uneven'].peak_ewma.p99AllPooled = pooledPeak.s01;
      return seed;
    };
    // Before: the reference's metric misses s01 (62 > 39) and so does the pooled one (62 > 58.5); s02 47 > 45.9 misses.
    const was = judgement(pooled(gridSeed(1, { s01: 62, s02: 30 }), { s01: 62, s02: 47 }));
    // After: s01 55 still misses the reference's bound but meets the pooled one, below least_request's 70; s02 45 met.
    const now = judgement(pooled(gridSeed(1, { s01: 55, s02: 30 }), { s01: 55, s02: 45 }));
    const text = gridSection(now, was);
    expect(text).toContain('targets met: 1 → 2 of 3 on the 1-seed means');
    expect(text).toContain("on the pooled p99 (every client's calls in one histogram): 1 → 3 of 3 on the 1-seed means");
    expect(targetsMet(meanRegimes(now.seeds, 'p99AllPooled'))).toEqual({ met: 3, of: 3 });
  });
});

describe('unlikeJudgements (judge --compare refuses what did not measure alike)', () => {
  const seeds = (...numbers: number[]) => numbers.map((n) => gridSeed(n, { s01: 36, s02: 30 }));
  const full: Judgement = { meta: { quick: false, sections: ['grid'] }, seeds: seeds(1, 2, 3, 4, 5) };

  it('finds nothing between two judgements of the same timeline, seeds and sections, whatever their arrivals', () => {
    expect(unlikeJudgements(full, { ...full, meta: { ...full.meta, arrivals: 'closed' } })).toEqual([]);
    // One side without the reference regime: its section shows the other alone.
    const reference: ReferenceSeed[] = [];
    expect(unlikeJudgements(full, { ...full, reference })).toEqual([]);
  });

  it('names a quick timeline, other seeds and a client stall, not other sections', () => {
    // The audit's case: a --quick judgement of seeds 4 and 5 against a full one of 1–5 printed "1 → 3".
    const quick: Judgement = { meta: { quick: true, sections: ['grid'] }, seeds: seeds(4, 5) };
    expect(unlikeJudgements(quick, full)).toEqual(['timeline (--quick): before true, after false', 'grid seeds: before [4,5], after [1,2,3,4,5]']);
    expect(unlikeJudgements(full, { ...full, meta: { ...full.meta, sections: ['grid', 'methods'], clientStall: { ms: 5 } } })).toEqual([
      'client stall: before null, after {"ms":5}',
    ]);
    // Sections in another order, or none recorded (judgements written before --sections): alike.
    expect(unlikeJudgements({ ...full, meta: { sections: ['methods', 'grid'] } }, { ...full, meta: { sections: ['grid', 'methods'] } })).toEqual([]);
    expect(unlikeJudgements({ ...full, meta: {} }, full)).toEqual([]);
  });

  it('labels the first-seed count with each side\'s own first seed when they differ', () => {
    const quick: Judgement = { meta: {}, seeds: seeds(4, 5) };
    expect(gridSection(full, quick)).toContain('at seed 4 → 1');
    expect(gridSection(full, full)).toMatch(/at seed 1(?! →)/);
  });
});

describe('smallFleetSection', () => {
  /** One seed with the grid's cell and a small fleet (3 backends × 2 slots) whose brownout is given. */
  const withFleet = (seed: number, brownout: JudgedResult, uneven: JudgedResult = { ...r(500, 0.014), p99: 100 }): JudgedSeed => ({
    ...gridSeed(seed, { s01: 36, s02: 30 }),
    smallFleets: {
      '3b-2x8': {
        's02-steady-identical': { round_robin: r(25), least_request: r(29), lr_od: r(29), peak_ewma: r(25) },
        's03-brownout': { round_robin: r(500, 0.33), least_request: r(315), lr_od: r(316), peak_ewma: brownout },
        's01-steady-uneven': { round_robin: r(500, 0.27), least_request: { ...r(500, 0.019), p99: 130 }, lr_od: r(500, 0.02), peak_ewma: uneven },
      },
    },
  });

  it('judges the small fleets apart from the grid, names the best rival, and shows a regression like 2026-12-05 morning\'s', () => {
    const tipped = judgement(withFleet(1, r(395), { ...r(500, 0.017), p99: 70 }), withFleet(2, r(395), { ...r(500, 0.017), p99: 80 }));
    const fixed = judgement(withFleet(1, r(94)), withFleet(2, r(94)));
    const text = smallFleetSection(fixed, tipped);
    expect(text).toContain('| 3 backends × 2 slots, 8 clients | 25.0 |');
    // The brownout: over the bound (1.3 × 25) both times, behind least_request before (†), ahead after.
    expect(text).toContain('| 395.0 → 94.0 ✗ (least_request 315.0) |');
    // The uneven fleet ties at the deadline: the fewer failures lead, and the best rival is the one with
    // fewer failures; what each p99 at the deadline hides is shown, before and after (a trade of the kind
    // the small fleet's median made: fewer failures, slower successes).
    expect(text).toContain("500.0, 1.70 % failed, OK calls' p99 75.0 → 500.0, 1.40 % failed, OK calls' p99 100.0 ✗ (least_request 500.0, 1.90 % failed, OK calls' p99 130.0)");
    expect(text).toContain('targets met: 2 → 3 of 5 on the 2-seed means');
    // The grid's own count is not touched by the small fleets.
    expect(gridSection(fixed)).toContain('targets met: 3 of 3');
  });

  it('says nothing for judgements without small fleets (written before them, or with --sections grid)', () => {
    expect(smallFleetSection(judgement(gridSeed(1, { s01: 36, s02: 30 })))).toBe('');
  });
});

describe('goodputSummary', () => {
  const withGoodput = (seed: JudgedSeed, ours: { s01: number; s02: number }): JudgedSeed => {
    const cell = seed.regimes['1x8'];
    cell['s02-steady-identical'].round_robin.goodputRps = 100;
    cell['s02-steady-identical'].peak_ewma.goodputRps = ours.s02;
    cell['s01-steady-uneven'].round_robin.goodputRps = 50;
    cell['s01-steady-uneven'].peak_ewma.goodputRps = ours.s01;
    return seed;
  };

  it("with callers that wait (closed loop), gives peak_ewma's OK calls/s over round_robin's per scenario, as means over the seeds (two here: s01 (90 + 100) / 2 = 95 against 50)", () => {
    const closed: Judgement = {
      meta: { arrivals: 'closed' },
      seeds: [withGoodput(gridSeed(1, { s01: 36, s02: 30 }), { s01: 90, s02: 98 }), withGoodput(gridSeed(2, { s01: 36, s02: 30 }), { s01: 100, s02: 100 })],
    };
    // s01: 95 / 50; s02: 99 / 100.
    expect(goodputSummary(closed)).toBe('\n\ngoodput (OK calls/s), peak_ewma ÷ round_robin over the cells: s01 1.900–1.900 (lowest at 1 × 8); s02 0.990–0.990 (lowest at 1 × 8)');
    expect(gridSection(closed)).toContain('goodput (OK calls/s)');
  });

  it('says nothing for open-loop judgements, whose rate is set, or without goodput', () => {
    const open: Judgement = { meta: {}, seeds: [withGoodput(gridSeed(1, { s01: 36, s02: 30 }), { s01: 90, s02: 98 })] };
    expect(goodputSummary(open)).toBe('');
    expect(goodputSummary({ meta: { arrivals: 'closed' }, seeds: [gridSeed(1, { s01: 36, s02: 30 })] })).toBe('');
  });
});

describe('methodsSection', () => {
  function methodsSeed(seed: number, ping: number, list: number, listMisses: number, recovery: number | null): JudgedSeed {
    const withMethods = (pingMs: number, listMs: number, misses: number, errorRate: number): JudgedResult => ({
      ...r(0, errorRate, recovery),
      methods: { U1_ping: { p99All: pingMs, errorRate: 0.001 }, U50_list: { p99All: listMs, errorRate: misses } },
    });
    return {
      seed,
      regimes: {},
      methods: {
        uniform: { 's14-brownout-five-methods': { peak_ewma: withMethods(ping, list, listMisses, 0.002), least_request: withMethods(400, list, 0.02, 0.01) } },
        reference: {},
      },
    };
  }

  it('gives per-method means, the worst method per seed, recovery by seed, and where a rival is as low', () => {
    const text = methodsSection(judgement(methodsSeed(1, 90, 200, 0.004, 5), methodsSeed(2, 100, 220, 0.008, null)));
    expect(text).toContain('p99All per method (ms): U1_ping / U50_list');
    // least_request's list p99All equals ours at every seed: as low.
    expect(text).toContain('| s14 uniform | 95.0 / 210.0 | 0.40 %–0.80 % | 0.200 % | 5 – | U50_list |');
  });

  it('puts the before row above the after row', () => {
    const text = methodsSection(judgement(methodsSeed(1, 90, 200, 0.004, 5)), judgement(methodsSeed(1, 120, 300, 0.01, 9)));
    expect(text.indexOf('s14 uniform, before | 120.0 / 300.0')).toBeGreaterThan(0);
    expect(text.indexOf('s14 uniform, after | 90.0 / 200.0')).toBeGreaterThan(text.indexOf('s14 uniform, before'));
  });
});

describe('referenceSection', () => {
  const at = (p99: number, recoverySeconds: number | null = null, errorRate = 0, lostShareSeconds?: number): ScoredResult => ({ p99, p999: 2 * p99, p99All: p99, errorRate, recoverySeconds, lostShareSeconds, busiestP95: 1.05 });
  /** s01 at `s01` ms against s02's 20: the reference ratio the sweep scores; s03's healed pod lacking `lostS03` s of its share. */
  function referenceSeed(seed: number, s01: number, recovery: number | null, lostS03?: number): ReferenceSeed {
    const ours = (p99: number, r: number | null = null, e = 0, lost?: number) => ({ peak_ewma: at(p99, r, e, lost), lr_od: at(40) });
    return {
      seed,
      results: {
        reference: {
          's01-steady-uneven': ours(s01),
          's02-steady-identical': ours(20),
          's03-brownout': ours(20, recovery, 0, lostS03),
          's04-crash-loop': ours(20, 4, 0.0005, lostS03 === undefined ? undefined : 0.6),
          's10-node-cpu-contention': ours(22, 3, 0, lostS03 === undefined ? undefined : 0.7),
        },
        uniform: { 's01-steady-uneven': ours(24), 's02-steady-identical': ours(20), 's10-node-cpu-contention': ours(22) },
      },
    };
  }

  it('scores each judgement over its seeds, as the sweep does, before above after', () => {
    const before: Judgement = { meta: {}, seeds: [], reference: [referenceSeed(1, 30, 6), referenceSeed(2, 26, null)] };
    const after: Judgement = { meta: {}, seeds: [], reference: [referenceSeed(1, 21, 4, 1.2), referenceSeed(2, 23, 3, 0.5)] };
    const text = referenceSection(after, before);
    // s01 ÷ s02: (30 + 26) / 2 / 20 = 1.4 before, (21 + 23) / 2 / 20 = 1.1 after; s03 recovery mean (worst), never = 99;
    // the lost share, a mean over seeds ((1.2 + 0.5) / 2 in s03), NaN for a judgement written before it was kept.
    expect(text).toContain('| before | 1.400 1.100 1.000 | 0.70 | 52.5(99) 4.0(4) 3.0(3) | NaN NaN NaN | 0.050% |');
    expect(text).toContain('| after | 1.100 1.100 1.000 | 0.55 | 3.5(4) 4.0(4) 3.0(3) | 0.85 0.60 0.70 | 0.050% |');
    expect(text.indexOf('| before |')).toBeLessThan(text.indexOf('| after |'));
    expect(referenceSection({ meta: {}, seeds: [] })).toBe('');
  });

  it('scores a p99 read back as null (no OK call to rank) as none, not as a 0 ms one that wins', () => {
    const seed2 = referenceSeed(2, 23, 3, 0.5);
    (seed2.results.reference['s01-steady-uneven'].peak_ewma as { p99: number | null }).p99 = null;
    const after: Judgement = JSON.parse(JSON.stringify({ meta: {}, seeds: [], reference: [referenceSeed(1, 21, 4, 1.2), seed2] }));
    // s01's ratio was (21 / 20 + 0) / 2 = 0.525, a pass far under its 1.2 target.
    expect(referenceSection(after)).toContain('|  | NaN 1.100 1.000 |');
  });
});

describe('scaleSection', () => {
  const tail = (p99: number, errorRate = 0.001) => ({ p50: 10, p99, p999: 3 * p99, p99All: p99 + 1, errorRate });

  it('shows each policy before → after, and a policy the before side lacks alone', () => {
    const before: Judgement = { meta: {}, seeds: [gridSeed(1, { s01: 40, s02: 30 })], scale: { round_robin: tail(226.9, 0.19), peak_ewma: tail(28.3) } };
    const after: Judgement = { meta: {}, seeds: [gridSeed(1, { s01: 40, s02: 30 })], scale: { round_robin: tail(226.9, 0.19), peak_ewma: tail(25.7, 0.0017), least_request: tail(200.6) } };
    const text = scaleSection(after, before);
    expect(text).toContain('| peak_ewma | 28.30 → 25.70 | 84.90 → 77.10 | 29.30 → 26.70 | 0.10 % → 0.17 % |');
    expect(text).toContain('| round_robin | 226.90 → 226.90 |');
    expect(text).toContain('| least_request | 200.60 | 601.80 | 201.60 | 0.10 % |');
    expect(scaleSection(after)).toContain('| peak_ewma | 25.70 | 77.10 | 26.70 | 0.17 % |');
  });

  it('prints nothing for a judgement without a scale run, and a tail read back as null as –', () => {
    expect(scaleSection(judgement(gridSeed(1, { s01: 40, s02: 30 })))).toBe('');
    const after: Judgement = JSON.parse(JSON.stringify({ meta: {}, seeds: [gridSeed(1, { s01: 40, s02: 30 })], scale: { peak_ewma: { ...tail(25.7), p99: NaN } } }));
    expect(scaleSection(after)).toContain('| peak_ewma | – | 77.10 |');
  });
});
