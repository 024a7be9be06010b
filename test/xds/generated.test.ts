/**
 * CI fails when src/generated is stale: regenerate with buf + ts-proto into a
 * scratch directory and compare with what is committed.
 */
import { findStaleFiles } from '../../scripts/xds/generate';

test('src/generated matches a fresh generation from protos/ (else: npm run generate)', () => {
  expect(findStaleFiles()).toEqual([]);
});
