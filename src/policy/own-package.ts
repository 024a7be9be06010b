/**
 * This copy of grpc-js-peak-ewma: its version and directory, from its own
 * package.json. Which of two copies serves is decided by version
 * (package-copies.ts). A module of its own so that a test can load a second
 * copy that says another version.
 */
import * as fs from 'fs';
import * as path from 'path';
import { moduleDirectory } from './module-directory';

export const PACKAGE_NAME = 'grpc-js-peak-ewma';

export interface PackageCopy {
  /** Its package.json version; null where there is none to read (a bundle). */
  readonly version: string | null;
  /** The directory holding its package.json, or (no package.json) the directory of this file, or BUNDLED. */
  readonly dir: string;
}

/** A copy's `dir` where this file has no directory: an ES module bundle, whose code sees no `__dirname`. */
export const BUNDLED = '(an ES module bundle)';

let own: PackageCopy | undefined;

/** This copy, read once. */
export function ownPackage(): PackageCopy {
  own ??= findOwnPackage();
  return own;
}

/**
 * This file runs as src/policy/own-package.ts (tests, tsx) or
 * dist/src/policy/own-package.js (the installed package), so look upwards for
 * our package.json rather than hard-coding a depth; the name check keeps a
 * bundle (no package.json of ours above it) from taking the application's.
 */
export function findOwnPackage(start: string | null = moduleDirectory()): PackageCopy {
  if (start === null) {
    return { version: null, dir: BUNDLED };
  }
  let dir = start;
  for (let level = 0; level < 5; level++) {
    const manifest = readManifest(path.join(dir, 'package.json'));
    if (manifest?.name === PACKAGE_NAME) {
      return { version: typeof manifest.version === 'string' ? manifest.version : null, dir };
    }
    dir = path.dirname(dir);
  }
  return { version: null, dir: start };
}

function readManifest(file: string): { name?: unknown; version?: unknown } | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
