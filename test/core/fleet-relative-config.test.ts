/**
 * The fleet-relative knobs as service-config fields: defaults (docs/tuning.md),
 * both casings, "off" values, round trips, and an error naming the field for
 * each broken rule.
 */
import { PEAK_EWMA_DEFAULTS, PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';

const parse = (obj: unknown) => PeakEwmaLoadBalancingConfig.parse(obj);

describe('peak_ewma_experimental fleet-relative fields', () => {
  it('default to the tuned values: ejection on the mean at 1.5 × the fleet, probe after 1 s, pending-aware, steeper cost with exponent 1', () => {
    const { settings } = parse({});
    expect(settings.fleetPenaltyExponent).toBe(1);
    expect(settings.ejectionRatio).toBe(1.5);
    expect(settings.ejectionSignal).toBe('mean');
    expect(settings.maxEjectionMs).toBe(1_000);
    expect(settings.pendingAware).toBe(true);
    expect(PEAK_EWMA_DEFAULTS.choiceCount).toBe(2);
  });

  it('read camelCase and snake_case; 0 / "0s" / false turn each off (the textbook algorithm)', () => {
    const camel = parse({ fleetPenaltyExponent: 0, ejectionRatio: 0, maxEjectionTime: '0s', pendingAware: false });
    const snake = parse({ fleet_penalty_exponent: 0, ejection_ratio: 0, max_ejection_time: { seconds: 0 }, pending_aware: false });
    for (const config of [camel, snake]) {
      expect(config.settings).toMatchObject({ fleetPenaltyExponent: 0, ejectionRatio: 0, maxEjectionMs: 0, pendingAware: false });
    }
    expect(parse({ maxEjectionTime: '0.25s' }).settings.maxEjectionMs).toBe(250);
  });

  it('read any spelling of a zero duration as "off" for maxEjectionTime, and only there', () => {
    for (const zero of ['0s', '0.000s', { seconds: 0 }, { seconds: '0', nanos: 0 }, {}]) {
      expect(parse({ maxEjectionTime: zero }).settings.maxEjectionMs).toBe(0);
    }
    expect(() => parse({ decayTime: '0.000s' })).toThrow(/"decayTime" must be greater than zero/);
  });

  it('the rotation (margin 0.15, gate 1.45), decay toward the fleet and memory over 20 fair shares by default; read, round-trip', () => {
    expect(parse({}).settings).toMatchObject({ rotationMargin: 0.15, rotationGate: 1.45, decayToward: 'fleet', decayFairShares: 20 });
    const switched = parse({ rotation_margin: 0, rotation_gate: 0, decay_toward: 'zero', decay_fair_shares: 0 });
    expect(switched.settings).toMatchObject({ rotationMargin: 0, rotationGate: 0, decayToward: 'zero', decayFairShares: 0 });
    const json = switched.toJsonObject() as Record<string, Record<string, unknown>>;
    expect(json.peak_ewma_experimental).toMatchObject({ rotationMargin: 0, rotationGate: 0, decayToward: 'zero', decayFairShares: 0 });
    expect(parse(json.peak_ewma_experimental)).toEqual(switched);
    const defaultKeys = Object.keys((parse({}).toJsonObject() as Record<string, object>).peak_ewma_experimental);
    for (const field of ['rotationMargin', 'rotationGate', 'decayToward', 'ejectionSignal', 'decayFairShares']) {
      expect(defaultKeys).not.toContain(field);
    }
  });

  it('appear in toJsonObject only when they differ from the defaults, and round-trip', () => {
    const tuned = parse({});
    expect(Object.keys((tuned.toJsonObject() as Record<string, object>).peak_ewma_experimental)).not.toContain('ejectionRatio');
    const textbook = parse({ fleetPenaltyExponent: 2, ejectionRatio: 0, maxEjectionTime: '0s', pendingAware: false });
    const json = textbook.toJsonObject() as Record<string, Record<string, unknown>>;
    expect(json.peak_ewma_experimental).toMatchObject({
      fleetPenaltyExponent: 2,
      ejectionRatio: 0,
      maxEjectionTime: '0s',
      pendingAware: false,
    });
    expect(parse(json.peak_ewma_experimental)).toEqual(textbook);
  });

  it.each([
    [{ fleetPenaltyExponent: -1 }, /"fleetPenaltyExponent" must be at least 0/],
    [{ fleetPenaltyExponent: 11 }, /"fleetPenaltyExponent" must be at least 0 and at most 10/],
    [{ ejectionRatio: 0.5 }, /"ejectionRatio" must be 0 \(off\) or at least 1, got 0.5/],
    [{ ejectionRatio: 'high' }, /"ejectionRatio" must be a finite number/],
    [{ maxEjectionTime: '-1s' }, /"maxEjectionTime" must be a duration such as "10s"/],
    [{ maxEjectionTime: '7200s' }, /"maxEjectionTime" must be at most 3600s/],
    [{ pendingAware: 'yes' }, /"pendingAware" must be true or false, got "yes"/],
    [{ rotationMargin: 1.5 }, /"rotationMargin" must be at least 0 and at most 1/],
    [{ rotationMargin: -0.1 }, /"rotationMargin" must be at least 0/],
    [{ rotationGate: -1 }, /"rotationGate" must be at least 0/],
    [{ rotationGate: 1e4 }, /"rotationGate" must be at least 0 and at most 1000/],
    [{ decayToward: 'one' }, /"decayToward" must be one of/],
    [{ decayFairShares: -1 }, /"decayFairShares" must be at least 0/],
    [{ decayFairShares: 'many' }, /"decayFairShares" must be a finite number/],
  ])('rejects %j', (config, message) => {
    expect(() => parse(config)).toThrow(message);
  });
});
