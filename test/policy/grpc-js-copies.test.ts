/**
 * register() into one copy of @grpc/grpc-js while channels are made with
 * another: those channels silently use pick_first. register() must refuse,
 * naming both copies. Real copies in real Node processes (jest replaces
 * require() and its cache, so the cases run in child processes under tsx):
 * a copy of the installed grpc-js is placed in a node_modules of its own.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const SANDBOX = path.join(ROOT, 'tmp', `grpc-js-copies-${process.pid}`);
const COPY = path.join(SANDBOX, 'with-copy', 'node_modules', '@grpc', 'grpc-js');
const REGISTER = path.join(ROOT, 'src', 'policy', 'register');
const OURS = path.dirname(path.dirname(path.dirname(require.resolve('@grpc/grpc-js'))));

/** Runs `steps` (TypeScript, `register` and `attempt` in scope) as the main module in `dir`; returns what each attempt printed. */
function runMain(dir: string, steps: string): { step: string; error: string | null }[] {
  fs.mkdirSync(dir, { recursive: true });
  const main = path.join(dir, 'main.ts');
  fs.writeFileSync(
    main,
    `import { register } from ${JSON.stringify(REGISTER)};\n` +
      `function attempt(step: string, run: () => void) {\n` +
      `  try { run(); console.log(JSON.stringify({ step, error: null })); }\n` +
      `  catch (e) { console.log(JSON.stringify({ step, error: (e as Error).message })); }\n` +
      `}\n${steps}\n`,
  );
  const output = execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [main], { cwd: dir, encoding: 'utf8' });
  return output.trim().split('\n').map((line) => JSON.parse(line));
}

beforeAll(() => {
  const installed = path.dirname(require.resolve('@grpc/grpc-js/package.json'));
  fs.mkdirSync(COPY, { recursive: true });
  fs.copyFileSync(path.join(installed, 'package.json'), path.join(COPY, 'package.json'));
  fs.cpSync(path.join(installed, 'build'), path.join(COPY, 'build'), { recursive: true });
});
afterAll(() => fs.rmSync(SANDBOX, { recursive: true, force: true }));

describe('register() and a second copy of @grpc/grpc-js', () => {
  it("refuses when the application's own require('@grpc/grpc-js') gets another copy, unless told which one it uses", () => {
    const results = runMain(
      path.join(SANDBOX, 'with-copy', 'app'),
      `attempt('app resolves the copy', () => register());\n` +
        `attempt('names ours', () => register({ grpcJs: require(${JSON.stringify(OURS)}) }));\n` +
        `attempt('names the copy', () => register({ grpcJs: require('@grpc/grpc-js') }));`,
    );
    expect(results.map((r) => [r.step, r.error === null])).toEqual([
      ['app resolves the copy', false],
      ['names ours', true],
      ['names the copy', false],
    ]);
    for (const result of [results[0], results[2]]) {
      expect(result.error).toContain('two copies of @grpc/grpc-js');
      expect(result.error).toContain(fs.realpathSync(OURS));
      expect(result.error).toContain(fs.realpathSync(COPY));
      expect(result.error).toContain('npm dedupe');
    }
  });

  it('registers with one copy, and refuses once a second copy is loaded', () => {
    const results = runMain(
      path.join(SANDBOX, 'one-copy'),
      `attempt('one copy', () => register());\n` +
        `require(${JSON.stringify(COPY)});\n` +
        `attempt('second copy loaded', () => register());`,
    );
    expect(results.map((r) => [r.step, r.error === null])).toEqual([
      ['one copy', true],
      ['second copy loaded', false],
    ]);
    expect(results[1].error).toContain(`another copy is loaded from ${fs.realpathSync(COPY)}`);
  });
});
