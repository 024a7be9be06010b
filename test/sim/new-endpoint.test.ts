/**
 * herd-fast (issue 14 item 2): a cold pod joins a warm fleet of a 2 ms
 * service (below the engine's 10 ms defaultRtt) with 256 light clients, then
 * pod 1 restarts cold. Target: in its first second after publication each
 * fresh pod gets at least half its fair share (round_robin, which only
 * waits for discovery — up to one 500 ms poll — gets ~0.75). Before the
 * fix peak_ewma gave it 0.04 and 0.10 × fair (the unsampled prior lost to
 * every ~2 ms peer); the full-scale numbers are in docs/simulation.md.
 */
import { executeRun } from '../../scripts/sim/execute';
import { Timeline } from '../../scripts/sim/timeline';

// The join at 2 s, the restart at faultEnd − 10 = 4 s of the measured window.
const TIMELINE: Timeline = { warmupMs: 2_000, measureS: 8, faultStartS: 2, faultEndS: 14 };

describe('herd-fast: fresh pods of a 2 ms service, 256 light clients (reduced: 2 s + 8 s)', () => {
  it.each(['peak_ewma', 'round_robin'])('%s: each fresh pod gets ≥ 0.5 × fair in its first second', (policy) => {
    const result = executeRun({ scenario: 'herd-fast', groups: [{ policy, clients: 256 }], seed: 1, timeline: TIMELINE });
    const fresh = result.groups[0].fresh!;
    expect(fresh.map((event) => event.atS)).toEqual([2, 4]);
    expect(fresh.map((event) => ({ atS: event.atS, fair: event.firstSecond >= 0.5 }))).toEqual([
      { atS: 2, fair: true },
      { atS: 4, fair: true },
    ]);
    // ...and not a herd either: at most 2 × fair (the herd target).
    expect(Math.max(...fresh.map((event) => event.firstSecond))).toBeLessThan(2);
  });
});
