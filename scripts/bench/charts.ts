/**
 * The report's two chart kinds, drawn with svg.ts: grouped bars (a latency
 * percentile per scenario and policy, log scale so a 450 ms collapse and a
 * 21 ms tail fit one axis) and lines over time (a backend's share of calls,
 * with the fault window shaded).
 */
import { document, line, PALETTE, polyline, rect, text } from './svg';

export interface BarSeries {
  readonly name: string;
  /** One value per group; null = not measured. */
  readonly values: readonly (number | null)[];
}

export interface BarChartSpec {
  /** One line per "\n": a chart that states its own scale needs more than one line's width. */
  readonly title: string;
  readonly yLabel: string;
  readonly groups: readonly string[];
  readonly series: readonly BarSeries[];
  /** Logarithmic y axis (values must be > 0). */
  readonly logScale?: boolean;
}

export interface LineSeries {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface LineChartSpec {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  /** Shaded x ranges, e.g. the fault window. */
  readonly bands?: readonly { readonly fromX: number; readonly toX: number; readonly label: string }[];
  /** Dashed horizontal reference lines, e.g. the fair share. */
  readonly referenceLines?: readonly { readonly y: number; readonly label: string }[];
  readonly yMax?: number;
}

const MARGIN = { left: 64, right: 16, top: 36, bottom: 56 };
const LEGEND_ROW_PX = 18;
const TITLE_ROW_PX = 17;
/** A bold 14 px character's width, generously: the chart widens to fit its title's longest line. */
const TITLE_CHAR_PX = 8;

/** Tick values for a linear axis from 0 to about `max`: 1, 2 or 5 × 10^k steps. */
export function linearTicks(max: number, targetCount = 5): number[] {
  if (!(max > 0)) {
    return [0, 1];
  }
  const rough = max / targetCount;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let i = 0; i * step <= max * (1 + 1e-9) || ticks.length < 2; i++) {
    ticks.push(Number((i * step).toPrecision(12)));
  }
  if (ticks[ticks.length - 1] < max) {
    ticks.push(Number((ticks.length * step).toPrecision(12)));
  }
  return ticks;
}

