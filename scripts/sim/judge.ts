/**
 * Judging an engine change: every change is measured across the regime grid
 * (issue 15), on the many-method scenarios (issue 16) and against the
 * reference regime's targets (8 slots × 8 clients, as sweep.ts scores
 * them), over several seeds, side by side with the commit before. This
 * runs them on the checkout it is started from and prints (or compares)
 * the tables that docs/tuning-log.md records.
 *
 *   npx tsx scripts/sim/judge.ts --json after.json [--seeds 5] [--reference-seeds 10] [--policy SPEC] [--client-stall MS/EVERY]
 *                                [--arrivals fixed|poisson|closed [--workers K]] [--quick] [--jobs N]
 *                                [--sections grid,small-fleets,methods,scale]
 *   npx tsx scripts/sim/judge.ts --compare before.json after.json
 *
 * Measure the commit before in a second worktree (its own src/) and the
 * change in this one, then compare. One seed of the grid with the four
 * policies is about 35 s of wall time on two cores, the many-method
 * scenarios about 15 s more, a reference seed about 10 s: the defaults
 * (5 and 10 seeds) take about four minutes. The small fleets (the load
 * test's layouts, regimes.ts SMALL_FLEETS) add about 5 s; `--sections
 * small-fleets --reference-seeds 0` judges them alone, for a change aimed there.
 * The scale run (500 backends × 64 clients, seed 1 only: 20 M calls a run)
 * adds about 40 s; it is the only fleet large enough to show a rule that
 * acts on many endpoints at once (tuning-log §65). One seed is a paired
 * comparison with the commit before; its level moves 2 ms between seeds.
 * `--arrivals` and `--workers` change how the grid's and the many-method
 * scenarios' clients send (closed-loop.ts); the reference regime's targets
 * keep the reference's open-loop clients, whose published figures they are.
 * `--policy` judges a config variant in peak_ewma's place, as the
 * simulator's own `--policy` does (tuning sweeps); sweep.ts compares
 * several config candidates at once.
 */
import { execFileSync } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';
import { parseCommandLine } from '../lib/command-line';
import { gridSection, judged, SCALE_SEED, scaleSection, scaleTail, smallFleetSection, Judgement, JudgedSeed, methodsSection, referenceSection, ReferenceSeed, RIVALS, UNDER_TEST, unlikeJudgements } from './judge-report';
import { planReferenceTargets, scored } from './reference-targets';
import { ClientStall, parseClientStall } from './client-stall';
import { parsePolicySpec } from './policies';
import { runAll } from './pool';
import { planRegimes, planSmallFleets } from './regimes';
import { scenarioByName } from './scenarios';
import { planSuite, PlannedRun } from './suite';
import { QUICK_TIMELINE, REFERENCE_TIMELINE } from './timeline';
import { ArrivalMode, parseArrivalFlags } from './arrivals';

/** The scenarios that mix methods (issue 16's targets). */
const METHOD_SCENARIOS = ['s13', 's14'];
const POLICIES = [...RIVALS, UNDER_TEST];
/** What a judgement can measure besides the reference regime (whose seeds `--reference-seeds` sets). */
const SECTIONS = ['grid', 'small-fleets', 'methods', 'scale'] as const;
type Section = (typeof SECTIONS)[number];

function parseSections(text: string): Set<Section> {
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(SECTIONS as readonly string[]).includes(name)) {
      throw new RangeError(`--sections: "${name}" is not one of ${SECTIONS.join(', ')}`);
    }
  }
  return new Set(names as Section[]);
}

function positiveInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${flag} must be an integer >= 1, got "${text}"`);
  }
  return value;
}

function commitOfCheckout(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'scripts'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} with uncommitted changes` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

