/**
 * The load test's restart in place (s19), on a real grpc-js server over
 * loopback: ProbeBackend.restartInPlace stops listening at once (a client's
 * connection is refused, as to a pod whose process died), lets the old
 * process's call in flight finish (the simulator's restart is graceful),
 * and after `downMs` serves again on the same port, warming up from its
 * first call as a new process does.
 */
import { credentials, Metadata, ServiceError, status } from '@grpc/grpc-js';
import { createProbeClient, ProbeClient } from '../../scripts/lib/probe-service';
import { LogicalClockScheduler } from '../../scripts/bench/logical-scheduler';
import { ProbeBackend } from '../../scripts/bench/probe-backend';
import { encodeProbeRequest } from '../../scripts/bench/probe-request';
import { seededRandom } from '../../src/core/random';

const MEDIAN_MS = 40;
const DOWN_MS = 600;

interface Answer {
  readonly code: number;
  readonly ms: number;
}

function call(client: ProbeClient, medianMs: number): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    client.call(encodeProbeRequest(medianMs), new Metadata(), { deadline: Date.now() + 5_000 }, (error: ServiceError | null) =>
      resolve({ code: error ? error.code : status.OK, ms: performance.now() - started }),
    );
  });
}

describe('ProbeBackend.restartInPlace', () => {
  const scheduler = new LogicalClockScheduler();
  // No spread; a cold process serves its k-th call 1 + 4·exp(−k/2) times slower: 5× at first, warm after ten.
  const backend = new ProbeBackend({
    id: 'b0',
    scheduler,
    random: seededRandom(1),
    behaviour: { slots: 4, sigma: 0, warmupFactor: 5, warmupCalls: 2 },
  });
  const clients: ProbeClient[] = [];
  // Each client its own subchannel: in grpc-js's global pool a new channel would share the refused one's back-off.
  const newClient = (address: string) => {
    const client = createProbeClient(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await backend.stop(0);
    scheduler.stop();
  });

  it('refuses connections while down, finishes the call in flight, and serves cold on the same port after', async () => {
    const port = await backend.start();
    const address = `127.0.0.1:${port}`;
    const before = newClient(address);
    let warm: Answer = { code: -1, ms: NaN };
    for (let i = 0; i < 12; i++) {
      warm = await call(before, MEDIAN_MS);
      expect(warm.code).toBe(status.OK);
    }
    expect(warm.ms).toBeLessThan(MEDIAN_MS * 2);

    const inFlight = call(before, 300);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const restarted = backend.restartInPlace(DOWN_MS, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Down: a new connection is refused, and the call fails fast instead of waiting for the deadline.
    const whileDown = await call(newClient(address), MEDIAN_MS);
    expect(whileDown.code).toBe(status.UNAVAILABLE);
    expect(whileDown.ms).toBeLessThan(1_000);
    // Graceful: the old process's call finished, with its answer.
    expect((await inFlight).code).toBe(status.OK);

    await restarted;
    expect(backend.port).toBe(port);
    const cold = await call(newClient(address), MEDIAN_MS);
    expect(cold.code).toBe(status.OK);
    // The new process's first call is served about 5× slower than the warm one before it.
    expect(cold.ms).toBeGreaterThan(warm.ms * 3);
    expect(backend.stats()).toMatchObject({ failed: 0 });
  });
});
