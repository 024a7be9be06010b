/** How long a removed endpoint's record is kept for its return. */
import { EndpointLoad } from '../../src/core';
import { RetiredLoads } from '../../src/policy/retired-loads';

describe('RetiredLoads', () => {
  it('gives a record back within the grace period, once', () => {
    const retired = new RetiredLoads(1_000);
    const load = new EndpointLoad();
    retired.retire('a', load, 0);
    expect(retired.reclaim('a', 999)).toBe(load);
    expect(retired.reclaim('a', 999)).toBeUndefined();
  });

  it('keeps a record past the grace period only while its calls are in flight', () => {
    const retired = new RetiredLoads(1_000);
    const busy = new EndpointLoad();
    busy.callStarted();
    const idle = new EndpointLoad();
    retired.retire('busy', busy, 0);
    retired.retire('idle', idle, 0);
    retired.prune(5_000);
    expect(retired.size).toBe(1);
    expect(retired.reclaim('idle', 5_000)).toBeUndefined();
    busy.callFinished();
    expect(retired.reclaim('busy', 5_000)).toBeUndefined();
  });
});
