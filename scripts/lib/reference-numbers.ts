/**
 * The reference's published results (reference-load-test.md §6, result set
 * `cluster-2026-10-05-fixes`, quick suite, 2 repeats): p99 in ms of OK calls
 * (fault phase for fault scenarios) and error rates, per policy. Only the
 * four policies it ran; `peak_ewma` here is its `peak_ewma_p2c`. One copy,
 * for the load-test report (scripts/bench) and the simulator's doc tables
 * (scripts/sim); keyed by scenario prefix (`s01`).
 */

/** The policies the reference ran, by the names both harnesses use. */
export type ReferencePolicy = 'round_robin' | 'peak_ewma' | 'least_request' | 'lr_od';

export interface ReferenceRow {
  readonly p99Ms: Readonly<Record<ReferencePolicy, number>>;
  /** Fractions, not per cent. */
  readonly errorRate: Readonly<Record<ReferencePolicy, number>>;
}

export const REFERENCE_RESULTS: Readonly<Record<string, ReferenceRow>> = {
  s01: {
    p99Ms: { peak_ewma: 26.9, least_request: 76.1, lr_od: 76.0, round_robin: 93.8 },
    errorRate: { peak_ewma: 0.0003, least_request: 0.0029, lr_od: 0.0007, round_robin: 0.0027 },
  },
  s02: {
    p99Ms: { peak_ewma: 21.3, least_request: 21.4, lr_od: 21.3, round_robin: 21.3 },
    errorRate: { peak_ewma: 0, least_request: 0, lr_od: 0, round_robin: 0 },
  },
  s03: {
    p99Ms: { peak_ewma: 21.5, least_request: 22.6, lr_od: 21.5, round_robin: 450 },
    errorRate: { peak_ewma: 0.0003, least_request: 0.0015, lr_od: 0.001, round_robin: 0.015 },
  },
  s04: {
    p99Ms: { peak_ewma: 21.5, least_request: 21.4, lr_od: 21.3, round_robin: 21.3 },
    errorRate: { peak_ewma: 0.0005, least_request: 0.0759, lr_od: 0.0187, round_robin: 0.0487 },
  },
  s05: {
    p99Ms: { peak_ewma: 21.5, least_request: 21.5, lr_od: 21.4, round_robin: 21.3 },
    errorRate: { peak_ewma: 0.0009, least_request: 0.0047, lr_od: 0.0012, round_robin: 0.0481 },
  },
  s10: {
    p99Ms: { peak_ewma: 23.6, least_request: 333, lr_od: 314, round_robin: 488 },
    errorRate: { peak_ewma: 0.0014, least_request: 0.0052, lr_od: 0.0047, round_robin: 0.0236 },
  },
  s11: {
    p99Ms: { peak_ewma: 30.3, least_request: 76.5, lr_od: 77.2, round_robin: 97.8 },
    errorRate: { peak_ewma: 0.0004, least_request: 0.003, lr_od: 0.0009, round_robin: 0.0027 },
  },
};

/** Recovery after the fault (s), where published: peak vs least_request. */
export const REFERENCE_RECOVERY_S: Readonly<Record<string, { peak_ewma: number; least_request: number }>> = {
  s03: { peak_ewma: 13, least_request: 4 },
  s04: { peak_ewma: 17, least_request: 3 },
  s10: { peak_ewma: 21, least_request: 3 },
};

export const REFERENCE_OVERHEAD = {
  cpuRatioAt10: '0.97–0.99',
  cpuRatioAt500: '1.42',
  pickP99At500Us: '3.7–9.3',
} as const;
