/**
 * docs/images/estimate.svg: the peak-EWMA estimate of one endpoint through a
 * slow episode (10 ms → 100 ms for 5 s → 10 ms), for the default decayTime
 * (10 s) and a short one (2 s), computed by the real engine (see
 * estimate-episode.ts) and drawn with the bench's line chart.
 *
 *   npm run charts                     # writes docs/images/estimate.svg
 *   npx tsx scripts/charts/estimate-chart.ts --out /tmp/charts
 *
 * The series are also embedded as JSON in the SVG's <metadata>, so the
 * picture can be checked against the engine (test/examples/estimate-chart.test.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { lineChart } from '../bench/charts';
import { DEFAULT_EPISODE, EpisodeRun, latencyAt, runEpisode } from './estimate-episode';

export const DECAY_TIMES_MS = [10_000, 2_000] as const;
export const CHART_FILE = 'estimate.svg';

export function estimateRuns(): EpisodeRun[] {
  return DECAY_TIMES_MS.map((decayMs) => runEpisode({ ...DEFAULT_EPISODE, decayMs }));
}

const seconds = (ms: number): number => ms / 1000;

export function renderEstimateChart(runs: readonly EpisodeRun[]): string {
  const episode = DEFAULT_EPISODE;
  const latencyPoints: [number, number][] = [];
  for (const [atMs] of runs[0].estimate) {
    latencyPoints.push([seconds(atMs), latencyAt(episode, atMs)]);
  }
  const svg = lineChart({
    title: `peak_ewma estimate through a slow episode (a call every ${episode.callIntervalMs} ms)`,
    xLabel: 'time (s)',
    yLabel: 'RTT estimate (ms)',
    series: [
      ...runs.map((run) => ({
        name: `decayTime ${seconds(run.options.decayMs)} s`,
        points: run.estimate.map(([atMs, rttMs]) => [seconds(atMs), rttMs] as const),
      })),
      { name: 'backend latency', points: latencyPoints },
    ],
    bands: [{ fromX: seconds(episode.slowFromMs), toX: seconds(episode.slowUntilMs), label: `${episode.slowMs} ms` }],
    yMax: episode.slowMs * 1.1, // headroom above the peak
  });
  const data = {
    episode,
    series: runs.map((run) => ({ decayMs: run.options.decayMs, estimate: run.estimate })),
  };
  // JSON inside XML: escape what XML would read as markup.
  const json = JSON.stringify(data).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return svg.replace(/<\/svg>\s*$/, `<metadata id="estimate-data">${json}</metadata></svg>\n`);
}

/** Writes the chart into `outDir`; returns the file's path. */
export function writeEstimateChart(outDir: string): string {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, CHART_FILE);
  fs.writeFileSync(file, renderEstimateChart(estimateRuns()));
  return file;
}

if (require.main === module) {
  const outIndex = process.argv.indexOf('--out');
  const outDir = outIndex > 0 ? process.argv[outIndex + 1] : path.resolve(__dirname, '..', '..', 'docs', 'images');
  console.log(`wrote ${writeEstimateChart(outDir)}`);
}
