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
