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

/** A key of the config (or of an object in it) that the parser never read. */
export interface UnknownField {
  /** Its path as printed: "decay_tme", or "decayTime.nano" inside a duration. */
  readonly name: string;
  /** The rule it broke, for a ConfigError or a log line, naming the nearest field it sits beside. */
  readonly rule: string;
}

/** A parse's result, and the keys it never read. */
export interface NotedParse<T> {
  readonly value: T;
  /** In the object's order, each object's own unknown keys before those of the objects in it. */
  readonly unknownFields: readonly UnknownField[];
}

type PlainObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Runs `parse` on `config`, recording the keys it reads through a proxy.
 * A config that is not a plain object goes to `parse` as it is (the parser
 * rejects it) and reports nothing unknown. Objects the parser reads into
 * (a `{seconds, nanos}` duration) are recorded too: in
 * `{"decayTime": {"seconds": 2, "nano": 5e8}}` the unknown `decayTime.nano`
 * would otherwise leave the duration at 2 s without a word.
 */
export function parseNotingUnknownFields<T>(config: unknown, parse: (obj: unknown) => T): NotedParse<T> {
  if (!isPlainObject(config)) {
    return { value: parse(config), unknownFields: [] };
  }
  const readKeys = new Map<PlainObject, Set<string>>();
  const value = parse(recording(config, readKeys));
  return { value, unknownFields: unreadKeys(config, '', readKeys) };
}

/**
 * `target` through a proxy that notes each key read in `readKeys`, and does
 * the same for objects read from it. The proxy stands over a shallow copy:
 * a proxy must hand out a frozen object's own values unchanged, so one over
 * a frozen config could not hand out a recording proxy of its nested
 * objects (a TypeError, and a valid config refused).
 */
function recording(target: PlainObject, readKeys: Map<PlainObject, Set<string>>): PlainObject {
  return new Proxy(
    { ...target },
    {
      get(copy, key) {
        const value: unknown = Reflect.get(copy, key);
        if (typeof key !== 'string') {
          return value;
        }
        let keys = readKeys.get(target);
        if (keys === undefined) {
          keys = new Set();
          readKeys.set(target, keys);
        }
        keys.add(key);
        return isPlainObject(value) ? recording(value, readKeys) : value;
      },
    },
  );
}

/** The keys of `object` never read, then those of the objects in it the parser read into (not one it only rejected). */
function unreadKeys(object: PlainObject, prefix: string, readKeys: ReadonlyMap<PlainObject, ReadonlySet<string>>): UnknownField[] {
  const read = readKeys.get(object) ?? new Set<string>();
  const unknown: UnknownField[] = [];
  const nested: UnknownField[] = [];
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (!read.has(key)) {
      unknown.push({ name: prefix + key, rule: unknownFieldRule(key, [...read], prefix) });
    } else if (isPlainObject(value) && readKeys.has(value)) {
      nested.push(...unreadKeys(value, `${prefix}${key}.`, readKeys));
    }
  }
  return [...unknown, ...nested];
}

/**
 * The rule an unknown key broke: it is not a field of this policy (or of the
 * object at `prefix`), with the field read beside it that it is nearest to,
 * if any is near (the parser reads both casings, so both are candidates).
 */
function unknownFieldRule(key: string, siblings: readonly string[], prefix: string): string {
  const suggestion = nearName(key, siblings);
  const of = prefix === '' ? 'this policy' : describe(prefix.slice(0, -1));
  return `is not a field of ${of}${suggestion === undefined ? '' : ` (did you mean ${describe(prefix + suggestion)}?)`}`;
}

/** A name as the parser reads it either way: lower case, without `_` or `-`. */
function folded(text: string): string {
  return text.toLowerCase().replace(/[_-]/g, '');
}

/**
 * The name in `candidates` that `name` is most likely a misspelling of: equal
 * but for case and underscores, a duration named by its unit (`unitNamed`),
 * or at most one edit per four letters away (and at least one); undefined if
 * none is that close.
 */
export function nearName(name: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || name.length > 100) {
    return undefined;
  }
  const key = folded(name);
  const same = candidates.find((candidate) => folded(candidate) === key) ?? unitNamed(name, key, candidates);
  if (same !== undefined) {
    return same;
  }
  const best = closest(name, candidates as string[]);
  return distance(name, best) <= Math.max(1, Math.floor(best.length / 4)) ? best : undefined;
}

/**
 * The duration field `name` means by its unit, too far apart to spell:
 * `decayMs` (PEAK_EWMA_DEFAULTS's own name) or `decay_time_ms` for decayTime,
 * `slowStartSeconds` for slowStartWindow, which take "2s"; in the key's own
 * casing where the parser reads both. `key` is `name` folded.
 */
function unitNamed(name: string, key: string, candidates: readonly string[]): string | undefined {
  const unitless = key.replace(/(milliseconds|millis|ms|seconds|secs)$/, '');
  if (unitless === key || unitless.length < 3) {
    return undefined;
  }
  const meant = candidates.filter((candidate) => {
    const field = folded(candidate);
    return field === unitless || field.replace(/(time|window)$/, '') === unitless;
  });
  const snake = name.includes('_');
  return meant.find((candidate) => candidate.includes('_') === snake) ?? meant[0];
}
