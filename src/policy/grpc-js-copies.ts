/**
 * Finding a second copy of @grpc/grpc-js. grpc-js keeps its policy registry in
 * a module-global table, so policies registered in one copy are invisible to
 * channels made with another: such a channel does not find our policy names
 * and silently uses pick_first. Two copies happen when the application's
 * @grpc/grpc-js and ours cannot be deduplicated (version ranges that do not
 * overlap, a nested install, a bundled copy).
 */
import * as nodeModule from 'module';
import * as path from 'path';
import { experimental } from '@grpc/grpc-js';
import { describe } from './config-fields';
import { nearName } from './unknown-fields';

/** What the application tells register() about its own grpc-js. */
export interface GrpcJsChoice {
  /**
   * The @grpc/grpc-js module the application makes its channels with
   * (`require('@grpc/grpc-js')`). Given, it is the only thing checked: it
   * must be the copy this package registers into. Lets an application that
   * knowingly has a second copy (used by something else) register.
   */
  readonly grpcJs?: { readonly experimental?: unknown };
}

/** The options `GrpcJsChoice` has. */
const CHOICE_OPTIONS = ['grpcJs'];

/**
 * `choice` as `caller` (register(), registerXds()) takes it, or a TypeError
 * naming what is wrong. Why check: these are called from plain JavaScript
 * too, and a misspelt option (`{ grpcjs }`) or a string was taken as "no
 * choice", so the check the caller asked for never ran.
 */
export function readGrpcJsChoice(caller: string, choice: unknown): GrpcJsChoice {
  if (choice === undefined) {
    return {};
  }
  if (typeof choice !== 'object' || choice === null || Array.isArray(choice)) {
    throw new TypeError(`${caller}: its argument must be an object such as { grpcJs: require('@grpc/grpc-js') }, or none; got ${describe(choice)}`);
  }
  for (const key of Object.keys(choice)) {
    if (!CHOICE_OPTIONS.includes(key)) {
      const near = nearName(key, CHOICE_OPTIONS);
      throw new TypeError(
        `${caller}: ${JSON.stringify(key)} is not an option${near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`}; ` +
          'the only one is grpcJs, the @grpc/grpc-js module your channels are made with',
      );
    }
  }
  const grpcJs: unknown = (choice as GrpcJsChoice).grpcJs;
  if (grpcJs !== undefined && (typeof grpcJs !== 'object' || grpcJs === null || typeof (grpcJs as GrpcJsChoice['grpcJs'])!.experimental !== 'object')) {
    throw new TypeError(`${caller}: grpcJs must be the @grpc/grpc-js module (require('@grpc/grpc-js')), got ${describe(grpcJs)}`);
  }
  return choice as GrpcJsChoice;
}

const ENTRY_FILE = path.join('build', 'src', 'index.js');
const ENTRY_TAIL = path.join('node_modules', '@grpc', 'grpc-js', ENTRY_FILE);

/** The package directory of a copy, from its entry file. */
const packageDir = (entryFile: string) => entryFile.slice(0, -ENTRY_FILE.length - 1);

/**
 * The entry file `require('@grpc/grpc-js')` names from a module in `fromDir`
 * (from this package's own code when absent), or null where there is no
 * file to name: in a bundle (esbuild, webpack: one file, no node_modules, as
 * AWS CDK packages a Lambda) grpc-js is inlined, resolving it throws, and a
 * bundler's module id is not a file; from an application that gets grpc-js
 * through a library, there is none. Used by the xDS entry too.
 */
export function grpcJsEntry(fromDir?: string): string | null {
  try {
    // createRequire, not require.resolve with paths: webpack warns of the latter in every build that includes it.
    const entry: unknown =
      fromDir === undefined ? require.resolve('@grpc/grpc-js') : nodeModule.createRequire(path.join(fromDir, 'index.js')).resolve('@grpc/grpc-js');
    return typeof entry === 'string' ? entry : null;
  } catch {
    return null;
  }
}

/** Entry files of every copy loaded through require() so far (ESM-only loads are not seen). */
function loadedEntries(): string[] {
  return Object.keys(require.cache ?? {}).filter((file) => file.endsWith(ENTRY_TAIL));
}

/** The copy the application's main module would get from require('@grpc/grpc-js'), if any. */
function applicationEntry(): string | null {
  const mainDir = require.main?.path;
  return mainDir === undefined ? null : grpcJsEntry(mainDir);
}

/**
 * The error for a second copy. `named`: the application named its copy
 * (`register({ grpcJs })`) and it is not ours, so naming it again cannot
 * help, and the advice is to dedupe alone; until 2026-12-06 the message
 * suggested `register({ grpcJs: require('@grpc/grpc-js') })` there too, which
 * throws the same error again (a cold trial of the package, with a copy of
 * grpc-js nested under this package).
 */
function secondCopyError(ours: string | null, other: string, how: string, named: boolean): Error {
  const where = ours === null ? 'the copy bundled with it' : packageDir(ours);
  const advice = named
    ? `register() can only register into ${where}, the copy this package imports. Dedupe them, so that your ` +
      `channels and this package get one copy (npm ls @grpc/grpc-js; npm dedupe; version ranges that overlap).`
    : `Dedupe them (npm ls @grpc/grpc-js; npm dedupe), or, if your channels are made with ${where} and the ` +
      `other copy is someone else's, pass the module your channels use: register({ grpcJs }).`;
  return new Error(
    `grpc-js-peak-ewma: two copies of @grpc/grpc-js: this package registers its policies into ` +
      `${where}, but ${how} ${other.endsWith(ENTRY_FILE) ? packageDir(other) : other}. A channel made with that copy does not see ` +
      `peak_ewma_experimental or least_request_experimental and silently uses pick_first. ${advice}`,
  );
}

/** Throws, naming both copies, if the application can end up on a copy of grpc-js other than ours. */
export function assertSameGrpcJs(choice: GrpcJsChoice = {}): void {
  const ours = grpcJsEntry();
  if (choice.grpcJs !== undefined) {
    // Compared by a member, not the module object: `import * as` under
    // esModuleInterop hands out a wrapper of the exports, not the exports.
    const given = choice.grpcJs.experimental;
    if (given !== experimental) {
      const theirs = loadedEntries().find((file) => require.cache[file]?.exports?.experimental === given);
      throw secondCopyError(ours, theirs ?? 'a copy not loaded from node_modules (one bundled into the application?)', 'the grpcJs given is', true);
    }
    return;
  }
  if (ours === null) {
    return; // bundled: one copy, nothing on disk to compare
  }
  const other = loadedEntries().find((file) => file !== ours);
  if (other !== undefined) {
    throw secondCopyError(ours, other, 'another copy is loaded from', false);
  }
  const application = applicationEntry();
  if (application !== null && application !== ours) {
    throw secondCopyError(ours, application, "the application's require('@grpc/grpc-js') resolves to", false);
  }
}
