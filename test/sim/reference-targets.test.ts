import { ResultAt, scoreLine, ScoredResult } from '../../scripts/sim/reference-targets';

describe("the reference score's p99.9 column", () => {
  const result = (p999: number | null): ScoredResult =>
    ({ p99: 20, p999, p99All: 20, errorRate: 0, recoverySeconds: 4, lostShareSeconds: 0, busiestP95: 1.05 }) as unknown as ScoredResult;
  const column = (peak: number | null, lrOd: number | null): string => {
    const get: ResultAt = (_seed, _layout, _scenario, policy) => result(policy === 'lr_od' ? lrOd : peak);
    return scoreLine(get, [1, 2]).split(' | ')[1];
  };

  it('is the ratio of the p99.9s, averaged over seeds', () => {
    expect(column(40, 160)).toBe('0.25');
  });

  it('reads a p99.9 written as null (under 10,000 calls a client) as none, not as 0 ms: no false pass', () => {
    expect(column(null, 160)).toBe('NaN');
    expect(column(40, null)).toBe('NaN');
  });
});
