/**
 * Where this package's code runs from, for the files it reads beside it
 * (its package.json, protos/). Null in an ES module bundle: esbuild's
 * --format=esm inlines CommonJS code where `__dirname` does not exist, and
 * reading it throws a ReferenceError. Every caller searches upwards from
 * here, so which of our files this is does not matter.
 */
export function moduleDirectory(): string | null {
  return typeof __dirname === 'string' ? __dirname : null;
}
