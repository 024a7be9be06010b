/**
 * test/support/ports.ts: restartable servers get a port the kernel never
 * hands out by itself, and a port someone else holds is skipped.
 */
import * as net from 'node:net';
import { TestBackend } from '../support/backends';
import { ephemeralPortRange, freeStablePort, stablePortRange, startOnStablePort } from '../support/ports';

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('stable ports', () => {
  it('lie outside the ephemeral range, above 10000', () => {
    const ephemeral = ephemeralPortRange();
    const stable = stablePortRange(ephemeral);
    expect(stable.low).toBeGreaterThanOrEqual(10_000);
    expect(stable.high).toBeLessThanOrEqual(65_535);
    expect(stable.high < ephemeral.low || stable.low > ephemeral.high).toBe(true);
  });

  it('use the ports above the ephemeral range when there are none below', () => {
    expect(stablePortRange({ low: 1_024, high: 40_000 })).toEqual({ low: 40_001, high: 65_535 });
  });

  it('refuse a range that leaves no room, naming it', () => {
    expect(() => stablePortRange({ low: 1_024, high: 65_000 })).toThrow(/ephemeral port range 1024-65000 leaves fewer than 1000 ports/);
  });

  it('a backend started on one comes back on the same port after stopping', async () => {
    const backend = await startOnStablePort((port) => new TestBackend('stable').start(port));
    const { port } = backend;
    const { low, high } = stablePortRange();
    expect(port).toBeGreaterThanOrEqual(low);
    expect(port).toBeLessThanOrEqual(high);
    backend.stop();
    const again = await new TestBackend('stable-again').start(port);
    expect(again.port).toBe(port);
    again.stop();
  });

  it('skip a port another server holds and try another', async () => {
    const held = await startOnStablePort(listen);
    const heldPort = (held.address() as net.AddressInfo).port;
    const tried: number[] = [];
    try {
      // The first attempt is forced onto the held port; the retry must pick a different one.
      const server = await startOnStablePort((port) => {
        const candidate = tried.length === 0 ? heldPort : port;
        tried.push(candidate);
        return listen(candidate);
      });
      expect(tried[0]).toBe(heldPort);
      expect(tried.length).toBeGreaterThanOrEqual(2);
      expect((server.address() as net.AddressInfo).port).not.toBe(heldPort);
      server.close();
    } finally {
      held.close();
    }
  });

  it('freeStablePort: a stable port nobody holds, which a later bind gets', async () => {
    const port = await freeStablePort();
    const { low, high } = stablePortRange();
    expect(port).toBeGreaterThanOrEqual(low);
    expect(port).toBeLessThanOrEqual(high);
    const server = await listen(port);
    server.close();
  });

  it('rethrow an error that is not about the port being taken', async () => {
    await expect(startOnStablePort(() => Promise.reject(new Error('bad certificate')))).rejects.toThrow('bad certificate');
  });
});
