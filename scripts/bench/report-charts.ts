/**
 * The report's SVG charts (charts.ts draws them): p99 per scenario and policy, the share of
 * calls sent to faulty backends over time, and one chart per low-concurrency regime, each titled
 * with its own run's scale.
 */
import { AggregateRow, regimeOfRun } from './aggregate';
import { P999_MIN_SAMPLES } from '../lib/percentile-rules';
import { barChart, lineChart, trailingMean } from './charts';
import { clientLabel, POLICY_IDS, POLICY_LABELS } from './policies';
import { repeatsText, repeatsWord } from './row-cells';
import { isLowConcurrency, regimeKey, regimeLabel, regimeShort } from './scale';
import { mean } from './stats';
import type { BenchResults } from './report';
import { lowConcurrencyScale, perClientRates, rateRange, regimesOf, runTitle, timelineSecondS } from './report-regimes';
import { policyLabel } from './report-tables';

export interface Chart {
  readonly file: string;
  readonly svg: string;
  readonly caption: string;
}

/** Element-wise mean of equally long series (per-second shares over repeats). */
function meanSeries(series: readonly (readonly number[])[]): number[] {
  const length = Math.min(...series.map((s) => s.length));
  return Array.from({ length }, (_, t) => mean(series.map((s) => s[t])));
}

export function charts(results: BenchResults, rows: readonly AggregateRow[]): Chart[] {
  const out: Chart[] = [];
  const main = regimesOf(rows.filter((r) => r.layout === 'reference'))[0];
  if (main) {
    const mine = rows.filter((r) => r.layout === 'reference' && regimeKey(r.regime) === regimeKey(main));
    const scenarios = Array.from(new Set(mine.map((r) => r.scenario)));
    const policies = POLICY_IDS.filter((p) => mine.some((r) => r.policy === p));
    const series = (field: 'p99Ms' | 'p999Ms' | 'allP99Ms') =>
      policies.map((p) => ({
        name: POLICY_LABELS[p],
        values: scenarios.map((s) => mine.find((r) => r.scenario === s && r.policy === p)?.[field] ?? null),
      }));
    const regime = regimeShort(main);
    const bar = (file: string, field: 'p99Ms' | 'p999Ms' | 'allP99Ms', title: string, caption: string): void => {
      out.push({
        file,
        // Each scenario's own rate (the het fleet's is lower, a repeat with more clients lower still), not the first row's.
        caption: `${caption}, reference layout, ${regimeLabel(main, perClientRates(mine))}; log scale`,
        svg: barChart({ title: `${title}, ${regime}`, yLabel: 'ms (log)', groups: scenarios, series: series(field), logScale: true }),
      });
    };
    bar('p99.svg', 'p99Ms', 'p99 latency (OK calls)', 'p99 of OK calls per scenario and policy (fault phase for fault scenarios), mean over repeats');
    // No chart of nothing: p99.9 is published only with enough samples per client.
    if (mine.some((r) => Number.isFinite(r.p999Ms))) bar('p999.svg', 'p999Ms', 'p99.9 latency (OK calls)', `p99.9 of OK calls where every client had ${P999_MIN_SAMPLES.toLocaleString('en-US')} OK calls (else no bar)`);
    bar('p99-all-calls.svg', 'allP99Ms', 'p99 latency (all calls, failures at deadline)', 'p99 over all calls, failures counted at the deadline');
    for (const scenario of ['s03', 's10']) {
      const runs = results.load.filter(
        (r) => r.scenario === scenario && r.layout === 'reference' && regimeKey(regimeOfRun(r)) === regimeKey(main),
      );
      const run = runs[0];
      if (!run || run.faultyBackends.length === 0) continue;
      const fair = run.faultyBackends.length / run.backendCount;
      const plural = run.faultyBackends.length > 1 ? 's' : '';
      const title = runTitle(run);
      const rate = `${rateRange(runs.map((r) => regimeOfRun(r).perClientRps))} calls/s`;
      const second = timelineSecondS(main) === 1 ? 'real s' : `× ${timelineSecondS(main)} real s`;
      out.push({
        file: `${scenario}-share.svg`,
        caption:
          `${scenario} (${title}; ${regimeLabel(main, rate)}): share of each policy's calls sent to the faulty backend${plural} per ` +
          `timeline second (${second}), mean of ${repeatsWord(runs.length)}, 3-point trailing mean; fault window shaded, fair share dashed`,
        svg: lineChart({
          title: `${scenario} ${title}, ${regime}: share of calls to the faulty backend${plural}`,
          xLabel: `timeline seconds after warm-up (${second})`,
          yLabel: 'share of calls',
          series: run.policies.map((p) => ({
            name: policyLabel(p.policy),
            // Bucket t covers (t, t + 1]: plotted at its end, smoothed as the reference's detection is.
            points: trailingMean(
              meanSeries(runs.map((r) => r.policies.find((q) => q.policy === p.policy)?.faultyShare ?? [])),
              3,
            ).map((share, t) => [t + 1, Number.isFinite(share) ? share : 0] as const),
          })),
          bands: [{ fromX: run.timeline.faultStartS, toX: run.timeline.faultEndS, label: 'fault' }],
          referenceLines: [{ y: fair, label: 'fair share' }],
        }),
      });
    }
  }
  // The low-concurrency regimes (scale.ts): fewer slots, the reference's time.
  for (const regime of regimesOf(rows.filter((r) => r.layout === 'uniform')).filter(isLowConcurrency)) {
    const mine = rows.filter((r) => r.layout === 'uniform' && regimeKey(r.regime) === regimeKey(regime));
    // In scenario order, not the shuffled order the runs happened to come in.
    const scenarios = Array.from(new Set(mine.map((r) => r.scenario))).sort();
    const policies = POLICY_IDS.filter((p) => mine.some((r) => r.policy === p));
    const run = results.load.find((r) => r.layout === 'uniform' && regimeKey(regimeOfRun(r)) === regimeKey(regime))!;
    const scale = lowConcurrencyScale(regime, mine, run.timeline);
    out.push({
      file: `low-concurrency-${regime.slots}-slot.svg`,
      caption: `p99 over all calls (failures at the deadline), uniform layout, ${scale.join(', ')}; mean of ${repeatsText(mine.map((r) => ({ label: `${r.scenario} ${clientLabel(r.policy)}`, repeats: r.repeats })))}; log scale`,
      svg: barChart({
        // The chart alone states its run's scale: it is its own regime, not the reference's.
        title: [`p99 all calls, uniform layout: ${scale[0]}`, ...scale.slice(1)].join('\n'),
        yLabel: 'ms (log)',
        groups: scenarios,
        series: policies.map((p) => ({
          name: POLICY_LABELS[p],
          values: scenarios.map((s) => mine.find((r) => r.scenario === s && r.policy === p)?.allP99Ms ?? null),
        })),
        logScale: true,
      }),
    });
  }
  return out;
}
