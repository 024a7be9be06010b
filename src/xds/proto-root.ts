/**
 * Where the .proto files live and how they are loaded: protobufjs reads them
 * at run time (keepCase, so field names are the .proto's), from our protos/
 * (shipped in the package) and the dependency protos that @grpc/grpc-js-xds
 * ships under deps/.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as protobuf from 'protobufjs';
import { moduleDirectory } from '../policy/module-directory';

export const PEAK_EWMA_PROTO = 'envoy/extensions/load_balancing_policies/peak_ewma/v3alpha/peak_ewma.proto';

/** The directory holding @grpc/grpc-js-xds's package.json. */
export function xdsPackageDir(): string {
  return path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
}

/**
 * Our protos/ directory. This file runs as src/xds/proto-root.ts (tests,
 * tsx) or dist/src/xds/proto-root.js (the installed package), so look upwards
 * for the directory that holds protos/ rather than hard-coding a depth.
 */
export function ownProtosDir(start: string | null = moduleDirectory()): string {
  // grpc-js-xds cannot be bundled either (it reads its own protos and re2.wasm from its directory).
  const keepExternal =
    'grpc-js-peak-ewma/xds reads .proto files from its package directory at run time: keep grpc-js-peak-ewma, ' +
    '@grpc/grpc-js and @grpc/grpc-js-xds out of the bundle (esbuild --packages=external, or --external: each)';
  if (start === null) {
    throw new Error(`grpc-js-peak-ewma: this code runs in an ES module bundle, which has no directory to read protos/ from. ${keepExternal}`);
  }
  let dir = start;
  for (let level = 0; level < 5; level++) {
    const candidate = path.join(dir, 'protos');
    if (fs.existsSync(path.join(candidate, PEAK_EWMA_PROTO))) {
      return candidate;
    }
    dir = path.dirname(dir);
  }
  throw new Error(`grpc-js-peak-ewma: cannot find protos/${PEAK_EWMA_PROTO} above ${start}. ${keepExternal}`);
}

/** Include directories, searched in order, like protoc's -I. */
export function includeDirs(): string[] {
  const deps = path.join(xdsPackageDir(), 'deps');
  return [
    ownProtosDir(),
    path.join(deps, 'envoy-api'),
    path.join(deps, 'xds'),
    path.join(deps, 'googleapis'),
    path.join(deps, 'protoc-gen-validate'),
    // google/protobuf/descriptor.proto, imported by validate.proto; the other
    // well-known types are bundled inside protobufjs.
    path.dirname(require.resolve('protobufjs/package.json')),
  ];
}

/** Loads `files` (paths relative to the include dirs) into a fresh, resolved root. */
export function loadProtoRoot(files: readonly string[], dirs: readonly string[] = includeDirs()): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    if (path.isAbsolute(target)) {
      return target;
    }
    for (const dir of dirs) {
      const candidate = path.join(dir, target);
      if (fs.existsSync(candidate)) {
        return candidate;
      }
    }
    // protobufjs serves the bundled well-known types by this name.
    return target;
  };
  root.loadSync([...files], { keepCase: true });
  root.resolveAll();
  return root;
}

/** The message type named by an Any's type_url ("type.googleapis.com/pkg.Msg"). */
export function typeNameOfUrl(typeUrl: string): string {
  return typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
}

export function lookupMessageType(root: protobuf.Root, typeUrl: string): protobuf.Type | null {
  const found = root.lookup(typeNameOfUrl(typeUrl));
  return found instanceof protobuf.Type ? found : null;
}
