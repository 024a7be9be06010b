/**
 * The scripts' command lines (scripts/lib/command-line.ts): `--help` prints
 * the usage and a mistyped option its reason and the usage, where each
 * script threw a stack trace (test:stress, soak) or read `--help` as a file
 * name (bench:twin). One real script is run as a user runs it.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { usageOf } from '../../scripts/lib/command-line';

const ROOT = path.resolve(__dirname, '..', '..');

function run(script: string, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

it('lists every option the parser takes, with its default', () => {
  const usage = usageOf('npm run soak --', {
    'duration-s': { type: 'string', default: '60' },
    mode: { type: 'string' },
    hard: { type: 'boolean', default: false },
  });
  expect(usage.split('\n')).toEqual(['usage: npm run soak -- [options]', '', '  --duration-s VALUE  (default "60")', '  --mode VALUE', '  --hard', '  --help']);
});

it('a script answers --help with its usage and a mistyped option with the reason, not a stack trace', () => {
  const help = run('scripts/soak/churn.ts', '--help');
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('usage: npm run soak -- [options]');
  expect(help.stdout).toContain('--duration-s VALUE  (default "60")');
  const typo = run('scripts/soak/churn.ts', '--duraton-s', '5');
  expect(typo.status).toBe(2);
  expect(typo.stderr).toContain("npm run soak: Unknown option '--duraton-s'");
  expect(typo.stderr).toContain('usage: npm run soak -- [options]');
  expect(typo.stderr).not.toMatch(/\n\s+at /); // no stack trace
  const twin = run('scripts/bench/twin.ts', '--help');
  expect(twin.status).toBe(0);
  expect(twin.stdout).toContain('usage: npm run bench:twin -- RESULT.json...');
}, 60_000);
