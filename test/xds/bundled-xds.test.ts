/**
 * registerXds() in a bundled application. @grpc/grpc-js-xds cannot be
 * bundled (it reads its protos and re2.wasm from its directory), so it stays
 * external; if @grpc/grpc-js is inlined beside our code, grpc-js-xds loads
 * the copy on disk while our policies register into the inlined one. Both
 * resolve to one file, so the check by path passed, registerXds() returned,
 * and calls then failed ("Failed to parse DNS address dns:xds:///…"): the
 * xDS resolver had never been registered where the channel looked.
 */
import * as fs from 'fs';
import * as path from 'path';
import { bundleAndRun as bundle, ROOT } from '../support/esbuild-app';

// Under the repository (its /tmp/ is git-ignored): the bundle's external packages resolve from node_modules.
const DIR = path.join(ROOT, 'tmp', `bundled-xds-${process.pid}`);

afterAll(() => fs.rmSync(DIR, { recursive: true, force: true }));

function bundleAndRun(external: string[]): string {
  const source =
    `import { registerXds } from ${JSON.stringify(path.join(ROOT, 'src', 'xds'))};\n` +
    `try { registerXds(); console.log('registerXds(): ok'); } catch (e) { console.log('registerXds(): ' + (e as Error).message); }\n`;
  return bundle(source, DIR, path.join(DIR, `app-${external.join('-').replace(/[^a-z]+/g, '_')}.js`), external);
}

it('refuses, naming the bundled copy, when @grpc/grpc-js is inlined and @grpc/grpc-js-xds is not', () => {
  expect(bundleAndRun(['--external:@grpc/grpc-js-xds'])).toMatch(
    /^registerXds\(\): grpc-js-peak-ewma\/xds: two copies of @grpc\/grpc-js are installed \(another instance of the same files: one bundled into the application, or a reset module registry and .*node_modules\/@grpc\/grpc-js\/build\/src\).*keep grpc-js-peak-ewma, @grpc\/grpc-js and @grpc\/grpc-js-xds all out of a bundle\.$/,
  );
}, 60_000);

it('registers with every package kept out of the bundle (esbuild --packages=external), as the docs advise', () => {
  expect(bundleAndRun(['--packages=external'])).toBe('registerXds(): ok');
}, 60_000);
