/**
 * The live progress line: rewritten in place on a terminal, printed every
 * `everyS` seconds otherwise (so logs stay readable).
 */
export class ProgressLine {
  private lastPrintMs = 0;
  private shown = false;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly everyS = 10,
  ) {}

  get isTty(): boolean {
    return Boolean(this.stream.isTTY);
  }

  update(text: string): void {
    if (this.isTty) {
      const width = this.stream.columns ?? 120;
      this.stream.write(`\r\x1b[2K${text.length > width - 1 ? text.slice(0, width - 2) + '…' : text}`);
      this.shown = true;
      return;
    }
    const nowMs = Date.now();
    if (nowMs - this.lastPrintMs >= this.everyS * 1000) {
      this.lastPrintMs = nowMs;
      this.stream.write(`${text}\n`);
    }
  }

  /** Ends the line (a terminal keeps the last state visible). */
  done(): void {
    if (this.isTty && this.shown) {
      this.stream.write('\n');
    }
    this.shown = false;
    this.lastPrintMs = 0;
  }
}

/** "450ms" / "21.3ms" / "–" */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return ms >= 100 ? `${Math.round(ms)}ms` : `${ms.toFixed(1)}ms`;
}

export function formatPercent(fraction: number, digits = 2): string {
  if (!Number.isFinite(fraction)) return '–';
  return `${(fraction * 100).toFixed(digits)}%`;
}
