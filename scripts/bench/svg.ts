/**
 * A few SVG primitives, enough for the report's charts: elements as strings,
 * numbers rounded to 0.1 px so the files stay small and diffs stay readable.
 */

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function px(value: number): string {
  return String(Math.round(value * 10) / 10);
}

type Attributes = Record<string, string | number | undefined>;

function attributes(attrs: Attributes): string {
  return Object.entries(attrs)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}="${typeof value === 'number' ? px(value) : escapeXml(value as string)}"`)
    .join('');
}

export function element(name: string, attrs: Attributes, children: string | string[] = ''): string {
  const body = Array.isArray(children) ? children.join('') : children;
  return body === '' ? `<${name}${attributes(attrs)}/>` : `<${name}${attributes(attrs)}>${body}</${name}>`;
}

export function text(x: number, y: number, content: string, attrs: Attributes = {}): string {
  return element('text', { x, y, ...attrs }, escapeXml(content));
}

export function line(x1: number, y1: number, x2: number, y2: number, attrs: Attributes = {}): string {
  return element('line', { x1, y1, x2, y2, ...attrs });
}

export function rect(x: number, y: number, width: number, height: number, attrs: Attributes = {}): string {
  return element('rect', { x, y, width: Math.max(0, width), height: Math.max(0, height), ...attrs });
}

export function polyline(points: readonly (readonly [number, number])[], attrs: Attributes = {}): string {
  return element('polyline', { points: points.map(([x, y]) => `${px(x)},${px(y)}`).join(' '), fill: 'none', ...attrs });
}

export function document(width: number, height: number, children: string[]): string {
  return (
    element(
      'svg',
      {
        xmlns: 'http://www.w3.org/2000/svg',
        width,
        height,
        viewBox: `0 0 ${width} ${height}`,
        'font-family': 'Helvetica, Arial, sans-serif',
        'font-size': 12,
      },
      [rect(0, 0, width, height, { fill: 'white' }), ...children],
    ) + '\n'
  );
}

/** Colour-blind-safe palette (Okabe–Ito), one colour per series. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];
