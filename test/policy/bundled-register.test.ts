/**
 * An application bundled with esbuild (AWS CDK's NodejsFunction packages a
 * Lambda so: one file, no node_modules) holds one grpc-js, inlined. register()
 * must work there. It threw "Cannot find module '@grpc/grpc-js'", even with
 * the { grpcJs } escape hatch: grpc-js-copies.ts resolved grpc-js on disk
 * before anything else. The bundle runs from a directory outside any
 * node_modules tree, as a deployed one does.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { bundleAndRun as bundle, ESM_REQUIRE_BANNER, ROOT } from '../support/esbuild-app';

// Under the repository (its /tmp/ is git-ignored), so that esbuild resolves @grpc/grpc-js from node_modules.
const SRC_DIR = path.join(ROOT, 'tmp', `bundled-register-${process.pid}`);
// Outside any node_modules tree, as a deployed bundle is.
const OUT_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'bundled-register-'));

afterAll(() => {
  fs.rmSync(SRC_DIR, { recursive: true, force: true });
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
});

function bundleAndRun(body: string, format: 'cjs' | 'esm' = 'cjs'): string {
  const source =
    `import * as grpc from '@grpc/grpc-js';\n` +
    `import { register, PEAK_EWMA_POLICY_NAME } from ${JSON.stringify(path.join(ROOT, 'src'))};\n` +
    `function attempt(step: string, run: () => void) {\n` +
    `  try { run(); console.log(step + ': ok'); } catch (e) { console.log(step + ': ' + (e as Error).message.split('\\n')[0]); }\n` +
    `}\n${body}\n`;
  const esm = format === 'esm' ? ['--format=esm', `--banner:js=${ESM_REQUIRE_BANNER}`] : [];
  return bundle(source, SRC_DIR, path.join(OUT_DIR, format === 'esm' ? 'app.mjs' : 'app.js'), esm);
}

it('register() works in an esbuild bundle deployed without node_modules, and our policy is then registered', () => {
  const output = bundleAndRun(
    `attempt('register()', () => register());\n` +
      `attempt('register({ grpcJs })', () => register({ grpcJs: grpc }));\n` +
      `console.log('registered: ' + grpc.experimental.isLoadBalancerNameRegistered(PEAK_EWMA_POLICY_NAME));`,
  );
  expect(output.split('\n')).toEqual(['register(): ok', 'register({ grpcJs }): ok', 'registered: true']);
});

it('register() works in an ES module bundle too, where there is no __dirname (it threw "__dirname is not defined")', () => {
  const output = bundleAndRun(
    `attempt('register()', () => register());\n` +
      `console.log('registered: ' + grpc.experimental.isLoadBalancerNameRegistered(PEAK_EWMA_POLICY_NAME));`,
    'esm',
  );
  expect(output.split('\n')).toEqual(['register(): ok', 'registered: true']);
});
