/**
 * The simulator's terminal tables name each run's own scale: the fresh-backend
 * table printed "16 clients" for herd-fast's 256 (found by a measurement audit).
 */
import { freshTable } from '../../scripts/sim/report';
import { PolicyResult } from '../../scripts/sim/results';

const herdResult = (clients: number) =>
  ({ clients, fresh: [{ atS: 20, firstSecond: 0.75, peakBin: 1.1 }], busiestHealthy: { p95: 1.01 }, p99: 20.2 }) as unknown as PolicyResult;

describe("the fresh-backend table's title", () => {
  it('states the clients each scenario ran', () => {
    const text = freshTable({ herd: { peak_ewma: herdResult(16) }, 'herd-fast': { peak_ewma: herdResult(256) } });
    expect(text).toContain("== herd: 16 clients, fresh backend's share ==");
    expect(text).toContain("== herd-fast: 256 clients, fresh backend's share ==");
  });
});
