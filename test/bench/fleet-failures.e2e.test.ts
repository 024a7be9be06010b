/**
 * The fleet keeps what its backend hosts fail to do. set, retire and restart
 * are posted to a host with no reply to wait for, so before this a restart in
 * place that could not listen again (its port taken while it was down) was
 * lost: the run went on with one pod fewer and reported s19 as measured.
 * Real backend-host process, real grpc-js server on 127.0.0.1.
 */
import net from 'net';
import { Fleet } from '../../scripts/bench/fleet';

// The host is TypeScript: under jest it needs tsx's loader (npm run bench runs under tsx already).
process.env.BENCH_CHILD_NODE_ARGS = '--import tsx';

const DOWN_MS = 1_500;

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

async function within<T>(ms: number, read: () => T | undefined): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (let value = read(); Date.now() < end; value = read()) {
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return read();
}

describe('Fleet.hostFailures', () => {
  let fleet: Fleet | undefined;
  const squatter = net.createServer();
  afterAll(async () => {
    await fleet?.stop();
    await new Promise((resolve) => squatter.close(resolve));
  });

  it('holds a restart in place whose port was taken while the backend was down, naming the backend host', async () => {
    fleet = await Fleet.start([{ id: 'b0', behaviour: { slots: 2 }, seed: 1 }], { hosts: 1, orca: false });
    const port = Number(fleet.addresses.get('b0')!.split(':')[1]);
    expect(fleet.hostFailures()).toEqual([]);

    fleet.restartInPlace('b0', DOWN_MS, 0);
    // The old listener closes at once; take its port before the new process binds it.
    let taken = false;
    for (let i = 0; i < 40 && !taken; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      taken = await listen(squatter, port).then(
        () => true,
        () => false,
      );
    }
    expect(taken).toBe(true);

    const failure = await within(DOWN_MS + 5_000, () => fleet!.hostFailures()[0]);
    expect(failure).toMatch(new RegExp(`^backend host \\d+: Error: restart in place of b0: .*EADDRINUSE.*127\\.0\\.0\\.1:${port}`));
  }, 30_000);

  it('refuses a behaviour patch for a backend it has not started, rather than post it to no host', () => {
    expect(() => fleet!.set(['b7'], { latencyFactor: 10 })).toThrow('set: no backend b7');
    expect(() => fleet!.set(['b0'], { latencyFactor: 1 })).not.toThrow();
  });

  it('refuses to retire a backend it has not started, and forgets one it retired', () => {
    expect(() => fleet!.retire(['b7'], 0)).toThrow('retire: no backend b7');
    fleet!.retire(['b0'], 0);
    expect(fleet!.addresses.has('b0')).toBe(false);
    expect(() => fleet!.set(['b0'], { latencyFactor: 2 })).toThrow('set: no backend b0');
    expect(() => fleet!.restartInPlace('b0', 10, 0)).toThrow('restartInPlace: no backend b0');
    expect(() => fleet!.retire(['b0'], 0)).toThrow('retire: no backend b0');
  });
});
