/**
 * Randomness, as the engine sees it: a function returning a uniform double in
 * [0, 1). Injected so that tests and the simulator are reproducible.
 */
export type RandomSource = () => number;

export const systemRandom: RandomSource = Math.random;

/**
 * A seeded generator: xoshiro128** (Blackman and Vigna), its 128-bit state
 * filled from the seed by splitmix32. Same seed, same sequence, on every
 * platform. Fast and statistically sound for simulation; not cryptographic.
 */
export function seededRandom(seed: number): RandomSource {
  let s = seed >>> 0;
  const splitmix32 = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
  let d = splitmix32();
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result / 4294967296;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A uniform integer in [0, bound). */
export function randomIndex(random: RandomSource, bound: number): number {
  return Math.floor(random() * bound);
}
