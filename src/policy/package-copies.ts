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
import { compareVersions } from './semver-precedence';

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
  const order = compareVersions(mine.version, held.version);
  const wins = order > 0;
  const [serving, found] = wins ? [mine, held] : [held, mine];
  const why = order === 0 ? 'the same version, registered first' : 'the higher version';
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
