/** Tables as aligned text (terminal) and as Markdown (the report). */

export interface Table {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns after the first are numbers: right-aligned. */
  readonly numeric?: boolean;
}

export function textTable(table: Table): string {
  const widths = table.headers.map((header, c) =>
    Math.max(header.length, ...table.rows.map((row) => (row[c] ?? '').length)),
  );
  const format = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (c > 0 && table.numeric !== false ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  return [format(table.headers), widths.map((w) => '-'.repeat(w)).join('  '), ...table.rows.map(format)].join('\n');
}

export function markdownTable(table: Table): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const align = table.headers.map((_, c) => (c > 0 && table.numeric !== false ? '---:' : '---'));
  return [
    `| ${table.headers.map(escape).join(' | ')} |`,
    `| ${align.join(' | ')} |`,
    ...table.rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
  ].join('\n');
}

/** "21.5ms [20.1, 23.0]": a mean over repeats and its bootstrap interval (none for one repeat). */
export function withInterval(value: number, interval: readonly [number, number], repeats: number, format: (x: number) => string): string {
  if (!Number.isFinite(value)) return '–';
  return repeats > 1 && Number.isFinite(interval[0]) ? `${format(value)} [${format(interval[0])}, ${format(interval[1])}]` : format(value);
}
