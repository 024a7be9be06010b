/**
 * npm run simulate -- [--scenario NAME]... [--layout uniform|reference]... [--seed N] [--json FILE]
 *                     [--quick] [--list] [--policy SPEC] [--uniform-policies A,B] [--grid] [--scale] [--jobs N]
 *                     [--clients N] [--slots N] [--backends N] [--client-stall MS/EVERY] [--regimes [--regime-slots L] [--regime-clients L] [--regime-scenarios L]]
 *
 * Without --scenario (or --regimes): every scenario in both layouts, plus
 * the sensitivity grid and the scale run. "grid", "scale" and "regimes" are
 * also accepted as scenario names. See docs/simulation.md.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseClientStall } from './client-stall';
import { parsePolicySpec } from './policies';
import { runAll } from './pool';
import { assemble, freshTable, gridTable, HERD_SCENARIOS, methodTable, scaleTable, scenarioTable } from './report';
import { SCENARIOS, scenarioByName } from './scenarios';
import { planRegimes, regimeTable } from './regimes';
import { Layout, planSuite } from './suite';
import { QUICK_TIMELINE, REFERENCE_TIMELINE } from './timeline';
import { parseArrivalFlags } from './arrivals';
import { formatTally } from './tally';

const USAGE = `usage: npm run simulate -- [options]
  --scenario NAME       a scenario (repeatable or comma-separated; prefixes like s01 work); "grid", "scale" too
  --layout L            reference | uniform (repeatable; default both)
  --seed N              base seed (default 1)
  --json FILE           write the results as JSON
  --quick               half-length timeline (10 s + 45 s, faults 10–30 s)
  --policy SPEC         the policy under test instead of peak_ewma, e.g. 'peak_ewma{"choiceCount":3}'
  --uniform-policies L  comma-separated policies for the uniform layout
  --grid, --scale       add the sensitivity grid / the 500×64 scale run
  --arrivals A          fixed (default: every client sends at a fixed period, as the reference) | poisson |
                        closed (each client's callers wait for each answer, think, send again: a worker pool;
                        the same rate while answers take the mean service time; scripts/sim/closed-loop.ts)
  --workers K           with --arrivals closed: callers per client (default: the fewest that offer the rate)
  --clients N           clients per run in the reference/uniform layouts (default 8; herd 16) at the same
                        total load, so each sends less: 264 gives ~40 calls/s per client at 20 backends
                        (the reference layout splits them over its 4 policies: a multiple of 4)
  --client-stall MS/EVERY  each client pauses MS ms every EVERY ms (a GC pause), at its own phase; answers
                        arriving meanwhile are handled when it resumes (default: no pauses, as the reference)
  --backends N          backends in the reference/uniform layouts instead of the scenario's (20), the fleet's
                        roles in the same proportions: e.g. the load test's low-concurrency fleets,
                        --slots 1 --backends 6 and --slots 2 --backends 3
  --slots N             calls each default backend serves at once (default 8); roles keep their relative
                        differences (throttled and s10's contended pods get half)
  --regimes             the regime grid: slots {1,2,4,8} × clients {8,64} × s01,s02,s03,s10, uniform layout,
                        round_robin, least_request, lr_od, peak_ewma (or --policy), oracle; alone unless
                        --scenario is given too ("regimes" is also a scenario name)
  --regime-slots L      the grid's slots instead (comma-separated), e.g. 1,2
  --regime-clients L    the grid's client counts instead, e.g. 64
  --regime-scenarios L  the grid's scenarios instead, e.g. s02,s15 (s15, the mixed-concurrency fleet, and s16,
                        its load-shedding variant, are judged by the sick scenarios' targets; docs/simulation.md)
                        (--uniform-policies narrows the grid's policies too)
  --tally MS            after the tables, each run's calls by the kind of pod that served them and the path of
                        the pick that sent them (turn, refused, …), with the points of all calls over MS ms or
                        failed: where a tail comes from (scripts/sim/tally.ts)
  --jobs N              worker threads (default: one per core)
  --list                list scenarios and exit`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', multiple: true },
      layout: { type: 'string', multiple: true },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      quick: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      policy: { type: 'string' },
      'uniform-policies': { type: 'string' },
      grid: { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      jobs: { type: 'string' },
      arrivals: { type: 'string', default: 'fixed' },
      workers: { type: 'string' },
      clients: { type: 'string' },
      slots: { type: 'string' },
      backends: { type: 'string' },
      tally: { type: 'string' },
      'client-stall': { type: 'string' },
      regimes: { type: 'boolean', default: false },
      'regime-slots': { type: 'string' },
      'regime-clients': { type: 'string' },
      'regime-scenarios': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.list) {
    for (const scenario of SCENARIOS) {
      console.log(`${scenario.name.padEnd(24)} ${scenario.summary}`);
    }
    console.log(`${'grid'.padEnd(24)} s01 fleet at 5/20/50 backends × 30/70/90 % load`);
    console.log(`${'scale'.padEnd(24)} s01 fleet at 500 backends, 64 clients`);
    return;
  }
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) {
    throw new RangeError(`--seed must be a non-negative integer, got "${values.seed}"`);
  }
  const names = (values.scenario ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const regimes = values.regimes || names.includes('regimes');
  const wantsAll = names.length === 0 && !regimes;
  const grid = values.grid || wantsAll || names.includes('grid');
  const scale = values.scale || wantsAll || names.includes('scale');
  const scenarioNames = names.filter((n) => n !== 'grid' && n !== 'scale' && n !== 'regimes');
  const scenarios = wantsAll ? SCENARIOS : scenarioNames.map(scenarioByName);
  const layouts = (values.layout ?? ['reference', 'uniform']).flatMap((l) => l.split(','));
  for (const layout of layouts) {
    if (layout !== 'reference' && layout !== 'uniform') {
      throw new RangeError(`--layout must be reference or uniform, got "${layout}"`);
    }
  }
  if (values.policy !== undefined) {
    parsePolicySpec(values.policy);
  }
  const uniformPolicies = values['uniform-policies'] === undefined ? undefined : splitList(values['uniform-policies']);
  uniformPolicies?.forEach(parsePolicySpec);
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1)) {
    throw new RangeError(`--jobs must be an integer >= 1, got "${values.jobs}"`);
  }
  const clients = values.clients === undefined ? undefined : Number(values.clients);
  if (clients !== undefined && !(Number.isInteger(clients) && clients >= 1)) {
    throw new RangeError(`--clients must be an integer >= 1, got "${values.clients}"`);
  }
  if (clients !== undefined && layouts.includes('reference') && clients % 4 !== 0) {
    throw new RangeError(`--clients must be a multiple of 4 with the reference layout (4 policies), got ${clients}`);
  }

  const slots = values.slots === undefined ? undefined : positiveInteger('--slots', values.slots);
  const backends = values.backends === undefined ? undefined : positiveInteger('--backends', values.backends);
  const clientStall = values['client-stall'] === undefined ? undefined : parseClientStall(values['client-stall']);
  const tallyBoundMs = values.tally === undefined ? undefined : positiveNumber('--tally', values.tally);
  const regimeSlots = values['regime-slots']?.split(',').map((text) => positiveInteger('--regime-slots', text));
  const regimeClients = values['regime-clients']?.split(',').map((text) => positiveInteger('--regime-clients', text));
  const regimeScenarios = values['regime-scenarios']?.split(',').map((name) => scenarioByName(name).name);

  const { arrivals, workers } = parseArrivalFlags(values.arrivals, values.workers);
  const runs = planSuite({
    arrivals,
    workers,
    scenarios,
    layouts: layouts as Layout[],
    seed,
    quick: values.quick,
    policyUnderTest: values.policy,
    uniformPolicies,
    grid,
    scale,
    clients,
    slots,
    backends,
    clientStall,
  });
  if (regimes) {
    runs.push(
      ...planRegimes({
        seed,
        timeline: values.quick ? QUICK_TIMELINE : REFERENCE_TIMELINE,
        policyUnderTest: values.policy,
        slots: regimeSlots,
        clients: regimeClients,
        scenarios: regimeScenarios,
        // The grid's policies too, e.g. only the variant under test against a saved baseline.
        policies: uniformPolicies,
        clientStall,
        arrivals,
        workers,
      }),
    );
  }
  const wallStart = performance.now();
  // Worker threads share the process, so this counts every run's CPU.
  const cpuStart = process.cpuUsage();
  const results = await runAll(
    runs.map((run) => (tallyBoundMs === undefined ? run.spec : { ...run.spec, tallyBoundMs })),
    {
      jobs,
      onDone: (done, total, result) => {
        if (process.stderr.isTTY) {
          process.stderr.write(`\r${done}/${total} runs (${result.scenario}: ${(result.calls / 1e6).toFixed(2)} M calls, ${(result.wallMs / 1000).toFixed(1)} s)   `);
        }
      },
    },
  );
  if (process.stderr.isTTY) {
    process.stderr.write('\n');
  }
  const wallMs = performance.now() - wallStart;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const calls = results.reduce((sum, r) => sum + r.calls, 0);
  const json = assemble(runs, results, {
    seed,
    quick: values.quick,
    timeline: values.quick ? QUICK_TIMELINE : REFERENCE_TIMELINE,
    policyUnderTest: values.policy ?? 'peak_ewma',
    runs: runs.length,
    calls,
    cpuMs: Math.round(cpuMs),
    wallMs: Math.round(wallMs),
    command: `npm run simulate -- ${process.argv.slice(2).join(' ')}`.trim(),
  });
  if (Object.keys(json.reference.scenarios).length > 0) {
    console.log(scenarioTable('reference layout: round_robin, the policy under test, least_request, lr_od; 2 clients each, one shared fleet', json.reference.scenarios));
    printIfAny(methodTable('reference layout', json.reference.scenarios));
  }
  const uniformScenarios = Object.fromEntries(Object.entries(json.scenarios).filter(([name]) => !HERD_SCENARIOS.includes(name)));
  if (Object.keys(uniformScenarios).length > 0) {
    console.log(scenarioTable('uniform layout: every client on one policy, one run per policy', uniformScenarios));
    printIfAny(methodTable('uniform layout', uniformScenarios));
  }
  const underTestLabel = values.policy === undefined ? 'peak_ewma' : parsePolicySpec(values.policy).label;
  for (const extra of [freshTable(json.scenarios), gridTable(json.grid), scaleTable(json.scale), regimeTable(json.regimes ?? {}, underTestLabel)]) {
    printIfAny(extra);
  }
  results.forEach((result, i) => {
    if (result.tally !== undefined) {
      const spec = runs[i].spec;
      console.log('\n' + formatTally(`${result.scenario} (${spec.slots ?? 8} slots, seed ${spec.seed})`, result.tally));
    }
  });
  console.log(
    `\n${runs.length} runs, ${(calls / 1e6).toFixed(1)} M simulated calls, ${(cpuMs / 1000).toFixed(1)} s CPU (all threads), ${(wallMs / 1000).toFixed(1)} s wall`,
  );
  if (values.json !== undefined) {
    writeFileSync(values.json, JSON.stringify(json) + '\n');
    console.log(`wrote ${values.json}`);
  }
}

function printIfAny(text: string): void {
  if (text !== '') {
    console.log(text);
  }
}

function positiveNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(`${flag} must be a number > 0, got "${text}"`);
  }
  return value;
}

function positiveInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!(Number.isInteger(value) && value >= 1)) {
    throw new RangeError(`${flag} must be an integer >= 1, got "${text}"`);
  }
  return value;
}

/** Splits "a,b{"x":1,"y":2},c" at the commas outside braces. */
function splitList(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
      continue;
    }
    depth += char === '{' ? 1 : char === '}' ? -1 : 0;
    current += char;
  }
  parts.push(current.trim());
  return parts.filter(Boolean);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
