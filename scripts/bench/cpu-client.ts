/**
 * Child process for the CPU-per-RPC benchmark: one channel with one policy,
 * driven in closed loop (a fixed number of calls always in flight) for
 * segments the parent asks for; each segment reports calls completed and the
 * process's CPU time (user + system) spent.
 */
import { Metadata } from '@grpc/grpc-js';
import type { ProbeClient } from '../lib/probe-service';
import { loadPackage, loadXdsPackage } from './package-under-test';
import { basePolicyOf, ClientKind, isMarkedClient, isXdsClient, registerPolicies } from './policies';
import { newProbeClient } from './probe-channel';
import { encodeProbeRequest } from './probe-request';

export type ToCpuClient =
  | { type: 'prepare'; kind: ClientKind; addresses: string[]; xds?: { target: string; bootstrap: string } }
  | { type: 'segment'; seconds: number; concurrency: number }
  | { type: 'stop' };

export type FromCpuClient =
  | { type: 'ready' }
  | {
      type: 'segment';
      calls: number;
      failed: number;
      cpuMicros: number;
      wallMs: number;
      accounted: number;
      /** Methods the balancers track (getLoadBalancerStats): > 0 only if the marker reached the picker. */
      methodsTracked: number;
    }
  | { type: 'error'; message: string };

let client: ProbeClient | null = null;
const request = encodeProbeRequest(0);

function send(message: FromCpuClient): void {
  process.send?.(message);
}

function methodsTracked(): number {
  return loadPackage()
    .getLoadBalancerStats()
    .reduce((sum, s) => sum + (s.methods?.length ?? 0), 0);
}

function accountedCalls(): number {
  return loadPackage()
    .getLoadBalancerStats()
    .reduce((sum, s) => sum + s.endpoints.reduce((x, e) => x + e.callsStarted, 0), 0);
}

async function prepare(message: Extract<ToCpuClient, { type: 'prepare' }>): Promise<void> {
  registerPolicies();
  if (isXdsClient(message.kind)) {
    if (!message.xds) {
      throw new Error(`${message.kind} needs the control plane target and bootstrap`);
    }
    loadXdsPackage().registerXds();
  }
  // The load test's own channel (probe-channel.ts): service config or xDS, and the marker for a marked client.
  client = newProbeClient({
    policy: basePolicyOf(message.kind),
    addresses: message.addresses,
    dynamicAddresses: false,
    timeFactor: 1,
    markMethods: isMarkedClient(message.kind),
    ...(isXdsClient(message.kind) ? { xdsTarget: message.xds!.target, xdsBootstrap: message.xds!.bootstrap } : {}),
  });
  await new Promise<void>((resolve, reject) =>
    client!.waitForReady(Date.now() + 60_000, (error) => (error ? reject(error) : resolve())),
  );
}

function segment(seconds: number, concurrency: number): Promise<FromCpuClient> {
  return new Promise((resolve) => {
    const c = client!;
    let calls = 0;
    let failed = 0;
    let inFlight = 0;
    const accountedBefore = accountedCalls();
    const endMs = performance.now() + seconds * 1000;
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    let stopping = false;
    const finish = (): void => {
      const cpu = process.cpuUsage(cpuBefore);
      resolve({
        type: 'segment',
        calls,
        failed,
        cpuMicros: cpu.user + cpu.system,
        wallMs: performance.now() - wallBefore,
        accounted: accountedCalls() - accountedBefore,
        methodsTracked: methodsTracked(),
      });
    };
    const one = (): void => {
      inFlight++;
      c.call(request, new Metadata(), { deadline: Date.now() + 10_000 }, (error) => {
        inFlight--;
        calls++;
        if (error) failed++;
        if (!stopping && performance.now() < endMs) {
          one();
        } else {
          stopping = true;
          if (inFlight === 0) finish();
        }
      });
    };
    for (let i = 0; i < concurrency; i++) {
      one();
    }
  });
}

process.on('message', (message: ToCpuClient) => {
  const work = async (): Promise<void> => {
    switch (message.type) {
      case 'prepare':
        await prepare(message);
        send({ type: 'ready' });
        return;
      case 'segment':
        send(await segment(message.seconds, message.concurrency));
        return;
      case 'stop':
        client?.close();
        process.disconnect?.();
        return;
    }
  };
  work().catch((error: unknown) =>
    send({ type: 'error', message: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
