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
    // Having named its copy, the application is not told to name it again: the advice
    // was register({ grpcJs: require('@grpc/grpc-js') }), the very call that threw.
    expect(results[2].error).toContain('register() can only register into');
    expect(results[2].error).not.toContain('register({ grpcJs');
    expect(results[0].error).toContain('pass the module your channels use: register({ grpcJs })');
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

describe("register()'s argument, checked before anything is registered", () => {
  // From plain JavaScript a misspelt option or a string was taken as no choice,
  // so the check the caller asked for never ran (a cold trial, 2026-12-06).
  const { register } = jest.requireActual<typeof import('../../src/policy/register')>('../../src/policy/register');
  const { registerXds } = jest.requireActual<typeof import('../../src/xds')>('../../src/xds');
  const loose = { register: register as (choice: unknown) => void, registerXds: registerXds as (choice: unknown) => void };

  it.each(['register', 'registerXds'] as const)('%s() names a misspelt option, a non-object and a grpcJs that is not the module', (name) => {
    const call = loose[name];
    expect(() => call({ grpcjs: {} })).toThrow(
      new TypeError(`${name}(): "grpcjs" is not an option (did you mean "grpcJs"?); the only one is grpcJs, the @grpc/grpc-js module your channels are made with`),
    );
    expect(() => call('x')).toThrow(new TypeError(`${name}(): its argument must be an object such as { grpcJs: require('@grpc/grpc-js') }, or none; got "x"`));
    expect(() => call([])).toThrow(/its argument must be an object .*; got an array$/);
    expect(() => call({ grpcJs: '@grpc/grpc-js' })).toThrow(new TypeError(`${name}(): grpcJs must be the @grpc/grpc-js module (require('@grpc/grpc-js')), got "@grpc/grpc-js"`));
  });

  it('register({ grpcJs }) with the module itself, and no argument, both register', () => {
    const grpcJs = jest.requireActual<typeof import('@grpc/grpc-js')>('@grpc/grpc-js');
    expect(() => register({ grpcJs })).not.toThrow();
    expect(() => register()).not.toThrow();
    expect(grpcJs.experimental.isLoadBalancerNameRegistered('peak_ewma_experimental')).toBe(true);
  });
});
