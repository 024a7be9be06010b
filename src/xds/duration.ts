/**
 * google.protobuf.Duration as protobufjs decodes it with `longs: String`
 * ({seconds: "5", nanos: 0}, either part absent when zero), to exact
 * nanoseconds and to proto3 JSON text ("5s", "0.25s", "-1s").
 */
export interface DurationObject {
  seconds?: string | number | null | undefined;
  nanos?: number | null | undefined;
}

const NANOS_PER_SECOND = 1_000_000_000n;

/** google/protobuf/duration.proto: seconds within ±315,576,000,000 (about 10,000 years). */
const MAX_DURATION_SECONDS = 315_576_000_000n;
const MAX_DURATION_NANOS = 999_999_999;

/**
 * Why `duration` is not a valid google.protobuf.Duration, or null if it is
 * one. duration.proto: seconds within ±315,576,000,000; nanos within
 * ±999,999,999 and, when seconds is not 0, of the same sign. On the wire
 * anything fits; summed as it came, `{seconds: 1, nanos: -500000000}` would
 * quietly mean 0.5 s where Envoy refuses the Cluster.
 */
export function durationProblem(duration: DurationObject): string | null {
  let seconds: bigint;
  try {
    seconds = BigInt(duration.seconds ?? 0);
  } catch {
    return 'seconds must be a whole number';
  }
  const nanos = duration.nanos ?? 0;
  if (seconds > MAX_DURATION_SECONDS || seconds < -MAX_DURATION_SECONDS) {
    return `seconds must be within ±${MAX_DURATION_SECONDS}`;
  }
  if (!Number.isInteger(nanos) || nanos > MAX_DURATION_NANOS || nanos < -MAX_DURATION_NANOS) {
    return `nanos must be within ±${MAX_DURATION_NANOS}`;
  }
  if ((seconds > 0n && nanos < 0) || (seconds < 0n && nanos > 0)) {
    return 'nanos must have the sign of seconds';
  }
  return null;
}

export function durationToNanos(duration: DurationObject): bigint {
  return BigInt(duration.seconds ?? 0) * NANOS_PER_SECOND + BigInt(duration.nanos ?? 0);
}

/** Exact proto3 JSON text: seconds with up to 9 fractional digits, then "s". */
export function nanosToJson(totalNanos: bigint): string {
  const sign = totalNanos < 0n ? '-' : '';
  const magnitude = totalNanos < 0n ? -totalNanos : totalNanos;
  const seconds = magnitude / NANOS_PER_SECOND;
  const fraction = magnitude % NANOS_PER_SECOND;
  const fractionText = fraction === 0n ? '' : '.' + fraction.toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${seconds}${fractionText}s`;
}

export function durationToJson(duration: DurationObject): string {
  return nanosToJson(durationToNanos(duration));
}
