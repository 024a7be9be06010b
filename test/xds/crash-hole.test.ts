/**
 * The control experiment for the WrrLocality cases in nack.e2e.test.ts: with
 * grpc-js-xds's own converters the same fixtures are ACKed and kill the
 * process. Run in a child process (scripts/xds/wrr-locality-crash-demo.ts).
 * If this starts failing because the process survives, @grpc/grpc-js-xds has
 * closed the hole itself.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

test.each([
  ['an invalid TypedStruct', 'invalid/wrr-locality-typed-struct-rejected.yaml'],
  // grpc-js-xds's own converter: a RingHash whose minimum_ring_size it writes as a string.
  ['a RingHash with minimum_ring_size', 'invalid/wrr-locality-ring-hash-size.yaml'],
])('without registerXds, %s under WrrLocality is ACKed and crashes the process', (_what, fixture) => {
  const result = spawnSync(
    path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
    [path.join(REPO_ROOT, 'scripts', 'xds', 'wrr-locality-crash-demo.ts'), fixture],
    { cwd: REPO_ROOT, encoding: 'utf8', timeout: 50_000 },
  );
  expect(result.stdout).toMatch(/^ACKED$/m); // not "NACKED: ...", the line it prints otherwise
  expect(result.stdout).not.toContain('SURVIVED');
  expect(result.status).not.toBe(0);
  expect(result.stderr).toMatch(/weighted_target: Weighted target .* config parsing failed/);
  expect(result.stderr).toContain('XdsWrrLocalityLoadBalancer.updateAddressList');
});