async function measure(
  seedCount: number,
  referenceSeedCount: number,
  policyUnderTest: string | undefined,
  quick: boolean,
  jobs: number | undefined,
  clientStall: ClientStall | undefined,
  sending: { arrivals?: ArrivalMode; workers?: number },
  sections: ReadonlySet<Section>,
): Promise<Judgement> {
  const runs: Array<PlannedRun & { seedIndex: number }> = [];
  // The reference regime's targets over their own seeds, as sweep.ts runs them.
  const referenceRuns: Array<PlannedRun & { seedIndex: number }> = [];
  for (let index = 0; index < referenceSeedCount; index++) {
    for (const run of planReferenceTargets(index + 1, { quick, policyUnderTest, clientStall })) {
      referenceRuns.push({ ...run, seedIndex: index });
    }
  }
  for (let index = 0; index < seedCount; index++) {
    const seed = index + 1;
    const timeline = quick ? QUICK_TIMELINE : REFERENCE_TIMELINE;
    const planned = [
      ...(sections.has('grid') ? planRegimes({ seed, timeline, policyUnderTest, policies: POLICIES, clientStall, ...sending }) : []),
      ...(sections.has('small-fleets') ? planSmallFleets({ seed, timeline, policyUnderTest, policies: POLICIES, clientStall, ...sending }) : []),
      ...(sections.has('methods')
        ? planSuite({ scenarios: METHOD_SCENARIOS.map(scenarioByName), layouts: ['uniform', 'reference'], seed, quick, policyUnderTest, clientStall, uniformPolicies: POLICIES, grid: false, scale: false, ...sending })
        : []),
    ];
    for (const run of planned) {
      runs.push({ ...run, seedIndex: index });
    }
  }
  const scaleRuns: PlannedRun[] = sections.has('scale')
    ? planSuite({ scenarios: [], layouts: [], seed: SCALE_SEED, quick, policyUnderTest, clientStall, grid: false, scale: true, ...sending })
    : [];
  const allRuns = [...runs, ...referenceRuns, ...scaleRuns];
  const allResults = await runAll(
    allRuns.map((run) => run.spec),
    {
      jobs,
      onDone: (done, total) => {
        if (process.stderr.isTTY) {
          process.stderr.write(`\r${done}/${total} runs   `);
        }
      },
    },
  );
  const results = allResults.slice(0, runs.length);
  const seeds: JudgedSeed[] = Array.from({ length: seedCount }, (_, index) => ({
    seed: index + 1,
    regimes: {},
    ...(sections.has('small-fleets') ? { smallFleets: {} } : {}),
    methods: { uniform: {}, reference: {} },
  }));
  // The variant's label stands where peak_ewma does, so that every table reads one name.
  const underTestLabel = policyUnderTest === undefined ? UNDER_TEST : parsePolicySpec(policyUnderTest).label;
  const named = (label: string): string => (label === underTestLabel ? UNDER_TEST : label);
  runs.forEach((run, i) => {
    const seed = seeds[run.seedIndex];
    // A small fleet's run is a regime run in a fleet of its own size (its key says so).
    const regimes = run.spec.backends === undefined ? seed.regimes : seed.smallFleets!;
    const target =
      run.kind === 'regime'
        ? (((regimes[run.key] ??= {})[run.spec.scenario] ??= {}))
        : ((seed.methods[run.kind === 'reference' ? 'reference' : 'uniform'][run.key] ??= {}));
    for (const group of results[i].groups) {
      target[named(group.policy)] = judged(group);
    }
  });
  const reference: ReferenceSeed[] = Array.from({ length: referenceSeedCount }, (_, index) => ({ seed: index + 1, results: { reference: {}, uniform: {} } }));
  referenceRuns.forEach((run, i) => {
    const target = (reference[run.seedIndex].results[run.kind === 'reference' ? 'reference' : 'uniform'][run.key] ??= {});
    for (const group of allResults[runs.length + i].groups) {
      target[named(group.policy)] = scored(group);
    }
  });
  const scale = Object.fromEntries(
    allResults.slice(runs.length + referenceRuns.length).flatMap((result) => result.groups.map((group) => [named(group.policy), scaleTail(group)] as const)),
  );
  return {
    reference,
    ...(sections.has('scale') ? { scale } : {}),
    meta: {
      commit: commitOfCheckout(),
      policyUnderTest: policyUnderTest ?? UNDER_TEST,
      clientStall: clientStall ?? null,
      ...(sending.arrivals === undefined ? {} : { arrivals: sending.arrivals }),
      ...(sending.workers === undefined ? {} : { workers: sending.workers }),
      quick,
      sections: [...sections],
      command: `npx tsx scripts/sim/judge.ts ${process.argv.slice(2).join(' ')}`,
    },
    seeds,
  };
}

