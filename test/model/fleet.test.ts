import { behaviourOf, fleetRoles } from '../../scripts/model/roles';
import { backendCapacityRps, fleetCapacityRps, meanServiceMs, ratePerClientRps } from '../../scripts/model/capacity';
import { FIVE_METHODS, meanMedianMs, parseMethod, parseMethodMix, SINGLE_METHOD } from '../../scripts/model/methods';
import { NormalSource, serviceTimeMs } from '../../scripts/model/lognormal';
import { seededRandom } from '../../src/core/random';

describe('roles and fleets', () => {
  it('lays out the het fleet in the harness order', () => {
    expect(fleetRoles('het', 20)).toEqual([
      'noisy', 'noisy', 'noisy', 'gc', 'flaky', 'throttled', ...new Array(14).fill('normal'),
    ]);
    expect(fleetRoles('homo', 3)).toEqual(['normal', 'normal', 'normal']);
  });

  it('scales the bad pods with the fleet: round(3k), round(k)…, each >= 1, halves to even as the harness\'s Python rounds; [noisy, flaky] below 10', () => {
    const counts = (n: number) => {
      const roles = fleetRoles('het', n);
      expect(roles).toHaveLength(n);
      return ['noisy', 'gc', 'flaky', 'throttled'].map((role) => roles.filter((r) => r === role).length);
    };
    // k = 2.5: Python's round(7.5) = 8, round(2.5) = 2 (Math.round gave 3: 17 bad pods, not 14).
    expect(counts(50)).toEqual([8, 2, 2, 2]);
    // k = 1.5: round(4.5) = 4, round(1.5) = 2.
    expect(counts(30)).toEqual([4, 2, 2, 2]);
    // k = 3.5: round(10.5) = 10, round(3.5) = 4.
    expect(counts(70)).toEqual([10, 4, 4, 4]);
    expect(counts(20)).toEqual([3, 1, 1, 1]);
    expect(fleetRoles('het', 5)).toEqual(['noisy', 'flaky', 'normal', 'normal', 'normal']);
    expect(() => fleetRoles('het', 0)).toThrow(/fleet size/);
  });
});

describe('capacity', () => {
  // The harness's published per-pod capacities (10 ms method), reference-load-test.md §4.
  it.each([
    ['normal', 764.8],
    ['noisy', 290.5],
    ['gc', 726.6],
    ['flaky', 805.1],
    ['throttled', 254.9],
  ] as const)('%s pod: %f rps', (role, rps) => {
    expect(backendCapacityRps(behaviourOf(role), SINGLE_METHOD)).toBeCloseTo(rps, 0);
  });

  it('gives the published fleet capacities and per-client rates', () => {
    const homo = fleetCapacityRps(fleetRoles('homo', 20).map(behaviourOf), SINGLE_METHOD);
    const het = fleetCapacityRps(fleetRoles('het', 20).map(behaviourOf), SINGLE_METHOD);
    expect(homo).toBeCloseTo(15_296, -1);
    expect(het).toBeCloseTo(13_365, -1);
    expect(ratePerClientRps(homo, 0.7, 8)).toBe(1338);
    expect(ratePerClientRps(het, 0.7, 8)).toBe(1169);
  });

  it('counts a dead backend as no capacity and the noisy mean as 27.5 ms', () => {
    expect(backendCapacityRps({ ...behaviourOf('normal'), mode: 'unavailable' }, SINGLE_METHOD)).toBe(0);
    expect(meanServiceMs(behaviourOf('noisy'), 10)).toBeCloseTo(27.54, 2);
  });
});

describe('methods', () => {
  it('parses names, weights and the deadline rule max(500 ms, 5 × median)', () => {
    expect(parseMethod('U10_get')).toEqual({ name: 'U10_get', medianMs: 10, weight: 1, deadlineMs: 500 });
    expect(parseMethod('U1000_report:2')).toEqual({ name: 'U1000_report', medianMs: 1000, weight: 2, deadlineMs: 5000 });
    expect(meanMedianMs(FIVE_METHODS)).toBeCloseTo(49.4, 6);
    expect(() => parseMethod('get')).toThrow(/U<median ms>_<name>/);
    expect(() => parseMethodMix('U1_a:0')).toThrow(/weight/);
  });
});

describe('service time', () => {
  it('is lognormal with the right mean and median, capped at 50 × median', () => {
    const normal = new NormalSource(seededRandom(3));
    const samples = Array.from({ length: 200_000 }, () => serviceTimeMs(10, 0.3, normal));
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    samples.sort((a, b) => a - b);
    expect(mean).toBeCloseTo(10 * Math.exp(0.045), 1); // 10.46 ms
    expect(samples[samples.length / 2]).toBeCloseTo(10, 1);
    expect(samples[Math.floor(samples.length * 0.99)]).toBeCloseTo(20.1, 0);
    const wide = Array.from({ length: 100_000 }, () => serviceTimeMs(1, 3, normal));
    expect(Math.max(...wide)).toBe(50);
    expect(serviceTimeMs(0, 0.3, normal)).toBe(0);
  });
});
