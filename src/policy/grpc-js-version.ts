/**
 * Which @grpc/grpc-js this package runs on. It implements grpc-js's
 * load-balancing API (`experimental`), which changes between minor
 * versions: grpc-js 1.13 hands a policy its addresses as a bare list where
 * 1.14 hands a StatusOr, and a channel on 1.13 ended the process with a
 * TypeError at its first name resolution. npm refuses the install outside
 * the peer range, but pnpm, yarn and `--legacy-peer-deps` only warn, so
 * register() checks the version it runs on and fails at startup instead.
 */

/** The grpc-js minor this package is built and tested against (peerDependencies ~1.14.5). */
export const SUPPORTED_GRPC_JS_MINOR = '1.14';

/** The version of the @grpc/grpc-js this package imports, or null where its package.json is not there to read. */
export function installedGrpcJsVersion(): string | null {
  try {
    const version = (require('@grpc/grpc-js/package.json') as { version?: unknown }).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null; // a bundle that left the file out: nothing to compare
  }
}

/** Throws, naming both versions, unless `version` is a 1.14 release (or unknown). */
export function assertSupportedGrpcJs(version: string | null = installedGrpcJsVersion()): void {
  if (version === null || version.startsWith(`${SUPPORTED_GRPC_JS_MINOR}.`)) {
    return;
  }
  throw new Error(
    `grpc-js-peak-ewma supports @grpc/grpc-js ${SUPPORTED_GRPC_JS_MINOR}.x (peerDependencies ~1.14.5); installed: ` +
      `@grpc/grpc-js ${version}. Its load-balancing API differs between minor versions (on 1.13 a channel ended ` +
      `the process at its first name resolution), so the policies are not registered. Install @grpc/grpc-js@~1.14.5.`,
  );
}
