/** What registerXds() says when @grpc/grpc-js-xds cannot be loaded: missing, or present and failing. */
afterEach(() => {
  jest.dontMock('@grpc/grpc-js-xds');
  jest.resetModules();
});

function loadWith(failure: Error & { code?: string }): string {
  let message = '';
  jest.isolateModules(() => {
    jest.doMock('@grpc/grpc-js-xds', () => {
      throw failure;
    });
    try {
      (require('../../src/xds/xds-registry') as typeof import('../../src/xds/xds-registry')).loadGrpcJsXds();
    } catch (error) {
      message = (error as Error).message;
    }
  });
  return message;
}

it('says to install it when it is not installed', () => {
  const missing = Object.assign(new Error("Cannot find module '@grpc/grpc-js-xds'"), { code: 'MODULE_NOT_FOUND' });
  expect(loadWith(missing)).toMatch(/^grpc-js-peak-ewma\/xds needs @grpc\/grpc-js-xds >=1\.14\.1 <1\.15\.0 \(npm install @grpc\/grpc-js-xds@1\.14\.1\): Cannot find module/);
});

it('does not say to install it when it is installed and fails to load (a bundle without its re2.wasm), nor when a module it needs is missing', () => {
  const broken = Object.assign(new Error("ENOENT: no such file or directory, open '/app/re2.wasm'"), { code: 'ENOENT' });
  expect(loadWith(broken)).toBe(
    'grpc-js-peak-ewma/xds: @grpc/grpc-js-xds is installed but failed to load (in a bundle: keep it external, ' +
      "getting-started.md \"Bundling\"): ENOENT: no such file or directory, open '/app/re2.wasm'",
  );
  const itsDependency = Object.assign(new Error("Cannot find module 're2-wasm'"), { code: 'MODULE_NOT_FOUND' });
  expect(loadWith(itsDependency)).toMatch(/is installed but failed to load .*Cannot find module 're2-wasm'$/);
});
