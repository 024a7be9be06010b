import { experimental } from '@grpc/grpc-js';
import { parseArgs } from '../../scripts/bench/args';
import { loadBalancingConfig, parsePeakEwmaOverrides, POLICY_IDS } from '../../scripts/bench/policies';
import { register } from '../../src/policy/register';

/** The bench's configs are plain objects; grpc-js types them as its LoadBalancingConfig. */
const parse = (config: object) => experimental.parseLoadBalancingConfig(config as Parameters<typeof experimental.parseLoadBalancingConfig>[0]);

describe('bench policies in a time-scaled run', () => {
  beforeAll(() => register());

  it('every policy config parses through grpc-js at time × 16 (no silent fallback to pick_first)', () => {
    for (const policy of POLICY_IDS) {
      const config = loadBalancingConfig(policy, 16);
      expect(() => parse(config)).not.toThrow();
    }
  });

  it("multiplies peak_ewma's time constants, outlier detection's intervals and WRR's periods by the factor", () => {
    expect(parse(loadBalancingConfig('peak_ewma', 16)).toJsonObject()).toMatchObject({
      peak_ewma_experimental: { decayTime: '32s', defaultRtt: '0.16s', maxEjectionTime: '16s' },
    });
    // At factor 1 the policy runs its defaults, exactly as configured by users: {}.
    expect(loadBalancingConfig('peak_ewma', 1)).toEqual({ peak_ewma_experimental: {} });
    // grpc-js's outlier_detection takes {seconds, nanos}: 10 s × 1.25 = 12.5 s.
    const od = parse(loadBalancingConfig('lr_od', 1.25)).toJsonObject() as {
      outlier_detection: Record<string, unknown>;
    };
    expect(od.outlier_detection).toMatchObject({
      interval: { seconds: 12, nanos: 500_000_000 },
      base_ejection_time: { seconds: 37, nanos: 500_000_000 },
      max_ejection_time: { seconds: 375, nanos: 0 },
    });
    expect(loadBalancingConfig('wrr_orca', 16)).toMatchObject({
      weighted_round_robin: { oob_load_reporting_period: '16s', blackout_period: '16s', weight_update_period: '8s', weight_expiration_period: '160s' },
    });
  });
});

describe('a peak_ewma switch over real gRPC (--peak-ewma-config)', () => {
  beforeAll(() => register());

  it("sets the fields on peak_ewma's config, alone and inside outlier_detection, and scales its durations with the run", () => {
    // Values other than the defaults, so that toJsonObject writes them.
    const overrides = parsePeakEwmaOverrides('{"rotationMargin":0.5,"ejectionSignal":"peak","decayTime":"0.5s"}');
    // The product's own parser reads it back: our policy ran with the switch, not a silent pick_first.
    expect(parse(loadBalancingConfig('peak_ewma', 2, overrides)).toJsonObject()).toMatchObject({
      peak_ewma_experimental: { rotationMargin: 0.5, ejectionSignal: 'peak', decayTime: '1s', defaultRtt: '0.02s', maxEjectionTime: '2s' },
    });
    const od = parse(loadBalancingConfig('peak_ewma_od', 1, overrides)).toJsonObject() as { outlier_detection: { child_policy: object[] } };
    expect(od.outlier_detection.child_policy[0]).toMatchObject({ peak_ewma_experimental: { rotationMargin: 0.5, decayTime: '0.5s' } });
    // Other policies are untouched.
    expect(loadBalancingConfig('least_request', 2, overrides)).toEqual(loadBalancingConfig('least_request', 2));
  });

  it('rejects a bad switch before any run, naming the field and the rule', () => {
    expect(() => parsePeakEwmaOverrides('{"rotationMargin":')).toThrow(/--peak-ewma-config: not JSON/);
    expect(() => parsePeakEwmaOverrides('[1]')).toThrow(/expected a JSON object/);
    expect(() => parsePeakEwmaOverrides('{"ejectionSignal":"median"}')).toThrow(/--peak-ewma-config: .*ejectionSignal/);
    expect(() => parseArgs(['--peak-ewma-config', '{"choiceCount":1}'])).toThrow(/choiceCount/);
  });

  it('keeps a switch out of the report, which would call it peak_ewma', () => {
    expect(parseArgs(['--peak-ewma-config', '{"rotationMargin":0.25}']).peakEwmaConfig).toEqual({ rotationMargin: 0.25 });
    expect(() => parseArgs(['--peak-ewma-config', '{"rotationMargin":0.25}', '--report'])).toThrow(/save it with --json/);
  });
});
