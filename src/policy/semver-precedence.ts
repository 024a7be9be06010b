/**
 * SemVer 2.0 precedence, for which of two copies of this package serves
 * (package-copies.ts). A few lines rather than the `semver` package: only
 * the order of version strings this package writes itself is needed, and
 * `semver` would be a runtime dependency for every user.
 */

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
