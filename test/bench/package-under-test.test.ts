import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { BUILD_DIR, buildDirFor, buildRevision } from '../../scripts/bench/package-under-test';

describe('the benchmarks\' build of the package', () => {
  it('is one directory per checkout, even where worktrees share node_modules through a symlink', () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-build-'));
    try {
      fs.mkdirSync(path.join(shared, 'main', 'node_modules'), { recursive: true });
      fs.mkdirSync(path.join(shared, 'worktree'));
      fs.symlinkSync(path.join(shared, 'main', 'node_modules'), path.join(shared, 'worktree', 'node_modules'));
      const main = buildDirFor(path.join(shared, 'main'));
      const worktree = buildDirFor(path.join(shared, 'worktree'));
      fs.mkdirSync(main);
      fs.mkdirSync(worktree);
      // Both land in the one real node_modules, side by side, not in one directory.
      expect(fs.realpathSync(path.dirname(worktree))).toBe(fs.realpathSync(path.dirname(main)));
      expect(fs.realpathSync(worktree)).not.toBe(fs.realpathSync(main));
      // Same depth as before (node_modules/<dir>), which proto-root.ts's upward search for protos/ relies on.
      expect(path.relative(path.join(shared, 'main'), main).split(path.sep)).toHaveLength(2);
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });

  it('builds a git revision into its own directory beside the build, once, and its engine runs', () => {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dir = buildRevision('HEAD');
    expect(path.dirname(dir)).toBe(path.dirname(BUILD_DIR));
    expect(dir).not.toBe(BUILD_DIR);
    expect(fs.readFileSync(path.join(dir, 'SOURCE'), 'utf8')).toBe(`HEAD ${commit}`);
    const builtAtMs = fs.statSync(path.join(dir, 'SOURCE')).mtimeMs;
    expect(buildRevision(commit)).toBe(dir);
    expect(fs.statSync(path.join(dir, 'SOURCE')).mtimeMs).toBe(builtAtMs);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const core = require(path.join(dir, 'src', 'core', 'index.js')) as typeof import('../../src/core/index');
    const engine = new core.LoadBalancingEngine({ model: core.leastRequestModel, choiceCount: 2, clock: () => 0, random: core.seededRandom(1) });
    const loads = [new core.EndpointLoad(), new core.EndpointLoad()];
    loads[0].callStarted();
    expect(engine.pick(loads)).toBe(1);
  });
});
