import * as os from 'os';
import * as path from 'path';
import { BUNDLED, findOwnPackage } from '../../src/policy/own-package';
import { ownProtosDir, PEAK_EWMA_PROTO } from '../../src/xds/proto-root';

describe('finding our own files', () => {
  it('finds protos/ and our package.json above this code, as it runs from src/ or dist/', () => {
    const root = path.resolve(__dirname, '..', '..');
    expect(ownProtosDir()).toBe(path.join(root, 'protos'));
    expect(findOwnPackage()).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), dir: root });
  });

  it('in an ES module bundle (no __dirname): no version to compare, and protos/ refused with what to do', () => {
    expect(findOwnPackage(null)).toEqual({ version: null, dir: BUNDLED });
    expect(() => ownProtosDir(null)).toThrow(/ES module bundle.*keep grpc-js-peak-ewma, @grpc\/grpc-js and @grpc\/grpc-js-xds out of the bundle/);
  });

  it('says what to do where protos/ is not above the code (a CommonJS bundle)', () => {
    const elsewhere = os.tmpdir();
    expect(() => ownProtosDir(elsewhere)).toThrow(
      `grpc-js-peak-ewma: cannot find protos/${PEAK_EWMA_PROTO} above ${elsewhere}. grpc-js-peak-ewma/xds reads .proto files`,
    );
  });
});
