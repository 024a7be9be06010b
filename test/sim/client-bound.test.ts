import { boundTable } from '../../scripts/sim/client-bound';
import { RegimeJson } from '../../scripts/sim/regimes';

/** A regime grid of one cell with just the numbers the table reads. */
function grid(values: Record<string, Record<string, number>>): RegimeJson {
  const cell: Record<string, Record<string, unknown>> = {};
  for (const [scenario, byPolicy] of Object.entries(values)) {
    cell[scenario] = Object.fromEntries(Object.entries(byPolicy).map(([policy, p99]) => [policy, { p99All: p99, p99AllPooled: 2 * p99 }]));
  }
  return { '1x64': cell } as unknown as RegimeJson;
}

describe('the client-only bound table', () => {
  const sick = (peak: number, k4: number, k30: number) => ({ peak_ewma: peak, 'k4=oracle-static{"exponent":4}': k4, 'k30=oracle-static{"exponent":30}': k30, oracle: 20 });
  const seed1 = grid({
    's02-steady-identical': { round_robin: 40, peak_ewma: 41, 'k4=oracle-static{"exponent":4}': 40, 'k30=oracle-static{"exponent":30}': 40, oracle: 20 },
    's01-steady-uneven': sick(120, 70, 50),
    's03-brownout': sick(50, 45, 60),
    's10-node-cpu-contention': sick(100, 60, 80),
  });
  const seed2 = grid({
    's02-steady-identical': { round_robin: 20, peak_ewma: 21, 'k4=oracle-static{"exponent":4}': 20, 'k30=oracle-static{"exponent":30}': 20, oracle: 20 },
    's01-steady-uneven': sick(60, 50, 30),
    's03-brownout': sick(30, 25, 40),
    's10-node-cpu-contention': sick(40, 40, 60),
  });

  it('takes the mean over seeds, then the best oracle-static exponent per scenario, and marks values over 1.3 × round_robin s02', () => {
    const table = boundTable([seed1, seed2], 'p99All');
    // round_robin s02: mean 30, bound 39.
    expect(table).toContain('| 1 × 64 | 30.0 (39.0) |');
    // s01: peak_ewma 90 ✗, best static k30 at 40 ✗ (k4 60), oracle 20.
    expect(table).toContain('90.0 ✗ / 40.0 ✗ (k30) / 20.0');
    // s03: peak_ewma 40 ✗; k4 35 beats k30 50: under the bound.
    expect(table).toContain('40.0 ✗ / 35.0 (k4) / 20.0');
    expect(table).toContain('70.0 ✗ / 50.0 ✗ (k4) / 20.0');
  });

  it('reads the pooled figure when asked', () => {
    expect(boundTable([seed1, seed2], 'p99AllPooled')).toContain('| 1 × 64 | 60.0 (78.0) | 180.0 ✗ / 80.0 ✗ (k30) / 40.0');
  });

  it('adds oracle-ready, its best label, when the grids ran it', () => {
    const withReady = (g: RegimeJson, ready: number, r90: number): RegimeJson => {
      const cell = (g as unknown as Record<string, Record<string, Record<string, unknown>>>)['1x64'];
      const copy: Record<string, Record<string, unknown>> = {};
      for (const [scenario, byPolicy] of Object.entries(cell)) {
        copy[scenario] = { ...byPolicy, ready: { p99All: ready, p99AllPooled: ready }, 'r90=oracle-ready{"healthy":0.9}': { p99All: r90, p99AllPooled: r90 } };
      }
      return { '1x64': copy } as unknown as RegimeJson;
    };
    const table = boundTable([withReady(seed1, 50, 36), withReady(seed2, 30, 40)], 'p99All');
    expect(table).toContain('peak_ewma / oracle-ready / oracle-static (k) / oracle');
    // ready's mean 40 ✗ loses to r90's 38 (under the bound of 39).
    expect(table).toContain('90.0 ✗ / 38.0 (r90) / 40.0 ✗ (k30) / 20.0');
  });
});
