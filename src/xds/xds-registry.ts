/**
 * Access to @grpc/grpc-js-xds internals. Two modules we need are not exported
 * (build/src/lb-policy-registry, the gRFC A52 converter registry, and
 * build/src/xds-resource-type/cluster-resource-type, the CDS validator), so
 * we import them by path and check their shape at registration: if a release
 * moves or changes them, registerXds() fails loudly instead of our policies
 * silently never being selected.
 *
 * Supported: @grpc/grpc-js-xds SUPPORTED_XDS_RANGE (the peerDependencies
 * range), tested with TESTED_XDS_VERSION (the devDependencies pin). The
 * installed version is checked at run time too: a version outside the range
 * fails before any internal module is touched.
 */
import * as path from 'path';
import { experimental } from '@grpc/grpc-js';
import { grpcJsEntry } from '../policy/grpc-js-copies';
import { xdsPackageDir } from './proto-root';

type RegistryModule = typeof import('@grpc/grpc-js-xds/build/src/lb-policy-registry');
export type RegisterLbPolicy = RegistryModule['registerLbPolicy'];
export type ProtoLbPolicyConverter = Parameters<RegisterLbPolicy>[1];

/** The version this package's tests run against (devDependencies). */
export const TESTED_XDS_VERSION = '1.14.1';
/** The versions registerXds() accepts (peerDependencies): 1.14.x from 1.14.1, whose internals it checks by shape. */
export const SUPPORTED_XDS_RANGE = '>=1.14.1 <1.15.0';
/** @deprecated The tested version; the package now accepts SUPPORTED_XDS_RANGE. */
export const PINNED_XDS_VERSION = TESTED_XDS_VERSION;

const REGISTRY_MODULE = '@grpc/grpc-js-xds/build/src/lb-policy-registry';

export function installedXdsVersion(): string {
  try {
    return String((require('@grpc/grpc-js-xds/package.json') as { version?: unknown }).version);
  } catch {
    return 'unknown';
  }
}

/** Whether `version` is in SUPPORTED_XDS_RANGE: 1.14.p with p >= 1, prereleases excluded. */
export function isSupportedXdsVersion(version: string): boolean {
  const match = /^1\.14\.(\d+)$/.exec(version);
  return match !== null && Number(match[1]) >= 1;
}

/** Throws unless the installed @grpc/grpc-js-xds is in SUPPORTED_XDS_RANGE. */
export function assertSupportedXdsVersion(version = installedXdsVersion()): void {
  if (!isSupportedXdsVersion(version)) {
    throw new Error(
      `grpc-js-peak-ewma/xds supports @grpc/grpc-js-xds ${SUPPORTED_XDS_RANGE} (tested with ${TESTED_XDS_VERSION}); ` +
        `installed: @grpc/grpc-js-xds ${version}. It reaches into grpc-js-xds internals that other minor versions may not have. ` +
        `Install @grpc/grpc-js-xds@~1.14.1.`,
    );
  }
}

/** The error for an internal module that is not what we expect. */
export function incompatible(module: string, detail: string): Error {
  return new Error(
    `grpc-js-peak-ewma/xds: ${detail}. This package uses ${module}, an internal module of @grpc/grpc-js-xds ` +
      `${SUPPORTED_XDS_RANGE} (tested with ${TESTED_XDS_VERSION}); installed: @grpc/grpc-js-xds ${installedXdsVersion()}. ` +
      `Install @grpc/grpc-js-xds@${TESTED_XDS_VERSION}.`,
  );
}

/** Loads an internal module of @grpc/grpc-js-xds; a failure names the module and the versions. */
export function requireXdsInternal<T>(module: string): Partial<T> {
  try {
    return require(module) as Partial<T>;
  } catch (error) {
    throw incompatible(module, `cannot load it (${(error as Error).message})`);
  }
}

/**
 * @grpc/grpc-js-xds itself, loaded on first use rather than at import: it is
 * an optional peer dependency, and loading it takes seconds (it parses
 * Envoy's protos).
 */
export function loadGrpcJsXds(): typeof import('@grpc/grpc-js-xds') {
  try {
    return require('@grpc/grpc-js-xds') as typeof import('@grpc/grpc-js-xds');
  } catch (error) {
    const { message } = error as Error;
    // Installed but failing (a bundle without its re2.wasm, a module it needs missing) is not "missing".
    const missing = /Cannot find (module|package) ['"]@grpc\/grpc-js-xds['"]/.test(message);
    throw new Error(
      missing
        ? `grpc-js-peak-ewma/xds needs @grpc/grpc-js-xds ${SUPPORTED_XDS_RANGE} (npm install @grpc/grpc-js-xds@${TESTED_XDS_VERSION}): ${message}`
        : `grpc-js-peak-ewma/xds: @grpc/grpc-js-xds is installed but failed to load (in a bundle: keep it external, ` +
            `getting-started.md "Bundling"): ${message}`,
    );
  }
}

/** The registry's registerLbPolicy, after checking it is what we expect. */
export function loadRegisterLbPolicy(): RegisterLbPolicy {
  const registry = requireXdsInternal<RegistryModule>(REGISTRY_MODULE);
  if (typeof registry.registerLbPolicy !== 'function') {
    throw incompatible(REGISTRY_MODULE, `registerLbPolicy is ${typeof registry.registerLbPolicy}, not a function`);
  }
  return registry.registerLbPolicy;
}

/**
 * Policies register in a module-global table of @grpc/grpc-js: if
 * @grpc/grpc-js-xds uses a different copy than we do, nothing we register
 * is visible to it. Two files on disk are two copies. One file can be two
 * copies too: where this package and grpc-js are bundled into the
 * application and grpc-js-xds is not, grpc-js-xds loads grpc-js from disk
 * while our code runs on the inlined copy, so the module grpc-js-xds loaded
 * is compared with ours.
 */
export function assertSingleGrpcJs(): void {
  const theirs = grpcJsEntry(xdsPackageDir());
  if (theirs === null) {
    return; // grpc-js-xds loaded, so it found a grpc-js; none on disk to name: nothing to compare
  }
  const ours = grpcJsEntry();
  if (ours !== null && ours !== theirs) {
    throw twoCopies(path.dirname(ours), theirs);
  }
  const loaded = (require.cache?.[theirs]?.exports as { experimental?: unknown } | undefined)?.experimental;
  if (loaded !== undefined && loaded !== experimental) {
    throw twoCopies('another instance of the same files: one bundled into the application, or a reset module registry', theirs);
  }
}

function twoCopies(ours: string, theirs: string): Error {
  return new Error(
    `grpc-js-peak-ewma/xds: two copies of @grpc/grpc-js are installed (${ours} and ${path.dirname(theirs)}); ` +
      'policies registered in one are invisible to the other. Dedupe them (npm dedupe), or keep ' +
      'grpc-js-peak-ewma, @grpc/grpc-js and @grpc/grpc-js-xds all out of a bundle.',
  );
}
