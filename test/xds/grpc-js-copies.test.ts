/**
 * registerXds() refuses when @grpc/grpc-js-xds resolves another copy of
 * @grpc/grpc-js than this package does (assertSingleGrpcJs in
 * src/xds/xds-registry.ts): policies registered in one copy's module-global
 * table are invisible to the other, so the xDS client would never select
 * them. The layout npm leaves when it cannot dedupe is built in a sandbox: a
 * grpc-js-xds directory with its own node_modules/@grpc/grpc-js (a copy of
 * the installed one). Only the location of grpc-js-xds is mocked
 * (xdsPackageDir, which the check asks); the resolution is Node's, as Jest
 * implements require.resolve with `paths`. The policy side's own check is
 * test/policy/grpc-js-copies.test.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const PROTO_ROOT = '../../src/xds/proto-root';
const INSTALLED_GRPC_JS = path.dirname(require.resolve('@grpc/grpc-js/package.json'));
const INSTALLED_XDS = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));

let sandbox: string;
let nestedXds: string;
let nestedGrpcJs: string;

beforeAll(() => {
  sandbox = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-js-copies-xds-')));
  nestedXds = path.join(sandbox, 'node_modules', '@grpc', 'grpc-js-xds');
  nestedGrpcJs = path.join(nestedXds, 'node_modules', '@grpc', 'grpc-js');
  fs.mkdirSync(nestedGrpcJs, { recursive: true });
  fs.copyFileSync(path.join(INSTALLED_XDS, 'package.json'), path.join(nestedXds, 'package.json'));
  fs.copyFileSync(path.join(INSTALLED_GRPC_JS, 'package.json'), path.join(nestedGrpcJs, 'package.json'));
  fs.cpSync(path.join(INSTALLED_GRPC_JS, 'build'), path.join(nestedGrpcJs, 'build'), { recursive: true });
});

afterAll(() => fs.rmSync(sandbox, { recursive: true, force: true }));

afterEach(() => {
  jest.dontMock(PROTO_ROOT); // doMock outlives isolateModules
  jest.resetModules();
});

/**
 * assertSingleGrpcJs with grpc-js-xds found at `xdsDir` (the real one when
 * undefined), run inside the isolated module registry it was loaded in (it
 * reads the module cache, which Jest answers from the registry in force).
 */
function assertSingleGrpcJsWith(xdsDir?: string): () => void {
  return () =>
    jest.isolateModules(() => {
      if (xdsDir !== undefined) {
        jest.doMock(PROTO_ROOT, () => ({ ...jest.requireActual(PROTO_ROOT), xdsPackageDir: () => xdsDir }));
      }
      (require('../../src/xds/xds-registry') as typeof import('../../src/xds/xds-registry')).assertSingleGrpcJs();
    });
}

test('one copy, as installed here: no error', () => {
  expect(assertSingleGrpcJsWith()).not.toThrow();
});

test('grpc-js-xds with a nested copy of @grpc/grpc-js: an error naming both copies and npm dedupe', () => {
  const check = assertSingleGrpcJsWith(nestedXds);
  expect(check).toThrow('two copies of @grpc/grpc-js are installed');
  let message = '';
  try {
    check();
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain(path.join(fs.realpathSync(INSTALLED_GRPC_JS), 'build'));
  expect(message).toContain(path.join(nestedGrpcJs, 'build'));
  expect(message).toContain('npm dedupe');
});

test('registerXds() runs the check: with the nested copy it throws before registering anything', () => {
  jest.isolateModules(() => {
    jest.doMock(PROTO_ROOT, () => ({ ...jest.requireActual(PROTO_ROOT), xdsPackageDir: () => nestedXds }));
    expect(() => (require('../../src/xds') as typeof import('../../src/xds')).registerXds()).toThrow(
      /two copies of @grpc\/grpc-js are installed .*npm dedupe/,
    );
    const { experimental } = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
    expect(experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(false);
  });
});
