/**
 * Service times: median·exp(σ·z), z standard normal, capped at 50 × median
 * (the harness's rule). z comes from the Box–Muller transform; its second
 * value is kept for the next draw, so one draw costs one uniform pair every
 * other call.
 */
import { RandomSource } from '../../src/core/random';

export const SERVICE_CAP_MEDIANS = 50;

export class NormalSource {
  private spare = 0;
  private hasSpare = false;

  constructor(private readonly random: RandomSource) {}

  next(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    // 1 - u lies in (0, 1], so the log is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - this.random()));
    const angle = 2 * Math.PI * this.random();
    this.spare = radius * Math.sin(angle);
    this.hasSpare = true;
    return radius * Math.cos(angle);
  }
}

export function serviceTimeMs(medianMs: number, sigma: number, normal: NormalSource): number {
  if (medianMs <= 0) {
    return 0;
  }
  const ms = medianMs * Math.exp(sigma * normal.next());
  const capMs = SERVICE_CAP_MEDIANS * medianMs;
  return ms < capMs ? ms : capMs;
}
