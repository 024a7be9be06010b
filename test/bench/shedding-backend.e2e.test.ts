/**
 * The load test's backend sheds load as the model does (queueLimit): a
 * ProbeBackend with one slot and no queue answers a call that finds its slot
 * busy with gRPC RESOURCE_EXHAUSTED at once, which a real client's policy
 * maps to CallOutcome.SHED (src/policy/call-outcome.ts), so the load
 * test's s16 runs the same path as grpcio's maximum_concurrent_rpcs.
 */
import { credentials, Metadata, ServiceError, status } from '@grpc/grpc-js';
import { createProbeClient } from '../../scripts/lib/probe-service';
import { LogicalClockScheduler } from '../../scripts/bench/logical-scheduler';
import { ProbeBackend } from '../../scripts/bench/probe-backend';
import { encodeProbeRequest } from '../../scripts/bench/probe-request';
import { outcomeOfStatus } from '../../src/policy/call-outcome';
import { CallOutcome } from '../../src/core/endpoint-load';
import { seededRandom } from '../../src/core/random';

describe('ProbeBackend with queueLimit 0', () => {
  const scheduler = new LogicalClockScheduler();
  let backend: ProbeBackend;
  let address: string;
  beforeAll(async () => {
    backend = new ProbeBackend({ id: 'b0', scheduler, random: seededRandom(1), behaviour: { slots: 1, queueLimit: 0, sigma: 0 } });
    address = `127.0.0.1:${await backend.start()}`;
  });
  afterAll(async () => {
    await backend.stop(0);
    scheduler.stop();
  });

  it('refuses a call that finds its one slot busy with RESOURCE_EXHAUSTED, which the policy takes as a refusal', async () => {
    const client = createProbeClient(address, credentials.createInsecure());
    const call = (medianMs: number) =>
      new Promise<{ code: number; details: string }>((resolve) => {
        client.call(encodeProbeRequest(medianMs), new Metadata(), { deadline: Date.now() + 5_000 }, (error: ServiceError | null) =>
          resolve(error ? { code: error.code, details: error.details } : { code: status.OK, details: '' }),
        );
      });
    try {
      // Warm the connection, so the two calls below reach the server together.
      expect((await call(1)).code).toBe(status.OK);
      const first = call(300);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await call(300);
      expect(second.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(outcomeOfStatus(second.code, second.details)).toBe(CallOutcome.SHED);
      expect((await first).code).toBe(status.OK);
      expect(backend.stats()).toMatchObject({ served: 2, refused: 1, failed: 0 });
    } finally {
      client.close();
    }
  });
});
