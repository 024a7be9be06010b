import { assertSupportedGrpcJs, installedGrpcJsVersion } from '../../src/policy/grpc-js-version';

describe('the @grpc/grpc-js version register() runs on', () => {
  it('is a 1.14 release, read from the copy this package imports', () => {
    expect(installedGrpcJsVersion()).toMatch(/^1\.14\.\d+$/);
    expect(() => assertSupportedGrpcJs()).not.toThrow();
    for (const version of ['1.14.0', '1.14.5', '1.14.7', '1.14.12']) {
      expect(() => assertSupportedGrpcJs(version)).not.toThrow();
    }
    // A bundle without grpc-js's package.json: nothing to compare, nothing refused.
    expect(() => assertSupportedGrpcJs(null)).not.toThrow();
  });

  it('refuses another minor version by name, before a channel can end the process', () => {
    expect(() => assertSupportedGrpcJs('1.13.4')).toThrow(
      'grpc-js-peak-ewma supports @grpc/grpc-js 1.14.x (peerDependencies ~1.14.5); installed: @grpc/grpc-js 1.13.4.',
    );
    expect(() => assertSupportedGrpcJs('1.15.0')).toThrow(/installed: @grpc\/grpc-js 1\.15\.0\. .*Install @grpc\/grpc-js@~1\.14\.5\.$/);
    expect(() => assertSupportedGrpcJs('1.140.0')).toThrow(/installed: @grpc\/grpc-js 1\.140\.0/);
  });

  it('is checked by register(), which then registers nothing', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js/package.json', () => ({ version: '1.13.4' }));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const grpc = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const ours = require('../../src') as typeof import('../../src');
      expect(() => ours.register()).toThrow(/installed: @grpc\/grpc-js 1\.13\.4/);
      expect(grpc.experimental.isLoadBalancerNameRegistered(ours.PEAK_EWMA_POLICY_NAME)).toBe(false);
    });
  });
});
