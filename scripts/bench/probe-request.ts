/**
 * The load test's request body on the Probe service: which method the call
 * stands for, as its nominal median service time, followed by padding up to
 * the reference's 100-byte payload. The Probe service carries raw bytes, so
 * the first 8 bytes are the median as a little-endian float64.
 */
export const PAYLOAD_BYTES = 100;

export function encodeProbeRequest(medianMs: number, payloadBytes = PAYLOAD_BYTES): Buffer {
  const buffer = Buffer.alloc(Math.max(8, payloadBytes));
  buffer.writeDoubleLE(medianMs, 0);
  return buffer;
}

/** The median a request asks for; 0 (answer at once) for a body too short to carry one. */
export function decodeMedianMs(request: Buffer): number {
  if (request.length < 8) {
    return 0;
  }
  const medianMs = request.readDoubleLE(0);
  return Number.isFinite(medianMs) && medianMs >= 0 ? medianMs : 0;
}
