/**
 * registerXds() in a bundled application. @grpc/grpc-js-xds cannot be
 * bundled (it reads its protos and re2.wasm from its directory), so it stays
 * external; if @grpc/grpc-js is inlined beside our code, grpc-js-xds loads
 * the copy on disk while our policies register into the inlined one. Both
 * resolve to one file, so the check by path passed, registerXds() returned,
 * and calls then failed ("Failed to parse DNS address dns:xds:///…"): the
 * xDS resolver had never been registered where the channel looked.
 */
import { execFileSync } from 'child_process';
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

/**
 * Not "grpc-js-peak-ewma": under the repository that name resolves to the
 * repository itself (a package may require its own name), not node_modules.
 */
const INSTALLED_NAME = 'peak-ewma-installed';

/**
 * The package installed beside the bundle as npm puts it: its xDS entry
 * compiled alone with @grpc/grpc-js and @grpc/grpc-js-xds external, in a
 * node_modules four levels below the repository, so its proto root finds
 * protos/ as the installed package finds its own.
 */
function installPackageBesideBundle(): void {
  const dir = path.join(DIR, 'node_modules', INSTALLED_NAME);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: INSTALLED_NAME, main: 'xds.js' }));
  execFileSync(
    path.join(ROOT, 'node_modules', '.bin', 'esbuild'),
    [path.join(ROOT, 'src', 'xds', 'index.ts'), '--bundle', '--platform=node', '--external:@grpc/grpc-js', '--external:@grpc/grpc-js-xds', `--outfile=${path.join(dir, 'xds.js')}`, '--log-level=error'],
    { cwd: ROOT },
  );
}

it('with grpc-js inlined and this package and @grpc/grpc-js-xds external, registerXds({ grpcJs }) refuses where registerXds() cannot tell', () => {
  // This package and grpc-js-xds load one grpc-js from disk; the application's
  // channels use the inlined one, which leaves no file to find: registerXds()
  // returned and calls failed (a cold trial of the package, 2026-12-06).
  installPackageBesideBundle();
  const source =
    `import * as grpc from '@grpc/grpc-js';\n` +
    `const { registerXds } = require('${INSTALLED_NAME}');\n` +
    `for (const [step, choice] of [['registerXds()', undefined], ['registerXds({ grpcJs })', { grpcJs: grpc }]] as const) {\n` +
    `  try { registerXds(choice); console.log(step + ': ok'); } catch (e) { console.log(step + ': ' + (e as Error).message); }\n` +
    `}\n`;
  const lines = bundle(source, DIR, path.join(DIR, 'app-package-external.js'), ['--external:@grpc/grpc-js-xds', `--external:${INSTALLED_NAME}`]).split('\n');
  expect(lines[0]).toBe('registerXds(): ok');
  expect(lines[1]).toMatch(/^registerXds\(\{ grpcJs \}\): grpc-js-peak-ewma: two copies of @grpc\/grpc-js: .*the grpcJs given is a copy not loaded from node_modules .*Dedupe them/);
  expect(lines).toHaveLength(2);
}, 60_000);
