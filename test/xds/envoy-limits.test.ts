/**
 * Where this package is stricter than Envoy: Envoy's PeakEwma PGV rules only
 * ask decay_time, default_rtt and penalty_value to be positive; our policy
 * caps them at 1 h, 60 s and 1e12 (docs/xds.md, "Limits beyond Envoy's").
 * At the cap: accepted. Just above: rejected (→ NACK), and the error says
 * Envoy would take it, so an operator looks here and not at the control plane.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { ProtoJson } from '../../scripts/xds/proto-json';
import { PEAK_EWMA_LIMITS } from '../../src/policy/peak-ewma-config';
import { register } from '../../src/policy/register';
import { ABOVE_OUR_LIMIT_NOTE, convertPeakEwma } from '../../src/xds/peak-ewma-converter';
import { policyProtoRoot } from '../../src/xds/policy-protos';
import { PEAK_EWMA_TYPE_URL } from '../../src/xds/type-urls';

beforeAll(() => {
  setLogVerbosity(logVerbosity.NONE);
  register();
});

const json = new ProtoJson(policyProtoRoot());
const peakEwma = (fields: Record<string, unknown>) => json.encodeAny({ '@type': PEAK_EWMA_TYPE_URL, ...fields });

test('the caps are the ones docs/xds.md names', () => {
  expect([PEAK_EWMA_LIMITS.maxDecayMs, PEAK_EWMA_LIMITS.maxDefaultRttMs, PEAK_EWMA_LIMITS.maxPenaltyValue]).toEqual([3_600_000, 60_000, 1e12]);
});

test.each([
  ['decay_time', '3600s', '3600.000000001s', 'PeakEwma.decay_time: must be at most 3600s, got "3600.000000001s"'],
  ['default_rtt', '60s', '60.001s', 'PeakEwma.default_rtt: must be at most 60s, got "60.001s"'],
  ['penalty_value', 1e12, 1.000001e12, 'PeakEwma.penalty_value: must be greater than 0 and at most 1000000000000, got 1000001000000'],
  ['penalty_value', 1e12, Infinity, 'PeakEwma.penalty_value: must be a finite number, got Infinity'],
])('%s: %p is accepted, %p (which Envoy accepts) is rejected saying so', (field, atCap, aboveCap, error) => {
  expect(() => convertPeakEwma(peakEwma({ [field]: atCap }))).not.toThrow();
  let message = '';
  try {
    convertPeakEwma(peakEwma({ [field]: aboveCap }));
  } catch (thrown) {
    message = (thrown as Error).message;
  }
  // As the Cluster spells the field, with the value as given (penalty_value +Infinity was quoted as null).
  expect(message).toBe(error + ABOVE_OUR_LIMIT_NOTE);
});

test('a duration over its cap is quoted as it came, not as a float (60.000000001s, not 60.000000001000004s)', () => {
  expect(() => convertPeakEwma(peakEwma({ default_rtt: '60.000000001s' }))).toThrow(/must be at most 60s, got "60.000000001s"/);
});
