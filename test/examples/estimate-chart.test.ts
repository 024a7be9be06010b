/**
 * docs/images/estimate.svg: the generator (what `npm run charts` runs) writes,
 * into a temp dir, well-formed SVG whose embedded series are the
 * engine's own estimates, and the committed file is up to date.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CHART_FILE, DECAY_TIMES_MS, estimateRuns, renderEstimateChart, writeEstimateChart } from '../../scripts/charts/estimate-chart';
import { DEFAULT_EPISODE, runEpisode } from '../../scripts/charts/estimate-episode';
import { assertWellFormedXml } from './support/xml';

const ROOT = path.resolve(__dirname, '..', '..');

interface ChartData {
  episode: typeof DEFAULT_EPISODE;
  series: { decayMs: number; estimate: [number, number][] }[];
}

function embeddedData(svg: string): ChartData {
  const match = /<metadata id="estimate-data">(.*)<\/metadata>/s.exec(svg);
  expect(match).not.toBeNull();
  return JSON.parse(match![1].replace(/&lt;/g, '<').replace(/&amp;/g, '&')) as ChartData;
}

describe('estimate chart', () => {
  let svg: string;
  beforeAll(() => {
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'estimate-chart-'));
    const file = writeEstimateChart(outDir);
    expect(file).toBe(path.join(outDir, CHART_FILE));
    svg = fs.readFileSync(file, 'utf8');
    fs.rmSync(outDir, { recursive: true });
  });

  it('is well-formed SVG with one line per decay time plus the backend latency', () => {
    assertWellFormedXml(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    const polylines = svg.match(/<polyline /g) ?? [];
    expect(polylines).toHaveLength(DECAY_TIMES_MS.length + 1);
    for (const decayMs of DECAY_TIMES_MS) {
      expect(svg).toContain(`decayTime ${decayMs / 1000} s`);
    }
  });

  it('draws the engine\'s estimates: the same numbers a fresh engine run gives, point for point', () => {
    const data = embeddedData(svg);
    expect(data.series.map((series) => series.decayMs)).toEqual([...DECAY_TIMES_MS]);
    const pointLists = [...svg.matchAll(/<polyline points="([^"]*)"/g)].map((m) => m[1].split(' '));
    data.series.forEach((series, i) => {
      const fresh = runEpisode({ ...DEFAULT_EPISODE, decayMs: series.decayMs });
      expect(series.estimate).toEqual(fresh.estimate);
      expect(pointLists[i]).toHaveLength(series.estimate.length);
    });
  });

  it('decays between samples exactly as E·exp(-Δt/τ): checked against the closed form, not the engine', () => {
    const { episode, series } = embeddedData(svg);
    for (const { decayMs, estimate } of series) {
      // The last fast call before the episode starts at slowFrom - interval
      // and answers baseMs later; the next sample comes only at slowFrom + slowMs.
      const lastFastSampleMs = episode.slowFromMs - episode.callIntervalMs + episode.baseMs;
      const readMs = episode.slowFromMs + episode.readEveryMs;
      const read = estimate.find(([atMs]) => atMs === readMs)!;
      expect(read[1]).toBeCloseTo(episode.baseMs * Math.exp(-(readMs - lastFastSampleMs) / decayMs), 12);
    }
  });

  it('peaks at exactly the slow sample, and the shorter decay time recovers sooner', () => {
    const { episode, series } = embeddedData(svg);
    const recoveredAtMs: number[] = [];
    for (const { estimate } of series) {
      const before = estimate.filter(([atMs]) => atMs < episode.slowFromMs);
      const during = estimate.filter(([atMs]) => atMs >= episode.slowFromMs + episode.slowMs && atMs < episode.slowUntilMs);
      // Before the episode the estimate never exceeds the fast samples (10 ms)...
      expect(Math.max(...before.map(([, rttMs]) => rttMs))).toBe(episode.baseMs);
      // ...the first slow answer replaces it outright (the peak), not blended in...
      expect(Math.max(...during.map(([, rttMs]) => rttMs))).toBe(episode.slowMs);
      // ...and by the end it is back on the fast samples.
      expect(estimate[estimate.length - 1][1]).toBeLessThanOrEqual(episode.baseMs);
      expect(estimate[estimate.length - 1][1]).toBeGreaterThan(episode.baseMs * 0.9);
      const recovered = estimate.find(([atMs, rttMs]) => atMs > episode.slowUntilMs && rttMs <= episode.baseMs * 1.1);
      recoveredAtMs.push(recovered![0]);
    }
    const [slowDecay, fastDecay] = recoveredAtMs; // DECAY_TIMES_MS = [10 s, 2 s]
    expect(fastDecay).toBeLessThan(slowDecay);
  });

  it('the XML check itself rejects what it should', () => {
    expect(() => assertWellFormedXml('<a><b></a>')).toThrow(/closes/);
    expect(() => assertWellFormedXml('<a x="1" x="2"/>')).toThrow(/duplicate/);
    expect(() => assertWellFormedXml('<a>1 & 2</a>')).toThrow(/unescaped &/);
    expect(() => assertWellFormedXml('<a/><b/>')).toThrow(/one root/);
    expect(() => assertWellFormedXml('<a x=1/>')).toThrow(/malformed/);
  });

  it('matches the committed docs/images/estimate.svg (regenerate with `npm run charts`)', () => {
    const committed = fs.readFileSync(path.join(ROOT, 'docs', 'images', CHART_FILE), 'utf8');
    expect(committed).toBe(renderEstimateChart(estimateRuns()));
    expect(svg).toBe(committed);
  });
});
