import { execFileSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { join, posix } from 'path';
import * as ts from 'typescript';
import { relativeLinksOf } from '../support/markdown-links';

/**
 * What `npm install grpc-js-peak-ewma` puts on a user's disk: the code, the
 * protos, the docs and their charts, the examples and xDS fixtures the docs
 * link to, the licence; not the measurement data
 * the docs were written from (docs/judgements, docs/benchmarks/*.json), which
 * was 25 of the package's 27 MB and belongs to the repository.
 */
describe('the published package', () => {
  const root = join(__dirname, '..', '..');
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  ) as { unpackedSize: number; files: { path: string; size: number }[] }[];
  const files = new Set(packed[0].files.map((file) => file.path));

  it('ships the docs, the licence and the protos, and no measurement data', () => {
    for (const doc of ['README.md', 'LICENSE', 'docs/getting-started.md', 'docs/configuration.md', 'docs/tuning.md', 'docs/xds.md']) {
      expect(files).toContain(doc);
    }
    expect([...files].some((file) => file.startsWith('protos/'))).toBe(true);
    const data = [...files].filter((file) => file.startsWith('docs/judgements/') || /^docs\/benchmarks\/.*\.(json|txt)$/.test(file));
    expect(data).toEqual([]);
    // The code (dist/, when built) is under 1 MB; docs and charts about 0.9 MB.
    expect(packed[0].unpackedSize).toBeLessThan(4_000_000);
  });

  it('ships every image a shipped doc shows', () => {
    const missing: string[] = [];
    for (const doc of [...files].filter((file) => file.endsWith('.md'))) {
      const text = readFileSync(join(root, doc), 'utf8');
      for (const [, target] of text.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const image = posix.normalize(posix.join(posix.dirname(doc), target));
        if (!files.has(image)) missing.push(`${doc} → ${image}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships every file a shipped doc links to (the examples and the xDS fixtures included): the docs read whole from node_modules', () => {
    const dirs = new Set([...files].flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
    const missing: string[] = [];
    for (const doc of [...files].filter((file) => file.endsWith('.md'))) {
      for (const link of relativeLinksOf(readFileSync(join(root, doc), 'utf8'))) {
        if (link.startsWith('#')) continue;
        const target = posix.normalize(posix.join(posix.dirname(doc), link.split('#')[0])).replace(/\/$/, '');
        if (!files.has(target) && !dirs.has(target)) missing.push(`${doc} → ${link}`);
      }
    }
    expect(missing).toEqual([]);
    expect(files).toContain('examples/kubernetes/orders-service.yaml');
    expect([...files].some((file) => file.startsWith('xds-fixtures/'))).toBe(true);
  });

  it("ships source maps that carry their sources, since src/ is not shipped (a stack trace under --enable-source-maps points at them)", () => {
    expect([...files].some((file) => file.startsWith('src/'))).toBe(false);
    const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    expect(parsed?.options.sourceMap).toBe(true);
    expect(parsed?.options.inlineSources).toBe(true);
    // And the build's maps say so where there is a build (npm install and npm ci run it; CI always has one).
    const map = join(root, 'dist', 'src', 'index.js.map');
    if (process.env.CI === 'true') {
      expect(existsSync(map)).toBe(true); // npm ci built it; without one this check would check nothing
    }
    if (existsSync(map)) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect(sourcesContent?.length).toBe(sources.length);
      expect(sourcesContent?.[0]).toContain('export { register }');
    }
  });
});
