/**
 * Regression: a duration whose seconds overflow a double (ms = Infinity) was
 * rejected as "must be greater than zero". It is too long, and the message
 * must say so. Found by the config fuzzer (config-fuzz.test.ts).
 */
import { PeakEwmaLoadBalancingConfig } from '../../src';

describe('a duration too large for a double', () => {
  it.each([
    ['{seconds: 1e308}', { seconds: 1e308 }],
    ['a 400-digit "…s" string', `${'9'.repeat(400)}s`],
  ])('%s is rejected as too long, not as "must be greater than zero"', (_label, decayTime) => {
    expect(() => PeakEwmaLoadBalancingConfig.parse({ decayTime })).toThrow(
      'peak_ewma_experimental: field "decayTime" must be at most 3600s, got a duration too large to represent',
    );
  });

  it('still says "greater than zero" for zero', () => {
    expect(() => PeakEwmaLoadBalancingConfig.parse({ decayTime: { seconds: 0 } })).toThrow(
      'peak_ewma_experimental: field "decayTime" must be greater than zero',
    );
  });
});
