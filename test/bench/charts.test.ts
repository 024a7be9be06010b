import { barChart, lineChart, linearTicks, logTicks, trailingMean } from '../../scripts/bench/charts';
import { escapeXml } from '../../scripts/bench/svg';
import { markdownTable, textTable } from '../../scripts/bench/tables';

/** Attribute values of every `<tag ...>` in an SVG string. */
function elements(svg: string, tag: string): Record<string, string>[] {
  return Array.from(svg.matchAll(new RegExp(`<${tag}([^>]*)>`, 'g')), (m) =>
    Object.fromEntries(Array.from(m[1].matchAll(/ ([\w-]+)="([^"]*)"/g), (a) => [a[1], a[2]])),
  );
}

describe('charts', () => {
  it('chooses 1-2-5 ticks', () => {
    expect(linearTicks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(linearTicks(450)).toEqual([0, 100, 200, 300, 400, 500]);
    expect(logTicks(21, 450)).toEqual([20, 50, 100, 200, 500]);
  });

  it('draws one bar per measured value, taller for larger values, and a dash for missing ones', () => {
    const svg = barChart({
      title: 'p99 <ms>',
      yLabel: 'ms',
      groups: ['s01', 's03'],
      series: [
        { name: 'peak_ewma', values: [20, 25] },
        { name: 'round_robin', values: [90, null] },
      ],
      logScale: true,
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('p99 &lt;ms&gt;');
    const bars = elements(svg, 'rect').filter((r) => r.fill === '#0072B2' || r.fill === '#E69F00');
    // 3 values + 2 legend swatches
    expect(bars.length).toBe(5);
    const heights = bars.filter((b) => Number(b.width) > 10).map((b) => Number(b.height));
    // drawn group by group: peak 20, rr 90 (s01), peak 25 (s03)
    expect(heights.length).toBe(3);
    expect(Math.max(...heights)).toBe(heights[1]);
    expect(heights[2]).toBeGreaterThan(heights[0]);
    expect(svg).toContain('>–</text>');
  });

  it('draws one polyline per series, the fault band and the reference line', () => {
    const svg = lineChart({
      title: 'share',
      xLabel: 's',
      yLabel: 'share',
      series: [
        { name: 'a', points: [[1, 0.05], [2, 0.01], [3, 0.05]] },
        { name: 'b', points: [[1, 0.05], [2, 0.05], [3, 0.05]] },
      ],
      bands: [{ fromX: 1.5, toX: 2.5, label: 'fault' }],
      referenceLines: [{ y: 0.05, label: 'fair share' }],
    });
    const lines = elements(svg, 'polyline');
    expect(lines.length).toBe(2);
    expect(lines[0].points.split(' ').length).toBe(3);
    // The dip in series a is drawn lower (larger y) than its neighbours.
    const ys = lines[0].points.split(' ').map((p) => Number(p.split(',')[1]));
    expect(ys[1]).toBeGreaterThan(ys[0]);
    expect(svg).toContain('>fault</text>');
    expect(svg).toContain('stroke-dasharray="4 3"');
  });

  it('smooths with a trailing mean, shorter at the start', () => {
    expect(trailingMean([3, 0, 0, 3, NaN], 3)).toEqual([3, 1.5, 1, 1, 1.5]);
  });

  it('escapes text', () => {
    expect(escapeXml('a<b & "c">')).toBe('a&lt;b &amp; &quot;c&quot;&gt;');
  });
});

describe('tables', () => {
  const table = { headers: ['policy', 'p99'], rows: [['peak_ewma', '21.5ms'], ['round_robin', '450ms']] };

  it('aligns text columns, numbers to the right', () => {
    expect(textTable(table).split('\n')).toEqual([
      'policy          p99',
      '-----------  ------',
      'peak_ewma    21.5ms',
      'round_robin   450ms',
    ]);
  });

  it('writes Markdown with escaped pipes', () => {
    expect(markdownTable({ headers: ['a|b', 'n'], rows: [['x', '1']] })).toBe('| a\\|b | n |\n| --- | ---: |\n| x | 1 |');
  });
});
