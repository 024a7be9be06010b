/**
 * `npm run bench`: the load test, the overhead benchmarks and the report.
 * `npm run bench -- --help` lists the options.
 */
import * as fs from 'fs';
import { BenchOptions, parseArgs } from './args';
import { runCpuPerRpcBenchmark } from './cpu-per-rpc';
import { runLoadTest } from './loadtest';
import { planLoadRuns, planWallTimeS } from './plan';
import { runPickPathBenchmark } from './pick-path';
import { ProgressLine } from './progress';
import { BenchResults, writeReport } from './report';
import { cpuTable, loadTable, pickTable } from './report-tables';
import { inReferenceLayout, scenarioById, shortId, simulatorKnows, timelineFor } from './scenarios';
import { textTable } from './tables';
import { machineDescription } from './machine';
import { mergeLoadCells, mergeLoadRuns, mergeOverhead } from './merge';
import { methodRunTable, writeMethodsPage } from './method-tables';
import { builtFrom, prebuildForChildren } from './package-under-test';
import { runSimulator } from './simulator';
import { hasTwin, printTwins } from './twin';
import { runUnderStallRule } from './stalls';
import { runUpdateTimeBenchmark } from './update-time';

async function runLoadSuite(options: BenchOptions, results: BenchResults, save: () => void): Promise<void> {
  const progress = new ProgressLine();
  const plan = planLoadRuns(options);
  const hours = planWallTimeS(plan, options) / 3600;
  console.log(`${plan.length} load-test runs, about ${hours.toFixed(1)} h of wall time (timeline × time factor + start-up)`);
  for (const [k, run] of plan.entries()) {
    const scenario = scenarioById(run.scenario);
    const regime = `${run.scale.slots} slots, time × ${run.scale.timeFactor}${run.scale.backends ? `, ${run.scale.backends} backends` : ''}`;
    const what = `${shortId(scenario)} ${scenario.summary} [${run.layout}${run.layout === 'uniform' ? ` ${run.policies[0]}` : ''}, ${regime}, repeat ${run.repeat + 1}]`;
    console.log(`\nrun ${k + 1}/${plan.length}: ${what}`);
    const runOnce = () =>
      runLoadTest({
        scenario,
        layout: run.layout,
        policies: run.policies,
        clientsPerPolicy: options.clientsPerPolicy,
        uniformClients: options.uniformClients,
        timeline: timelineFor(options.durationS, options.warmupS),
        scale: run.scale,
        backendHosts: options.backendHosts,
        seed: options.seed + run.repeat,
        xds: run.xds,
        peakEwmaConfig: options.peakEwmaConfig,
        retryAttempts: options.retryAttempts,
        progress,
      });
    const result = await runUnderStallRule(runOnce, options.maxStallMs, (discarded, stallMs) => {
      (results.discarded ??= []).push({
        scenario: run.scenario,
        layout: run.layout,
        policies: run.policies,
        slots: run.scale.slots,
        repeat: run.repeat,
        stallMs,
        startedAt: discarded.startedAt,
      });
      console.log(`discarded: an event loop stalled ${stallMs.toFixed(0)} ms (--max-stall ${options.maxStallMs}); running it again`);
    });
    results.load.push({ ...result, repeat: run.repeat });
    console.log(textTable(loadTable(result)));
    const perMethod = methodRunTable(result);
    if (perMethod) {
      console.log(`\nper method group (whole window):\n${textTable(perMethod)}`);
    }
    save();
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.reportFrom) {
    const read = (file: string): BenchResults => JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResults;
    let saved = read(options.reportFrom);
    if (options.mergeLoad) {
      saved = mergeLoadRuns(saved, read(options.mergeLoad));
    }
    if (options.mergeCells) {
      saved = mergeLoadCells(saved, options.mergeCells.map(read), { scenarios: options.mergeScenarios, dropStalledMs: options.dropStalledMs });
    }
    if (options.mergeOverhead) {
      saved = mergeOverhead(saved, read(options.mergeOverhead));
    }
    if (options.mergeLoad || options.mergeCells || options.mergeOverhead) {
      if (options.jsonPath) {
        fs.writeFileSync(options.jsonPath, JSON.stringify(saved, null, 1));
        console.log(`merged results: ${options.jsonPath}`);
      }
    }
    const written = options.methodsReport ? [writeMethodsPage(saved)] : writeReport(saved);
    console.log(`report written: ${written.join(', ')}`);
    return;
  }
  prebuildForChildren();
  const results: BenchResults = {
    startedAt: new Date().toISOString(),
    packageSource: builtFrom(),
    machine: machineDescription(),
    options: { ...options },
    load: [],
    pick: null,
    cpu: null,
  };
  const save = (): void => {
    if (options.jsonPath) {
      fs.writeFileSync(options.jsonPath, JSON.stringify(results, null, 1));
    }
  };
  if (options.suites.includes('pick')) {
    console.log('pick path: pick + onCallStarted + onCallEnded per call, grpc-js round_robin picker vs ours');
    results.pick = await runPickPathBenchmark(undefined, (line) => console.log(line));
    console.log(textTable(pickTable(results.pick)));
    save();
  }
  if (options.suites.includes('cpu')) {
    console.log('\nCPU per RPC: closed loop at saturation, client process.cpuUsage per completed call');
    results.cpu = await runCpuPerRpcBenchmark(undefined, (line) => console.log(line));
    console.log(textTable(cpuTable(results.cpu)));
    save();
  }
  if (options.suites.includes('update')) {
    console.log('\nupdate time: one address update over an unchanged list of READY endpoints, vs round_robin');
    results.update = await runUpdateTimeBenchmark(undefined, (line) => console.log(line));
    save();
  }
  if (options.suites.includes('load')) {
    await runLoadSuite(options, results, save);
    const simulated = options.scenarios.filter((id) => simulatorKnows(id) && inReferenceLayout(id));
    if ((options.report || options.jsonPath) && simulated.length > 0) {
      console.log('\nsimulator: the same scenarios, reference layout, in virtual time');
      results.simulator = runSimulator(simulated, options.durationS, options.seed);
      save();
    }
    // Each uniform run beside its twin: a real run that strays from the model shows at once (tuning-log §72).
    if (results.load.some(hasTwin)) {
      console.log("\ntwins: each uniform run beside the simulator on its own timeline, slots, clients and config (real ÷ time factor | simulated)");
      printTwins(results.load, options.seed, (line) => console.log(line));
    }
  }
  if (options.report) {
    const written = writeReport(results);
    console.log(`\nreport written: ${written.join(', ')}`);
  }
  if (options.methodsReport) {
    console.log(`\nmethods page written: ${writeMethodsPage(results)}`);
  }
  if (options.jsonPath) {
    console.log(`results: ${options.jsonPath}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
