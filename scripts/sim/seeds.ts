/**
 * Seeds for each random stream of a run, derived from the run's seed and the
 * stream's name (FNV-1a over the parts), so that a stream does not depend on
 * how many other streams exist or in which order runs execute: same seed,
 * same numbers, in a worker or not.
 */
export function seedFor(seed: number, ...parts: Array<string | number>): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  const text = parts.join('/');
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  hash ^= Math.imul(seed >>> 0, 0x9e3779b1);
  return hash >>> 0;
}
