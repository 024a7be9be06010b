/**
 * Two copies of this package sharing one @grpc/grpc-js: an application
 * depends on one version and a library it uses on another (or on the same
 * one, nested); npm dedupes grpc-js but not us. grpc-js's policy registry,
 * like grpc-js-xds's converter registry, is module-global and last-wins, so
 * the copy whose register() ran last served every channel made after it: an
 * older copy silently replaced a newer one. Each registry now has one
 * holder, recorded on globalThis where every copy looks: the higher version
 * keeps it, equal versions keep the first, and the decision is logged once
 * at INFO naming both copies.
 *
 * What the copies share at run time is keyed the same way (Symbol.for, with
 * a format version): callMarker's call info (streaming.ts) and the stats
 * sources (stats.ts); a live balancer takes a config made by the other
 * copy's class (endpoint-picking-balancer.ts).
 */
import { experimental, logVerbosity } from '@grpc/grpc-js';
import { ownPackage, PackageCopy } from './own-package';

/**
 * The record, format 1: per registry (keyed by an object that identifies
 * that registry's module instance, e.g. grpc-js's registerLoadBalancerType),
 * the copy holding it and the decisions already logged. Another shape needs
 * another key, or copies would misread each other's record.
 */
const RECORD_KEY = Symbol.for('grpc-js-peak-ewma.registrations.v1');

interface Holder extends PackageCopy {
  /** This module instance: tells a copy from another of the same version and directory. */
  readonly copy: object;
}

interface Slot {
  holder: Holder;
  readonly logged: Set<string>;
}

const THIS_COPY = {};

function slots(): WeakMap<object, Slot> {
  const global = globalThis as { [RECORD_KEY]?: WeakMap<object, Slot> };
  global[RECORD_KEY] ??= new WeakMap();
  return global[RECORD_KEY];
}

/**
 * Whether this copy should register into `registry` now: yes if no other
 * copy holds it or this copy outranks the holder (it then becomes the
 * holder). `what` names what is registered, for the log line;
 * `takenUnrecorded` says the registry already holds our names although no
 * copy is recorded (a copy older than this record registered them).
 */
export function claimRegistry(registry: object, what: string, takenUnrecorded = false): boolean {
  const mine: Holder = { ...ownPackage(), copy: THIS_COPY };
  const slot = slots().get(registry);
  if (slot === undefined) {
    const logged = new Set<string>();
    if (takenUnrecorded) {
      logOnce(logged, `${what} are now served by ${describeCopy(mine)}, replacing a copy of grpc-js-peak-ewma too old to say its version`);
    }
    slots().set(registry, { holder: mine, logged });
    return true;
  }
  const held = slot.holder;
  if (held.copy === THIS_COPY) {
    return true;
  }
  const wins = compareVersions(mine.version, held.version) > 0;
  const [serving, found] = wins ? [mine, held] : [held, mine];
  const why = compareVersions(mine.version, held.version) === 0 ? 'the same version, registered first' : 'the higher version';
  logOnce(
    slot.logged,
    `two copies of grpc-js-peak-ewma are loaded: ${what} are served by ${describeCopy(serving)} (${why}); ` +
      `also found ${describeCopy(found)}`,
  );
  if (wins) {
    slot.holder = mine;
  }
  return wins;
}

/** The copy holding `registry`, for messages; null if none is recorded. */
export function registryHolder(registry: object): PackageCopy | null {
  return slots().get(registry)?.holder ?? null;
}

export function describeCopy(copy: PackageCopy): string {
  return `${copy.version ?? 'an unknown version'} at ${copy.dir}`;
}

function logOnce(logged: Set<string>, text: string): void {
  if (!logged.has(text)) {
    logged.add(text);
    experimental.log(logVerbosity.INFO, `grpc-js-peak-ewma: ${text}`);
  }
}

// SemVer 2.0: x.y.z without leading zeros, an optional -prerelease, an optional +build.
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/**
 * SemVer 2.0 precedence (§11): negative if `a` ranks below `b`, 0 if equal,
 * positive above. A prerelease ranks below its release; prerelease
 * identifiers compare in turn, numeric ones as numbers and below
 * alphanumeric ones, a shorter list below a longer one it begins; build
 * metadata is ignored. A version that is not SemVer (or null: unread)
 * ranks below every one that is.
 */
export function compareVersions(a: string | null, b: string | null): number {
  const left = a === null ? null : SEMVER.exec(a);
  const right = b === null ? null : SEMVER.exec(b);
  if (left === null || right === null) {
    return (left === null ? 0 : 1) - (right === null ? 0 : 1);
  }
  for (let part = 1; part <= 3; part++) {
    const order = compareDigits(left[part], right[part]);
    if (order !== 0) {
      return order;
    }
  }
  return comparePrereleases(left[4]?.split('.') ?? [], right[4]?.split('.') ?? []);
}

function comparePrereleases(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) {
    return b.length - a.length; // a release outranks its prereleases
  }
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareIdentifiers(a[i], b[i]);
    if (order !== 0) {
      return order;
    }
  }
  return a.length - b.length;
}

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = /^\d+$/.test(a);
  const bNumeric = /^\d+$/.test(b);
  if (aNumeric && bNumeric) {
    return compareDigits(a.replace(/^0+(?=\d)/, ''), b.replace(/^0+(?=\d)/, ''));
  }
  if (aNumeric !== bNumeric) {
    return aNumeric ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Decimal strings without leading zeros, compared exactly at any length (Number would round past 2^53). */
function compareDigits(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}