/** Tick values for a log axis covering [min, max]: 1, 2, 5 × 10^k. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  const low = Math.floor(Math.log10(Math.max(min, 1e-9)));
  const high = Math.ceil(Math.log10(Math.max(max, min * 10)));
  for (let k = low; k <= high; k++) {
    for (const m of [1, 2, 5]) {
      const value = Number((m * 10 ** k).toPrecision(12));
      ticks.push(value);
    }
  }
  const first = Math.max(0, ticks.findIndex((t) => t > min) - 1);
  const afterLast = ticks.findIndex((t) => t >= max);
  return ticks.slice(first, afterLast === -1 ? ticks.length : afterLast + 1);
}

function formatTick(value: number): string {
  if (value >= 1000) return `${value / 1000}k`;
  return String(value);
}

function legend(names: readonly string[], x: number, y: number): string[] {
  return names.flatMap((name, i) => [
    rect(x, y + i * LEGEND_ROW_PX - 9, 10, 10, { fill: PALETTE[i % PALETTE.length] }),
    text(x + 14, y + i * LEGEND_ROW_PX, name),
  ]);
}

export function barChart(spec: BarChartSpec): string {
  const legendWidth = 150;
  const groupWidth = Math.max(60, spec.series.length * 14 + 20);
  const plotWidth = spec.groups.length * groupWidth;
  const plotHeight = 260;
  const titleLines = spec.title.split('\n');
  const top = MARGIN.top + (titleLines.length - 1) * TITLE_ROW_PX;
  const titleWidth = MARGIN.left + Math.max(...titleLines.map((l) => l.length)) * TITLE_CHAR_PX + MARGIN.right;
  const width = Math.max(MARGIN.left + plotWidth + legendWidth + MARGIN.right, titleWidth);
  const height = top + plotHeight + MARGIN.bottom;
  const values = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const maxValue = values.length > 0 ? Math.max(...values) : 1;
  const positive = values.filter((v) => v > 0);
  const minValue = positive.length > 0 ? Math.min(...positive) : 1;
  const ticks = spec.logScale ? logTicks(minValue, maxValue) : linearTicks(maxValue);
  const bottom = top + plotHeight;
  const scale = (value: number): number => {
    if (spec.logScale) {
      const lo = Math.log10(ticks[0]);
      const hi = Math.log10(ticks[ticks.length - 1]);
      return bottom - ((Math.log10(Math.max(value, ticks[0])) - lo) / (hi - lo)) * plotHeight;
    }
    return bottom - (value / ticks[ticks.length - 1]) * plotHeight;
  };
  const parts: string[] = titleLines.map((l, i) => text(MARGIN.left, 20 + i * TITLE_ROW_PX, l, { 'font-size': 14, 'font-weight': 'bold' }));
  for (const tick of ticks) {
    const y = scale(tick);
    parts.push(line(MARGIN.left, y, MARGIN.left + plotWidth, y, { stroke: '#ddd' }));
    parts.push(text(MARGIN.left - 6, y + 4, formatTick(tick), { 'text-anchor': 'end' }));
  }
  const barWidth = (groupWidth - 20) / Math.max(1, spec.series.length);
  spec.groups.forEach((group, g) => {
    const groupX = MARGIN.left + g * groupWidth + 10;
    spec.series.forEach((series, s) => {
      const value = series.values[g];
      const x = groupX + s * barWidth;
      if (value === null || value === undefined || !Number.isFinite(value)) {
        parts.push(text(x + barWidth / 2, bottom - 3, '–', { 'text-anchor': 'middle', fill: '#999' }));
        return;
      }
      const y = scale(value);
      parts.push(rect(x, y, barWidth - 1, bottom - y, { fill: PALETTE[s % PALETTE.length] }));
    });
    parts.push(text(groupX + (groupWidth - 20) / 2, bottom + 16, group, { 'text-anchor': 'middle' }));
  });
  parts.push(line(MARGIN.left, bottom, MARGIN.left + plotWidth, bottom, { stroke: '#333' }));
  parts.push(line(MARGIN.left, top, MARGIN.left, bottom, { stroke: '#333' }));
  parts.push(
    text(16, top + plotHeight / 2, spec.yLabel, {
      transform: `rotate(-90 16 ${top + plotHeight / 2})`,
      'text-anchor': 'middle',
    }),
  );
  parts.push(...legend(spec.series.map((s) => s.name), MARGIN.left + plotWidth + 16, top + 10));
  return document(width, height, parts);
}

export function lineChart(spec: LineChartSpec): string {
  const legendWidth = 150;
  const plotWidth = 560;
  const plotHeight = 260;
  const width = MARGIN.left + plotWidth + legendWidth + MARGIN.right;
  const height = MARGIN.top + plotHeight + MARGIN.bottom;
  const xs = spec.series.flatMap((s) => s.points.map(([x]) => x));
  const ys = spec.series.flatMap((s) => s.points.map(([, y]) => y));
  const xMin = xs.length > 0 ? Math.min(...xs) : 0;
  const xMax = xs.length > 0 ? Math.max(...xs) : 1;
  const yTicks = linearTicks(spec.yMax ?? Math.max(1e-9, ...ys, ...(spec.referenceLines ?? []).map((r) => r.y)));
  const yTop = yTicks[yTicks.length - 1];
  // Round tick values (multiples of the step), whatever the first x is.
  const xStep = linearTicks(xMax - xMin, 8)[1] ?? 1;
  const xTicks: number[] = [];
  for (let t = Math.ceil(xMin / xStep) * xStep; t <= xMax; t += xStep) {
    xTicks.push(Number(t.toPrecision(12)));
  }
  const bottom = MARGIN.top + plotHeight;
  const sx = (x: number): number => MARGIN.left + ((x - xMin) / Math.max(1e-9, xMax - xMin)) * plotWidth;
  const sy = (y: number): number => bottom - (Math.min(y, yTop) / yTop) * plotHeight;
  const parts: string[] = [text(MARGIN.left, 20, spec.title, { 'font-size': 14, 'font-weight': 'bold' })];
  for (const band of spec.bands ?? []) {
    parts.push(rect(sx(band.fromX), MARGIN.top, sx(band.toX) - sx(band.fromX), plotHeight, { fill: '#f3e0e0' }));
    parts.push(text(sx(band.fromX) + 4, MARGIN.top + 14, band.label, { fill: '#a33' }));
  }
  for (const tick of yTicks) {
    parts.push(line(MARGIN.left, sy(tick), MARGIN.left + plotWidth, sy(tick), { stroke: '#ddd' }));
    parts.push(text(MARGIN.left - 6, sy(tick) + 4, formatTick(tick), { 'text-anchor': 'end' }));
  }
  for (const tick of xTicks) {
    parts.push(text(sx(tick), bottom + 16, formatTick(tick), { 'text-anchor': 'middle' }));
  }
  for (const ref of spec.referenceLines ?? []) {
    parts.push(line(MARGIN.left, sy(ref.y), MARGIN.left + plotWidth, sy(ref.y), { stroke: '#666', 'stroke-dasharray': '4 3' }));
    parts.push(text(MARGIN.left + plotWidth - 4, sy(ref.y) - 4, ref.label, { 'text-anchor': 'end', fill: '#444' }));
  }
  spec.series.forEach((series, i) => {
    parts.push(
      polyline(
        series.points.map(([x, y]) => [sx(x), sy(y)] as const),
        { stroke: PALETTE[i % PALETTE.length], 'stroke-width': 2 },
      ),
    );
  });
  parts.push(line(MARGIN.left, bottom, MARGIN.left + plotWidth, bottom, { stroke: '#333' }));
  parts.push(line(MARGIN.left, MARGIN.top, MARGIN.left, bottom, { stroke: '#333' }));
  parts.push(text(MARGIN.left + plotWidth / 2, bottom + 36, spec.xLabel, { 'text-anchor': 'middle' }));
  parts.push(
    text(16, MARGIN.top + plotHeight / 2, spec.yLabel, {
      transform: `rotate(-90 16 ${MARGIN.top + plotHeight / 2})`,
      'text-anchor': 'middle',
    }),
  );
  parts.push(...legend(spec.series.map((s) => s.name), MARGIN.left + plotWidth + 16, MARGIN.top + 10));
  return document(width, height, parts);
}

/** k-point trailing mean (shorter at the start); non-finite points are skipped. */
export function trailingMean(series: readonly number[], k: number): number[] {
  return series.map((_, i) => {
    const window = series.slice(Math.max(0, i - k + 1), i + 1).filter(Number.isFinite);
    return window.length > 0 ? window.reduce((a, b) => a + b, 0) / window.length : NaN;
  });
}
