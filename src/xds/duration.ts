/**
 * google.protobuf.Duration as protobufjs decodes it with `longs: String`
 * ({seconds: "5", nanos: 0}, either part absent when zero), to exact
 * nanoseconds and to proto3 JSON text ("5s", "0.25s", "-1s").
 */
export interface DurationObject {
  seconds?: string | number | null;
  nanos?: number | null;
}

const NANOS_PER_SECOND = 1_000_000_000n;

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