function readJudgement(file: string): Judgement {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Judgement;
  if (!Array.isArray(parsed.seeds) || parsed.seeds.length === 0) {
    throw new Error(`${file}: not a judge.ts result (no seeds)`);
  }
  return parsed;
}

function print(after: Judgement, before?: Judgement): void {
  if (before !== undefined) {
    console.log(`before: ${String(before.meta.commit)} (${String(before.meta.policyUnderTest)})\nafter: ${String(after.meta.commit)} (${String(after.meta.policyUnderTest)})\n`);
  }
  const sending = (judgement: Judgement): string =>
    judgement.meta.arrivals === undefined ? 'fixed' : `${String(judgement.meta.arrivals)}${judgement.meta.workers === undefined ? '' : ` (${String(judgement.meta.workers)} workers)`}`;
  if (after.meta.arrivals !== undefined || before?.meta.arrivals !== undefined) {
    console.log(`arrivals: ${before === undefined ? '' : `before ${sending(before)}, after `}${sending(after)}\n`);
  }
  const grid = gridSection(after, before);
  if (grid !== '') {
    console.log(grid);
  }
  const smallFleets = smallFleetSection(after, before);
  if (smallFleets !== '') {
    console.log(`\n${smallFleets}`);
  }
  const methods = methodsSection(after, before);
  if (methods !== '') {
    console.log(`\n${methods}`);
  }
  const scaleTable = scaleSection(after, before);
  if (scaleTable !== '') {
    console.log(`\n${scaleTable}`);
  }
  const referenceTable = referenceSection(after, before);
  if (referenceTable !== '') {
    console.log(`\n${referenceTable}`);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine('npm run judge --', {
    options: {
      seeds: { type: 'string', default: '5' },
      'reference-seeds': { type: 'string', default: '10' },
      policy: { type: 'string' },
      quick: { type: 'boolean', default: false },
      jobs: { type: 'string' },
      json: { type: 'string' },
      'client-stall': { type: 'string' },
      arrivals: { type: 'string' },
      workers: { type: 'string' },
      compare: { type: 'boolean', default: false },
      unlike: { type: 'boolean', default: false },
      sections: { type: 'string', default: SECTIONS.join(',') },
    },
    allowPositionals: true,
  });
  if (values.compare) {
    if (positionals.length !== 2) {
      throw new Error('--compare takes two files: BEFORE.json AFTER.json');
    }
    const [before, after] = positionals.map(readJudgement);
    const unlike = unlikeJudgements(before, after);
    if (unlike.length > 0 && !values.unlike) {
      throw new Error(`--compare: the two judgements did not measure alike (--unlike prints them anyway):\n  ${unlike.join('\n  ')}`);
    }
    if (unlike.length > 0) {
      console.log(`NOT ALIKE (--unlike): ${unlike.join('; ')}\n`);
    }
    print(after, before);
    return;
  }
  if (values.policy !== undefined) {
    parsePolicySpec(values.policy);
  }
  const referenceSeeds = Number(values['reference-seeds']);
  if (!Number.isInteger(referenceSeeds) || referenceSeeds < 0) {
    throw new RangeError(`--reference-seeds must be an integer >= 0, got "${values['reference-seeds']}"`);
  }
  const judgement = await measure(
    positiveInteger('--seeds', values.seeds),
    referenceSeeds,
    values.policy,
    values.quick,
    values.jobs === undefined ? undefined : positiveInteger('--jobs', values.jobs),
    values['client-stall'] === undefined ? undefined : parseClientStall(values['client-stall']),
    parseArrivalFlags(values.arrivals, values.workers),
    parseSections(values.sections),
  );
  if (process.stderr.isTTY) {
    process.stderr.write('\n');
  }
  print(judgement);
  if (values.json !== undefined) {
    writeFileSync(values.json, JSON.stringify(judgement) + '\n');
    console.log(`\nwrote ${values.json}`);
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
