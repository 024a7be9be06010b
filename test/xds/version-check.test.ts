/**
 * @grpc/grpc-js-xds versions: package.json accepts a range (a patch release
 * must not break npm install), registerXds() checks the installed version
 * against the same range at run time, and the internals inside it by shape.
 */
import * as fs from 'fs';
import * as path from 'path';
import { isSupportedXdsVersion, SUPPORTED_XDS_RANGE, TESTED_XDS_VERSION } from '../../src/xds/xds-registry';

const PACKAGE = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

test('peerDependencies take the range ~1.14.1; the tests keep the exact version they were written against', () => {
  expect(PACKAGE.peerDependencies['@grpc/grpc-js-xds']).toBe('~1.14.1');
  expect(SUPPORTED_XDS_RANGE).toBe('>=1.14.1 <1.15.0'); // what npm reads ~1.14.1 as
  expect(PACKAGE.devDependencies['@grpc/grpc-js-xds']).toBe(TESTED_XDS_VERSION);
});

test.each([
  ['1.14.1', true],
  ['1.14.2', true],
  ['1.14.10', true],
  ['1.14.0', false],
  ['1.13.9', false],
  ['1.15.0', false],
  ['2.14.1', false],
  ['1.14.2-pre.1', false], // npm's ~ excludes prereleases too
  ['unknown', false],
])('version %s supported: %p', (version, supported) => {
  expect(isSupportedXdsVersion(version)).toBe(supported);
});

describe('registerXds() checks the installed version', () => {
  afterEach(() => {
    jest.dontMock('@grpc/grpc-js-xds/package.json');
    jest.resetModules();
  });

  function registerWithInstalled(version: string): void {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds/package.json', () => ({ version }));
      (require('../../src/xds') as typeof import('../../src/xds')).registerXds();
    });
  }

  test('1.15.0 fails before anything is registered, naming the range and what is installed', () => {
    expect(() => registerWithInstalled('1.15.0')).toThrow(
      'grpc-js-peak-ewma/xds supports @grpc/grpc-js-xds >=1.14.1 <1.15.0 (tested with 1.14.1); installed: @grpc/grpc-js-xds 1.15.0',
    );
  });

  test('a missing @grpc/grpc-js-xds is reported as missing, with the install command', () => {
    jest.isolateModules(() => {
      jest.doMock('@grpc/grpc-js-xds', () => {
        throw new Error("Cannot find module '@grpc/grpc-js-xds'");
      });
      jest.doMock('@grpc/grpc-js-xds/package.json', () => {
        throw new Error("Cannot find module '@grpc/grpc-js-xds/package.json'");
      });
      expect(() => (require('../../src/xds') as typeof import('../../src/xds')).registerXds()).toThrow(
        /needs @grpc\/grpc-js-xds >=1\.14\.1 <1\.15\.0 \(npm install @grpc\/grpc-js-xds@1\.14\.1\): Cannot find module/,
      );
    });
    jest.dontMock('@grpc/grpc-js-xds');
  });

  test('a patch release (1.14.2, here the 1.14.1 code under that number) registers: the internals pass their shape checks', () => {
    expect(() => registerWithInstalled('1.14.2')).not.toThrow();
  });
});
