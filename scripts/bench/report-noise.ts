/**
 * How noisy the harness was: each run's event-loop delays against its median service time,
 * and the runs the stall rule (`--max-stall`, stalls.ts) discarded.
 */
import { STALL_RERUNS } from './stalls';
import { regimeOfRun } from './aggregate';
import type { ScenarioResult } from './loadtest';
import { formatMs, formatPercent } from './progress';
import { regimeShort } from './scale';
import { median } from './stats';
import { LOOP_DELAY_RESOLUTION_MS } from './loop-delay';
import { Table } from './tables';
import type { BenchResults } from './report';
import { policyLabel } from './report-tables';

/** A run whose worst loop-delay p99 exceeds this share of its median service time measured the harness as much as the policies. */
export const NOISY_LOOP_SHARE = 0.1;

/** A run's event-loop delays, ms beyond the monitor's resolution, and its worst p99 as a share of its median. */
function loopDelays(run: ScenarioResult) {
  const regime = regimeOfRun(run);
  // Older runs recorded the monitor's whole interval, resolution included.
  const less = (ms: number): number => (regime.timeScaled ? ms : Math.max(0, ms - LOOP_DELAY_RESOLUTION_MS));
  const p99 = less(Math.max(...run.policies.map((p) => p.clientLoopDelayMs?.p99 ?? NaN)));
  const max = less(Math.max(...run.policies.map((p) => p.clientLoopDelayMs?.max ?? NaN)));
  const hosts = run.backendLoopDelayMs ? { p99: less(run.backendLoopDelayMs.p99), max: less(run.backendLoopDelayMs.max) } : undefined;
  const worstP99 = Math.max(p99, hosts ? hosts.p99 : 0);
  return { regime, p99, max, hosts, worstP99, share: worstP99 / regime.medianMs };
}

/** How many of a regime's runs measured the harness as much as the policies (NOISY_LOOP_SHARE), in a sentence. */
export function noisyRunsText(runs: readonly ScenarioResult[]): string {
  if (runs.length === 0) return '';
  const delays = runs.map(loopDelays);
  const noisy = delays.filter((d) => d.share > NOISY_LOOP_SHARE).length;
  if (noisy === 0) return '';
  return (
    ` Event-loop delay p99 above ${formatPercent(NOISY_LOOP_SHARE, 0)} of the median in ${noisy} of ${runs.length} runs ` +
    `(median over runs ${formatMs(median(delays.map((d) => d.worstP99)))} against a ${delays[0].regime.medianMs} ms median; see "How noisy the harness was").`
  );
}

/** The runs the stall rule discarded (`--max-stall`), one line, or nothing if it was off or discarded none. */
export function discardedLines(results: BenchResults): string[] {
  const discarded = results.discarded ?? [];
  const bound = results.options.maxStallMs;
  if (bound === undefined) {
    return [];
  }
  const runs = discarded.map((run) => `${run.scenario} ${run.layout} ${run.policies.join('+')} ${run.slots} slots #${run.repeat + 1} (${formatMs(run.stallMs)})`);
  return [
    `Stall rule, declared before the run (\`--max-stall ${bound}\`): a run whose clients' or backend hosts' event loop stalled longer than ${formatMs(bound)} was run again, at most ${STALL_RERUNS} times; ` +
      (runs.length === 0 ? 'none was.' : `${runs.length} ${runs.length === 1 ? 'was' : 'were'}: ${runs.join(', ')}.`),
    '',
  ];
}

export function noiseTable(results: BenchResults): Table {
  return {
    headers: ['run', 'regime', 'clients p99 / max', 'backend hosts p99 / max', 'worst p99 ÷ median', 'load average'],
    rows: results.load.map((run) => {
      const { regime, p99, max, hosts, share } = loopDelays(run);
      return [
        `${run.scenario} ${run.layout}${run.layout === 'uniform' ? ` ${policyLabel(run.policies[0].policy)}` : ''}` +
          (run.repeat === undefined ? '' : ` #${run.repeat + 1}`),
        regimeShort(regime),
        `${p99.toFixed(1)} / ${max.toFixed(0)}`,
        hosts ? `${hosts.p99.toFixed(1)} / ${hosts.max.toFixed(0)}` : '–',
        share > NOISY_LOOP_SHARE ? `**${formatPercent(share, 0)}**` : formatPercent(share, 0),
        run.loadAverage ? `${run.loadAverage[0]} / ${run.loadAverage[1]}` : '–',
      ];
    }),
  };
}
