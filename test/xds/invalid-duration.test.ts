/**
 * A google.protobuf.Duration that is not one (nanos outside ±999,999,999,
 * seconds and nanos of opposite signs, seconds beyond ±315,576,000,000:
 * duration.proto) is NACKed, naming the field, where it was summed as it came
 * and accepted as another value: `decay_time {seconds: 1, nanos: -500000000}`
 * ran as 0.5 s. Encoded by hand: ProtoJson cannot write an invalid Duration.
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { register } from '../../src/policy/register';
import { durationProblem } from '../../src/xds/duration';
import { convertPeakEwma } from '../../src/xds/peak-ewma-converter';
import { PEAK_EWMA_TYPE_URL } from '../../src/xds/type-urls';

beforeAll(() => {
  setLogVerbosity(logVerbosity.NONE);
  register();
});

/** A PeakEwma with one Duration field (PeakEwma's field numbers: decay_time 1, aggregation_interval 2, default_rtt 4). */
function peakEwmaWithDuration(field: number, seconds: number, nanos: number) {
  const writer = protobuf.Writer.create();
  writer.uint32((field << 3) | 2).fork();
  if (seconds !== 0) writer.uint32((1 << 3) | 0).int64(seconds);
  if (nanos !== 0) writer.uint32((2 << 3) | 0).int32(nanos);
  writer.ldelim();
  return { type_url: PEAK_EWMA_TYPE_URL, value: Buffer.from(writer.finish()) };
}

test.each([
  ['decay_time', 1, 1, -500_000_000, 'nanos must have the sign of seconds, got {seconds: 1, nanos: -500000000}'],
  ['decay_time', 1, 0, 2_000_000_000, 'nanos must be within ±999999999, got {seconds: 0, nanos: 2000000000}'],
  ['default_rtt', 4, -1, 1_500_000_000, 'nanos must be within ±999999999'],
  ['aggregation_interval', 2, 999_999_999_999_999, 0, 'seconds must be within ±315576000000, got {seconds: 999999999999999, nanos: 0}'],
])('PeakEwma.%s (field %i) {seconds: %i, nanos: %i} is NACKed, naming the field and the rule', (name, field, seconds, nanos, rule) => {
  expect(() => convertPeakEwma(peakEwmaWithDuration(field, seconds, nanos))).toThrow(
    `PeakEwma.${name}: is not a valid google.protobuf.Duration: ${rule}`,
  );
});

test('valid Durations, negative ones included, pass the well-formedness rule (the field rules judge them after)', () => {
  expect(convertPeakEwma(peakEwmaWithDuration(1, 1, 500_000_000))).toMatchObject({ peak_ewma_experimental: { decayTime: '1.5s' } });
  expect(convertPeakEwma(peakEwmaWithDuration(1, 0, 1))).toMatchObject({ peak_ewma_experimental: { decayTime: '0.000000001s' } });
  expect(durationProblem({ seconds: '-1', nanos: -500_000_000 })).toBeNull();
  expect(durationProblem({ seconds: '315576000000', nanos: 999_999_999 })).toBeNull();
  expect(durationProblem({ seconds: '-315576000001' })).toBe('seconds must be within ±315576000000');
  // A negative one is a valid Duration that PeakEwma's own rule (gt 0) then refuses.
  expect(() => convertPeakEwma(peakEwmaWithDuration(1, -1, 0))).toThrow('PeakEwma.decay_time: must be > 0s (validate.rules.duration.gt), got -1s');
});
