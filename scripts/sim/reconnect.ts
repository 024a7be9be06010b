/**
 * When a client finds a restarted backend again: gRPC's connection back-off.
 *
 * A channel whose connection to a backend is refused (its process is down)
 * tries again after a back-off: the first try at once, the next 1 s after
 * it, and each later wait 1.6 × the last as drawn, capped at 120 s before
 * its ±20 % jitter (grpc/doc/connection-backoff.md; grpc-js
 * backoff-timeout.ts, whose first wait is exactly 1 s and whose jitter
 * compounds, as modelled here). The timer starts as each try starts; a try
 * on a closed loopback port fails at once, so the two are the same here.
 * Tries to a closed loopback port fail at once, so the tries fall at
 * 0, 1, ≈2.6, ≈5.2, ≈9.3 s … and a backend down for 3 s is found back at
 * ≈5.2 s, each client at its own moment.
 *
 * The load test's channels run the real back-off (× the time factor,
 * scripts/bench/probe-channel.ts); this is the simulator's account of it.
 */
import type { RandomSource } from '../../src/core/random';

export const RECONNECT_BACKOFF = {
  initialMs: 1000,
  multiplier: 1.6,
  jitter: 0.2,
  maxMs: 120_000,
} as const;

/** After how long a client whose connection was refused at 0 finds a backend down for `downMs` back: its first try at or after `downMs`. */
export function foundBackAfterMs(downMs: number, random: RandomSource): number {
  const { initialMs, multiplier, jitter, maxMs } = RECONNECT_BACKOFF;
  let tryAtMs = 0;
  let waitMs = initialMs;
  while (tryAtMs < downMs) {
    tryAtMs += waitMs;
    const nextMs = Math.min(waitMs * multiplier, maxMs);
    waitMs = nextMs + (2 * random() - 1) * jitter * nextMs;
  }
  return tryAtMs;
}
