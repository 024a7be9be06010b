/**
 * The backend that serves a channel's first call is not starved for that
 * call's latency, over real gRPC on 127.0.0.1.
 *
 * A channel's first call pays for the client's own warm-up (grpc-js's call
 * path compiled, the first stream): a cold trial of the package measured
 * 28–139 ms against a 2 ms service. Until 2026-12-06 that answer counted as
 * a full window of the endpoint's mean answer M, which put it over the
 * gate's line and the ejection's: the backend that served it got 1 of the
 * next 200 calls, until its probe after `maxEjectionTime` (1 s) and 10 fair
 * shares of the channel's calls. Now the balancer's first answer is
 * provisional (src/core/first-answer.ts). The test makes that call slow on
 * the server side, 150 ms, whichever backend gets it, so that it does not
 * depend on how warm this process already is.
 */
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce } from '../../scripts/lib/probe-service';
import { startBackendsAnswering, stopBackends, TestBackend } from '../support/backends';
import { clientFor } from '../support/traffic';

register();

const SERVICE_MS = 2;
const FIRST_CALL_MS = 150;
const CALLS = 120;

describe("peak_ewma_experimental: a channel's slow first call", () => {
  let backends: TestBackend[];

  beforeEach(async () => {
    backends = await startBackendsAnswering([SERVICE_MS, SERVICE_MS, SERVICE_MS, SERVICE_MS]);
    const firstCallOfAll = { ms: FIRST_CALL_MS, taken: false };
    for (const backend of backends) backend.behaviour.firstCallOfAll = firstCallOfAll;
  });
  afterEach(() => stopBackends(backends));

  it.each([
    ['the defaults', {}],
    // A probe interval no slow machine reaches within the calls: the starved backend would get 1 call.
    ['maxEjectionTime 10 s', { maxEjectionTime: '10s' }],
  ])(`four ${SERVICE_MS} ms backends, the channel's first call ${FIRST_CALL_MS} ms, ${CALLS} sequential calls, %s: the backend that served it gets its second call at once, and more`, async (_name, config) => {
    const label = `cold-first-answer-${JSON.stringify(config)}`;
    const client = clientFor(backends, [{ peak_ewma_experimental: config }], { [STATS_LABEL_OPTION]: label });
    try {
      const servedBy: string[] = [];
      for (let call = 0; call < CALLS; call++) {
        servedBy.push(await callOnce(client, 5_000));
      }
      const stats = getLoadBalancerStats().filter((entry) => entry.label === label);
      // peak_ewma ran (not a pick_first fallback).
      expect(stats.map((entry) => entry.policy)).toEqual(['peak_ewma_experimental']);
      // ...with this case's config: an ignored maxEjectionTime would let the 1 s probe rescue the backend.
      expect(stats[0].config).toMatchObject({ peak_ewma_experimental: config });
      const first = servedBy[0];
      // The 40 calls right after it, well within maxEjectionTime even on a slow machine (the probe that
      // ends a starvation comes after 1 s). Starved, it got none of them. Now its second call goes out at
      // the next pick that reaches it, and the calls after that are its share; on a busy machine a 2 ms
      // backend's answers are often several times that, and the ejection line then takes some of them
      // away for the machine's noise (4 of 40 in one run of the whole suite), so the bound is on its
      // second call and a few more, not on a fair share.
      const next40 = servedBy.slice(1, 41);
      const secondCallAt = next40.indexOf(first);
      const calls = next40.filter((id) => id === first).length;
      expect({ first, secondCallAt, calls, served: secondCallAt >= 0 && secondCallAt < 8 && calls >= 2 }).toEqual({ first, secondCallAt, calls, served: true });
    } finally {
      client.close();
    }
  }, 60_000);
});
