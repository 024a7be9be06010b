/**
 * The full churn soak: `npm run soak` (or `npx tsx scripts/soak/churn.ts`).
 *
 * For each address source (the manual-test resolver (scripts/lib/manual-resolver.ts), then EDS from the fake
 * xDS control plane) and each removal mode (graceful, then hard): 60 s of
 * closed-loop unary traffic through peak_ewma_experimental while the address
 * list changes every 100 ms (one fresh backend added, the oldest removed).
 * Prints RPCs sent/failed and heap figures, and exits non-zero on any
 * violation (see churn-soak.ts for the checks).
 *
 * Heap: a 10 s warm-up churn runs first and is not measured (the first
 * seconds of any run grow the heap by ~3 MB of JIT code and lazily built
 * grpc-js state, however many endpoints churn). Then heapUsed after forced GC
 * once connected ("before"), when traffic has stopped ("after"), and again
 * once grpc-js's global subchannel pool has dropped the removed endpoints'
 * subchannels (it sweeps every 10 s, so wait 25 s: "settled"). The bound
 * applies to settled - before.
 *
 * Options: --duration-s 60 --tick-ms 100 --endpoints 4 --concurrency 8
 *          --mode graceful|hard|both --source resolver|eds|both
 *          --heap-bound-mb 2 --settle-s 25 --warmup-s 10
 */
import { parseCommandLine } from '../lib/command-line';
import { register } from '../../src';
import { AddressSource, edsSource, resolverSource, SourceKind } from './address-sources';
import { ChurnMode, runChurnSoak } from './churn-soak';
import { ChurnReport, violationsOf } from './churn-report';
import { heapUsedAfterGc } from './heap';

const { values } = parseCommandLine('npm run soak --', {
  options: {
    'duration-s': { type: 'string', default: '60' },
    'tick-ms': { type: 'string', default: '100' },
    endpoints: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '8' },
    mode: { type: 'string', default: 'both' },
    source: { type: 'string', default: 'both' },
    'heap-bound-mb': { type: 'string', default: '2' },
    'settle-s': { type: 'string', default: '25' },
    'warmup-s': { type: 'string', default: '10' },
  },
});

const MB = 1024 * 1024;
const modes: ChurnMode[] = values.mode === 'both' ? ['graceful', 'hard'] : [values.mode as ChurnMode];
const sources: SourceKind[] = values.source === 'both' ? ['resolver', 'eds'] : [values.source as SourceKind];
/** The resolver path's service config; the EDS path gets Envoy's PeakEwma from CDS (fixture clusters/peak-ewma.yaml). */
const POLICY = { peak_ewma_experimental: { decayTime: '10s', defaultRtt: '0.01s', errorPenaltyFactor: 2 } };
const heapBoundBytes = Number(values['heap-bound-mb']) * MB;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;

function makeSource(kind: SourceKind, label: string): Promise<AddressSource> {
  return kind === 'eds' ? edsSource() : Promise.resolve(resolverSource(label, POLICY));
}

async function options(kind: SourceKind, mode: ChurnMode, label: string, durationS: number) {
  return {
    mode,
    source: await makeSource(kind, label),
    label,
    durationMs: durationS * 1000,
    tickMs: Number(values['tick-ms']),
    activeEndpoints: Number(values.endpoints),
    concurrency: Number(values.concurrency),
    deadlineMs: 10_000,
  };
}

async function soak(kind: SourceKind, mode: ChurnMode): Promise<string[]> {
  console.log(`\n== churn soak via ${kind}, ${mode} removals: ${values['duration-s']} s, an update every ${values['tick-ms']} ms ==`);
  const warmup = await runChurnSoak(await options(kind, mode, `soak-warmup-${kind}-${mode}`, Number(values['warmup-s'])));
  console.log(`  warm-up: ${warmup.ticks} updates, ${warmup.rpcsSent} RPCs (not measured)`);
  const report: ChurnReport = await runChurnSoak({
    ...(await options(kind, mode, `soak-${kind}-${mode}`, Number(values['duration-s']))),
    onProgress: (line) => console.log(`  ${line}`),
    heapUsedAfterGc,
  });
  await sleep(Number(values['settle-s']) * 1000);
  const settledBytes = heapUsedAfterGc();
  const growthBytes = settledBytes - report.heapBeforeBytes!;
  const failed = report.allowedFailures + report.unexpectedFailures;
  console.log(
    [
      `  updates: ${report.ticks}; endpoints added ${report.endpointsAdded}, removed ${report.endpointsRemoved}, crashed ${report.endpointsCrashed}`,
      `  RPCs: sent ${report.rpcsSent}, ok ${report.rpcsOk}, failed ${failed} ` +
        `(allowed: sent to a crashed backend ${report.allowedFailures}, of which started after the crash ` +
        `${report.allowedStartedAfterCrash}; unexpected ${report.unexpectedFailures})`,
      `  outstanding: ${report.outstandingSamples} samples, ${report.outstandingViolations} violations, ` +
        `max total ${report.maxOutstandingTotal}, at rest [${report.outstandingAtRest}]`,
      `  stats listed exactly the published endpoints after every update: ${report.statsMismatches === 0 ? 'yes' : `no (${report.statsMismatches} mismatches)`}` +
        (kind === 'eds' ? ` (${report.lateStatsUpdates} of ${(mode === 'hard' ? 2 : 1) * report.ticks} updates seen only after the ADS round trip)` : ''),
      `  heap after forced GC: before ${mb(report.heapBeforeBytes!)}, after ${mb(report.heapAfterBytes!)}, ` +
        `settled ${mb(settledBytes)}; growth ${mb(growthBytes)} (bound ${mb(heapBoundBytes)}), ` +
        `${(growthBytes / report.endpointsRemoved / 1024).toFixed(2)} KiB per removed endpoint`,
    ].join('\n'),
  );
  const problems = [...violationsOf(warmup).map((problem) => `warm-up: ${problem}`), ...violationsOf(report)];
  if (growthBytes > heapBoundBytes) {
    problems.push(`heap grew ${mb(growthBytes)}, more than the ${mb(heapBoundBytes)} bound`);
  }
  return problems;
}

async function main(): Promise<void> {
  register();
  const problems: string[] = [];
  for (const kind of sources) {
    for (const mode of modes) {
      problems.push(...(await soak(kind, mode)).map((problem) => `${kind}/${mode}: ${problem}`));
    }
  }
  // Everything is closed now; what still holds the event loop shows here (the process should exit at once).
  const resources = process.getActiveResourcesInfo().reduce<Record<string, number>>((counts, type) => {
    counts[type] = (counts[type] ?? 0) + 1;
    return counts;
  }, {});
  console.log(`\nactive resources at the end (timers include unref'd ones): ${JSON.stringify(resources)}`);
  if (problems.length > 0) {
    console.error(`\nFAIL\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('\nPASS: no unexpected RPC failure, stats always matched the published list, outstanding never negative and zero at rest, heap within bound');
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
