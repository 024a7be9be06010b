/**
 * An application bundled with esbuild, as users bundle theirs, and run as a
 * deployed bundle runs (its own directory as the working directory).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** esbuild's documented way to bundle CommonJS packages into an ES module: a `require` made for the bundle. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Writes `source` as app.ts in `srcDir` (under the repository, so that esbuild
 * resolves packages from its node_modules), bundles it to `outFile` with
 * `esbuildArgs` beside --bundle --platform=node, runs the bundle and returns
 * what it printed.
 */
export function bundleAndRun(source: string, srcDir: string, outFile: string, esbuildArgs: readonly string[] = []): string {
  fs.mkdirSync(srcDir, { recursive: true });
  const entry = path.join(srcDir, 'app.ts');
  fs.writeFileSync(entry, source);
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'esbuild'), [entry, '--bundle', '--platform=node', ...esbuildArgs, `--outfile=${outFile}`, '--log-level=error'], {
    cwd: ROOT,
  });
  return execFileSync(process.execPath, [outFile], { cwd: path.dirname(outFile), encoding: 'utf8', timeout: 60_000 }).trim();
}
