/**
 * What callMarker tells the picker (src/policy/streaming.ts): each timed
 * call's method, as one key per method path, so the engine's per-key cache
 * answers every call of a method after the first; streams and calls marked
 * untimed carry no timed method; the caller's Metadata is never marked.
 */
import { Metadata } from '@grpc/grpc-js';
import { isUntimed, markedCopy, markUntimed, MAX_INTERNED_METHODS, timedMethodOf } from '../../src/policy/streaming';

describe("callMarker's call info", () => {
  it('hands every timed call of a method the same key, named by its path, and different methods different keys', () => {
    const get1 = timedMethodOf(markedCopy(new Metadata(), '/svc.S/Get', false))!;
    const get2 = timedMethodOf(markedCopy(new Metadata(), '/svc.S/Get', false))!;
    const ping = timedMethodOf(markedCopy(new Metadata(), '/svc.S/Ping', false))!;
    expect(get1.name).toBe('/svc.S/Get');
    expect(get2).toBe(get1);
    expect(ping.name).toBe('/svc.S/Ping');
    expect(ping).not.toBe(get1);
  });

  it('gives a stream, or a call on Metadata marked untimed, no timed method, and leaves the original unmarked', () => {
    const original = new Metadata();
    const stream = markedCopy(original, '/svc.S/Watch', true);
    expect(isUntimed(stream)).toBe(true);
    expect(timedMethodOf(stream)).toBeUndefined();
    expect(isUntimed(original)).toBe(false);
    const untimed = new Metadata();
    markUntimed(untimed);
    const call = markedCopy(untimed, '/svc.S/Get', false);
    expect(isUntimed(call)).toBe(true);
    expect(timedMethodOf(call)).toBeUndefined();
    // The shared info of timed Get calls was not made untimed by it.
    expect(isUntimed(markedCopy(new Metadata(), '/svc.S/Get', false))).toBe(false);
  });

  it(`keeps at most ${MAX_INTERNED_METHODS} paths; calls of further paths still carry their method, in a fresh key each`, () => {
    for (let i = 0; i < MAX_INTERNED_METHODS + 10; i++) {
      markedCopy(new Metadata(), `/many.S/M${i}`, false);
    }
    const beyond1 = timedMethodOf(markedCopy(new Metadata(), '/many.S/Beyond', false))!;
    const beyond2 = timedMethodOf(markedCopy(new Metadata(), '/many.S/Beyond', false))!;
    expect(beyond1.name).toBe('/many.S/Beyond');
    expect(beyond2.name).toBe('/many.S/Beyond');
    expect(beyond2).not.toBe(beyond1);
    // One interned earlier is still shared.
    expect(timedMethodOf(markedCopy(new Metadata(), '/many.S/M0', false))).toBe(timedMethodOf(markedCopy(new Metadata(), '/many.S/M0', false)));
  });
});
