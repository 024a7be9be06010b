/**
 * grpc-js-xds's gRFC A52 converter registry. It is not exported by
 * @grpc/grpc-js-xds (internal module build/src/lb-policy-registry), so we
 * import it by path and check its shape at registration: if a release moves
 * or changes it, registerXds() fails loudly instead of our policies silently
 * never being selected. Pinned to @grpc/grpc-js-xds 1.14.1.
 */
import * as path from 'path';
import { xdsPackageDir } from './proto-root';

type RegistryModule = typeof import('@grpc/grpc-js-xds/build/src/lb-policy-registry');
export type RegisterLbPolicy = RegistryModule['registerLbPolicy'];
export type ProtoLbPolicyConverter = Parameters<RegisterLbPolicy>[1];

export const PINNED_XDS_VERSION = '1.14.1';
const REGISTRY_MODULE = '@grpc/grpc-js-xds/build/src/lb-policy-registry';

function installedXdsVersion(): string {
  try {
    return String((require('@grpc/grpc-js-xds/package.json') as { version?: unknown }).version);
  } catch {
    return 'unknown';
  }
}

function incompatible(detail: string): Error {
  return new Error(
    `grpc-js-peak-ewma/xds: ${detail}. This package registers its xDS converters through ` +
      `${REGISTRY_MODULE}, an internal module of @grpc/grpc-js-xds ${PINNED_XDS_VERSION}; ` +
      `installed: @grpc/grpc-js-xds ${installedXdsVersion()}. Install @grpc/grpc-js-xds@${PINNED_XDS_VERSION}.`,
  );
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
    throw new Error(
      `grpc-js-peak-ewma/xds needs @grpc/grpc-js-xds@${PINNED_XDS_VERSION} (npm install @grpc/grpc-js-xds@${PINNED_XDS_VERSION}): ` +
        (error as Error).message,
    );
  }
}

/** The registry's registerLbPolicy, after checking it is what we expect. */
export function loadRegisterLbPolicy(): RegisterLbPolicy {
  let registry: Partial<RegistryModule>;
  try {
    registry = require(REGISTRY_MODULE) as Partial<RegistryModule>;
  } catch (error) {
    throw incompatible(`cannot load the converter registry (${(error as Error).message})`);
  }
  if (typeof registry.registerLbPolicy !== 'function') {
    throw incompatible(`registerLbPolicy is ${typeof registry.registerLbPolicy}, not a function`);
  }
  return registry.registerLbPolicy;
}

/**
 * Policies register in a module-global table of @grpc/grpc-js: if
 * @grpc/grpc-js-xds resolves a different copy than we do, nothing we register
 * is visible to it.
 */
export function assertSingleGrpcJs(): void {
  const ours = require.resolve('@grpc/grpc-js');
  const theirs = require.resolve('@grpc/grpc-js', { paths: [xdsPackageDir()] });
  if (ours !== theirs) {
    throw new Error(
      `grpc-js-peak-ewma/xds: two copies of @grpc/grpc-js are installed (${path.dirname(ours)} and ` +
        `${path.dirname(theirs)}); policies registered in one are invisible to the other. Dedupe them (npm dedupe).`,
    );
  }
}
