/**
 * Regenerates src/generated (ts-proto interfaces for protos/) with buf and
 * protoc-gen-ts_proto from node_modules; nothing is downloaded.
 *
 *   npx tsx scripts/xds/generate.ts           # write src/generated (npm run generate)
 *   npx tsx scripts/xds/generate.ts --check   # fail if src/generated is stale (npm run check:generated)
 *
 * test/xds/generated.test.ts runs the check inside `npm test`.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const GENERATED_DIR = 'src/generated';

/** Marks the directory as generated for GitHub (collapsed diffs, left out of language stats). */
const GITATTRIBUTES = '# Written by scripts/xds/generate.ts: ts-proto output, do not edit.\n* linguist-generated=true\n';

/** Runs buf generate with the repo's buf.yaml / buf.gen.yaml, writing under outRoot/src/generated. */
export function generate(outRoot: string): void {
  const buf = path.join(REPO_ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'buf.cmd' : 'buf');
  const result = spawnSync(buf, ['generate', '-o', outRoot], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`buf generate failed (status ${result.status}): ${result.error?.message ?? ''}${result.stderr}`);
  }
  fs.writeFileSync(path.join(outRoot, GENERATED_DIR, '.gitattributes'), GITATTRIBUTES);
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(path.join(dir, entry.name), path.join(prefix, entry.name))
      : [path.join(prefix, entry.name)],
  );
}

/** Differences between freshly generated code and the committed src/generated; [] when up to date. */
export function findStaleFiles(): string[] {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-js-peak-ewma-generate-'));
  try {
    generate(scratch);
    const fresh = path.join(scratch, GENERATED_DIR);
    const committed = path.join(REPO_ROOT, GENERATED_DIR);
    const names = new Set([...listFiles(fresh), ...listFiles(committed)]);
    const problems: string[] = [];
    for (const name of [...names].sort()) {
      const freshFile = path.join(fresh, name);
      const committedFile = path.join(committed, name);
      if (!fs.existsSync(committedFile)) {
        problems.push(`${GENERATED_DIR}/${name}: missing (generated but not committed)`);
      } else if (!fs.existsSync(freshFile)) {
        problems.push(`${GENERATED_DIR}/${name}: not generated any more`);
      } else if (!fs.readFileSync(freshFile).equals(fs.readFileSync(committedFile))) {
        problems.push(`${GENERATED_DIR}/${name}: differs from a fresh generation`);
      }
    }
    return problems;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  if (process.argv.includes('--check')) {
    const problems = findStaleFiles();
    if (problems.length > 0) {
      console.error(`${problems.join('\n')}\nsrc/generated is stale: run npm run generate and commit the result.`);
      process.exit(1);
    }
    console.log('src/generated is up to date.');
  } else {
    generate(REPO_ROOT);
    console.log(`wrote ${listFiles(path.join(REPO_ROOT, GENERATED_DIR)).length} files under ${GENERATED_DIR}`);
  }
}
