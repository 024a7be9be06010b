/**
 * Fields a config parser never read: misspellings, mostly.
 *
 * Why. A service config's unknown fields must be ignored (gRFC A21: a newer
 * config may carry fields an older client lacks), so our parsers ignore
 * them, and grpc-js would too. But then `{"decay_tme": "5s"}` leaves
 * decayTime at its default without a word. The parser stays the one list of
 * fields: what it reads, under either casing, is known; what it never reads
 * is not. validate.ts turns an unknown field into an error; a channel's own
 * parse (endpoint-picking-config.ts) logs it, once per policy and field.
 */
import { closest, distance } from 'fastest-levenshtein';
import { describe } from './config-fields';

/** A parse's result, and the keys of the config object it never read. */
export interface NotedParse<T> {
  readonly value: T;
  /** Own keys of the config the parser did not read, in the object's order. */
  readonly unknownFields: readonly string[];
  /** What it read (both casings of each field it looked for): candidates for `nearName`. */
  readonly knownFields: readonly string[];
}

/**
 * Runs `parse` on `config`, recording the keys it reads through a proxy.
 * A config that is not a plain object goes to `parse` as it is (the parser
 * rejects it) and reports nothing unknown.
 */
export function parseNotingUnknownFields<T>(config: unknown, parse: (obj: unknown) => T): NotedParse<T> {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return { value: parse(config), unknownFields: [], knownFields: [] };
  }
  const read = new Set<string>();
  const view = new Proxy(config as Record<string, unknown>, {
    get(target, key) {
      if (typeof key === 'string') {
        read.add(key);
      }
      return Reflect.get(target, key);
    },
  });
  const value = parse(view);
  return { value, unknownFields: Object.keys(config).filter((key) => !read.has(key)), knownFields: [...read] };
}

/**
 * The rule an unknown field broke, for a ConfigError: it is not a field of
 * this policy, with the known field it is nearest to, if any is near.
 */
export function unknownFieldRule(field: string, knownFields: readonly string[]): string {
  const suggestion = nearName(field, knownFields);
  return `is not a field of this policy${suggestion === undefined ? '' : ` (did you mean ${describe(suggestion)}?)`}`;
}

/**
 * The name in `candidates` that `name` is most likely a misspelling of: equal
 * but for case and underscores, or at most one edit per four letters away
 * (and at least one); undefined if none is that close.
 */
export function nearName(name: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || name.length > 100) {
    return undefined;
  }
  const folded = (text: string): string => text.toLowerCase().replace(/[_-]/g, '');
  const same = candidates.find((candidate) => folded(candidate) === folded(name));
  if (same !== undefined) {
    return same;
  }
  const best = closest(name, candidates as string[]);
  return distance(name, best) <= Math.max(1, Math.floor(best.length / 4)) ? best : undefined;
}
