/**
 * The short churn soak through EDS: the fake xDS control plane (scripts/xds)
 * serves Envoy's PeakEwma in CDS and a ClusterLoadAssignment that replaces an
 * endpoint every 100 ms, under traffic. Same checks as churn.test.ts; the
 * 60 s version is `npm run soak` (its EDS half).
 */
import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { edsSource } from '../../scripts/soak/address-sources';
import { runChurnSoak } from '../../scripts/soak/churn-soak';
import { violationsOf } from '../../scripts/soak/churn-report';

const DURATION_MS = Number(process.env.CHURN_TEST_MS ?? 3_000);

beforeAll(() => setLogVerbosity(logVerbosity.NONE));

test(`EDS churn, an endpoint replaced every 100 ms for ${DURATION_MS / 1000} s, graceful removals: zero failed RPCs, stats exact, outstanding zero at rest`, async () => {
  const report = await runChurnSoak({
    mode: 'graceful',
    source: await edsSource(),
    label: 'churn-eds',
    durationMs: DURATION_MS,
    tickMs: 100,
    activeEndpoints: 4,
    concurrency: 8,
    deadlineMs: 10_000,
  });
  expect(violationsOf(report)).toEqual([]);
  expect(report.unexpectedFailures + report.allowedFailures).toBe(0);
  expect(report.ticks).toBeGreaterThanOrEqual(8); // each update waits for the ADS ACK: fewer ticks on a loaded machine
  expect(report.distinctBackendsServed).toBeGreaterThan(report.ticks / 2);
  expect(report.outstandingAtRest).toEqual([0, 0, 0, 0]);
});
