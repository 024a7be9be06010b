/**
 * The package as users run it: src/ compiled by the TypeScript compiler, not
 * by tsx.
 *
 * Why: tsx compiles with esbuild's `keepNames`, which wraps every function
 * expression in a `__name(fn, "name")` helper that calls
 * Object.defineProperty. The picker creates two closures per call, so under
 * tsx every call pays two defineProperty calls (~2–3 µs measured), which tsc's
 * output (what `npm run build` ships) does not. Benchmarks must time the
 * shipped code, so src/ is transpiled here with `ts.transpileModule`
 * (per-file, the same emit as tsc under `isolatedModules`) into a cache under
 * node_modules (which tsx leaves alone) and loaded from there.
 *
 * Which src/: the committed HEAD by default (`git archive`), so a report
 * names the commit it measured even while others edit the work tree;
 * PEAK_EWMA_BENCH_SOURCE=worktree benchmarks uncommitted changes instead.
 *
 * Every benchmark process must load the policies through `loadPackage()`:
 * mixing this copy with a tsx-loaded src/ would give two registries.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

type PackageModule = typeof import('../../src/index');

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/**
 * Four levels below the repo root, so that src/xds/proto-root.ts (which looks
 * up to 5 levels for protos/) still finds the repo's protos/. One per
 * checkout (named by a hash of its path): git worktrees that share one
 * node_modules through a symlink would otherwise build into the same
 * directory, and a benchmark started in one checkout would swap the code a
 * running benchmark in another loads into each new process.
 */
export function buildDirFor(repoRoot: string): string {
  return path.join(repoRoot, 'node_modules', `.peak-ewma-bench-${createHash('sha1').update(repoRoot).digest('hex').slice(0, 8)}`);
}

export const BUILD_DIR = buildDirFor(REPO_ROOT);

function listSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return listSources(full);
    }
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

export function benchSource(): 'head' | 'worktree' {
  return process.env.PEAK_EWMA_BENCH_SOURCE === 'worktree' ? 'worktree' : 'head';
}

/** What the build holds: "HEAD <commit>" or "work tree". */
export function builtFrom(): string {
  const stamp = path.join(BUILD_DIR, 'SOURCE');
  return fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8') : 'unknown';
}

function git(args: string[]): Buffer {
  return execFileSync('git', args, { cwd: REPO_ROOT, maxBuffer: 64 * 2 ** 20 });
}

/** The src/ to compile: the work tree's, or HEAD's extracted to a temporary directory. */
function sourceTree(): { srcDir: string; label: string; cleanup: () => void } {
  const worktree = { srcDir: path.join(REPO_ROOT, 'src'), label: 'work tree', cleanup: () => {} };
  if (benchSource() === 'worktree') {
    return worktree;
  }
  let commit: string;
  try {
    commit = git(['rev-parse', 'HEAD']).toString().trim();
  } catch {
    return worktree; // not a git checkout (e.g. an unpacked tarball)
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peak-ewma-bench-src-'));
  execFileSync('tar', ['-x', '-C', dir], { input: git(['archive', 'HEAD', 'src']) });
  return { srcDir: path.join(dir, 'src'), label: `HEAD ${commit}`, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Transpiles src/ (HEAD's, or the work tree's) into BUILD_DIR/src unless it already holds exactly that. */
export function buildPackage(): string {
  const { srcDir, label, cleanup } = sourceTree();
  try {
    if (builtFrom() === label && label !== 'work tree') {
      return path.join(BUILD_DIR, 'src', 'index.js');
    }
    fs.rmSync(path.join(BUILD_DIR, 'src'), { recursive: true, force: true });
    compile(srcDir);
    fs.writeFileSync(path.join(BUILD_DIR, 'SOURCE'), label);
  } finally {
    cleanup();
  }
  return path.join(BUILD_DIR, 'src', 'index.js');
}

/**
 * src/ as committed at `revision` (any git revision), compiled as
 * `buildPackage` compiles it, into its own directory beside BUILD_DIR;
 * returns that directory (its `src/` holds the package). For benchmarks
 * that load two builds side by side (engine-ab.ts). Built once per commit.
 */
export function buildRevision(revision: string): string {
  const commit = git(['rev-parse', '--verify', `${revision}^{commit}`]).toString().trim();
  const dir = `${BUILD_DIR}-${commit.slice(0, 12)}`;
  if (fs.existsSync(path.join(dir, 'SOURCE'))) {
    return dir;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'peak-ewma-bench-src-'));
  try {
    execFileSync('tar', ['-x', '-C', tmp], { input: git(['archive', commit, 'src']) });
    fs.rmSync(path.join(dir, 'src'), { recursive: true, force: true });
    compile(path.join(tmp, 'src'), dir);
    fs.writeFileSync(path.join(dir, 'SOURCE'), `${revision} ${commit}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

function compile(srcDir: string, buildDir: string = BUILD_DIR): void {
  // Loaded lazily: only the parent process pays for the compiler.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  for (const source of listSources(srcDir)) {
    const output = path.join(buildDir, 'src', path.relative(srcDir, source)).replace(/\.ts$/, '.js');
    const result = ts.transpileModule(fs.readFileSync(source, 'utf8'), {
      fileName: source,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        esModuleInterop: true,
        sourceMap: false,
      },
    });
    fs.mkdirSync(path.dirname(output), { recursive: true });
    fs.writeFileSync(output, result.outputText);
  }
}

let loaded: PackageModule | null = null;

/** The compiled package (built on first use in this process). */
export function loadPackage(): PackageModule {
  if (loaded === null) {
    const entry = path.join(BUILD_DIR, 'src', 'index.js');
    if (process.env.PEAK_EWMA_BENCH_BUILT !== '1' || !fs.existsSync(entry)) {
      buildPackage();
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(entry) as PackageModule;
  }
  return loaded;
}

type XdsModule = typeof import('../../src/xds/index');

/** The compiled package's `./xds` entry (registerXds), from the same build as `loadPackage()`. */
export function loadXdsPackage(): XdsModule {
  loadPackage();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(BUILD_DIR, 'src', 'xds', 'index.js')) as XdsModule;
}

type StreamingModule = typeof import('../../src/policy/streaming');

/**
 * The compiled src/policy/streaming (its internal `markedCopy`, which marks a
 * call as the `callMarker` interceptor does), from the same build as
 * `loadPackage()`: benchmarks that mark calls without running an
 * interceptor chain.
 */
export function loadStreamingModule(): StreamingModule {
  loadPackage();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(BUILD_DIR, 'src', 'policy', 'streaming.js')) as StreamingModule;
}

/** Call in a parent before forking children, so they skip the freshness check. */
export function prebuildForChildren(): void {
  buildPackage();
  process.env.PEAK_EWMA_BENCH_BUILT = '1';
}
