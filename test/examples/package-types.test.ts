import { readFileSync } from 'fs';
import { join } from 'path';
import * as ts from 'typescript';

/**
 * Where a TypeScript consumer finds this package's types, under each module
 * resolution it may use. `exports` serves node16/nodenext and bundler;
 * node10 (TypeScript 5's default for "module": "commonjs", and ts-jest's)
 * ignores `exports`, so `grpc-js-peak-ewma/xds` needs `typesVersions`: without
 * it, node10 consumers got "Cannot find module 'grpc-js-peak-ewma/xds'".
 * Resolved against a virtual node_modules holding this package.json and the
 * build's declaration files, so no build is needed. (The TypeScript here, 6,
 * no longer resolves node10 as TypeScript 5 did, so node10 is checked on the
 * package.json itself.)
 */
describe("the package's types, as a consumer's TypeScript resolves them", () => {
  const packageJson = readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8');
  const root = '/consumer/node_modules/grpc-js-peak-ewma';
  const files = new Map([
    [`${root}/package.json`, packageJson],
    [`${root}/dist/src/index.d.ts`, 'export {};'],
    [`${root}/dist/src/xds/index.d.ts`, 'export {};'],
  ]);
  const host: ts.ModuleResolutionHost = {
    fileExists: (file) => files.has(file),
    readFile: (file) => files.get(file),
    directoryExists: (dir) => [...files.keys()].some((file) => file.startsWith(`${dir}/`)),
    realpath: (file) => file,
  };
  const resolve = (specifier: string, moduleResolution: ts.ModuleResolutionKind, module: ts.ModuleKind) =>
    ts.resolveModuleName(specifier, '/consumer/src/app.ts', { moduleResolution, module }, host, undefined, undefined, ts.ModuleKind.CommonJS)
      .resolvedModule?.resolvedFileName;

  it('maps every subpath whose types `exports` names in typesVersions too, to the same file (node10 reads only that)', () => {
    const pkg = JSON.parse(packageJson) as { exports: Record<string, unknown>; typesVersions?: Record<string, Record<string, string[]>> };
    const subpaths = Object.entries(pkg.exports).filter(([key, target]) => key !== '.' && typeof target === 'object' && target !== null && 'types' in target);
    expect(subpaths.map(([key]) => key)).toEqual(['./xds']);
    for (const [key, target] of subpaths) {
      expect(pkg.typesVersions?.['*']?.[key.slice(2)]).toEqual([(target as { types: string }).types.replace(/^\.\//, '')]);
    }
  });

  it.each([
    ['node16', ts.ModuleResolutionKind.Node16, ts.ModuleKind.Node16],
    ['nodenext', ts.ModuleResolutionKind.NodeNext, ts.ModuleKind.NodeNext],
    ['bundler', ts.ModuleResolutionKind.Bundler, ts.ModuleKind.ESNext],
  ])('%s finds both entry points', (_name, moduleResolution, module) => {
    expect(resolve('grpc-js-peak-ewma', moduleResolution, module)).toBe(`${root}/dist/src/index.d.ts`);
    expect(resolve('grpc-js-peak-ewma/xds', moduleResolution, module)).toBe(`${root}/dist/src/xds/index.d.ts`);
  });
});
