/**
 * Child process running one load-test client: one channel with one policy
 * (or xDS), an open loop at the parent's rate, a LoadRecorder, a progress
 * message every second and the recorded run at the end.
 */
import { seededRandom } from '../../src/core/random';
import { ProbeClient } from '../lib/probe-service';
import { registerFleetResolver, setFleetAddresses } from './fleet-resolver';
import { ClientPrepare, ClientRun, FromClientHost, ToClientHost } from './ipc';
import { LoadRecorder } from './load-recorder';
import { loopDelayOf, newLoopDelayMonitor } from './loop-delay';
import { runOpenLoop } from './open-loop';
import { loadPackage, loadXdsPackage } from './package-under-test';
import { registerPolicies } from './policies';
import { newProbeClient } from './probe-channel';
import { recordedMethodGroups } from './method-paths';

let prepared: ClientPrepare | null = null;
let addressIndex: Record<string, number> = {};
let client: ProbeClient | null = null;

function send(message: FromClientHost): void {
  process.send?.(message);
}

/** Backends answer with their id, `b<index>`; failed calls are placed by peer address. */
function backendOf(responseId: string | null, peer: string): number {
  if (responseId !== null && responseId.startsWith('b')) {
    const index = Number(responseId.slice(1));
    if (Number.isInteger(index)) {
      return index;
    }
  }
  return addressIndex[peer] ?? -1;
}

async function prepare(message: ClientPrepare): Promise<ProbeClient> {
  registerPolicies();
  registerFleetResolver();
  if (message.xdsTarget) {
    loadXdsPackage().registerXds();
  }
  prepared = message;
  addressIndex = { ...message.addressIndex };
  if (message.dynamicAddresses) {
    setFleetAddresses(message.addresses);
  }
  const client = newProbeClient(message);
  await new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + 30_000, (error) => (error ? reject(error) : resolve())),
  );
  return client;
}

function evidence() {
  return {
    balancers: loadPackage()
      .getLoadBalancerStats()
      .map((stats) => ({
        policy: stats.policy,
        callsStarted: stats.endpoints.reduce((sum, e) => sum + e.callsStarted, 0),
        // How the picks were made (turn, refused, drawn...): which mode a run's balancer was in.
        ...(stats.picks ? { picks: stats.picks } : {}),
        ...(stats.refusals ? { refusals: stats.refusals } : {}),
        ...(stats.methods.length > 0 ? { methods: stats.methods.map((m) => ({ method: m.method, calls: m.calls })) } : {}),
      })),
  };
}

async function run(message: ClientRun): Promise<void> {
  const secondMs = 1000 * message.timeFactor;
  const recorder = new LoadRecorder(
    message.measureS,
    message.phases,
    prepared!.backendCount,
    message.deadlineMs,
    secondMs,
    recordedMethodGroups(message.methods),
  );
  const zeroAtMs = message.zeroAtEpochMs - performance.timeOrigin;
  let cpuAtZero: NodeJS.CpuUsage | null = null;
  let cpuAtEnd: NodeJS.CpuUsage | null = null;
  const cpuTimer = setTimeout(() => (cpuAtZero = process.cpuUsage()), Math.max(0, zeroAtMs - performance.now()));
  const endTimer = setTimeout(
    () => (cpuAtEnd = process.cpuUsage(cpuAtZero ?? undefined)),
    Math.max(0, zeroAtMs + message.measureS * secondMs - performance.now()),
  );
  // How late this process's event loop ran: the harness's own share of the latency.
  const loopDelay = newLoopDelayMonitor();
  const loopTimer = setTimeout(() => loopDelay.enable(), Math.max(0, zeroAtMs - performance.now()));
  const progressTimer = setInterval(() => {
    const second = Math.floor((performance.now() - zeroAtMs) / secondMs);
    send({ type: 'progress', second, ...recorder.progress() });
  }, 1000);
  await runOpenLoop({
    client: () => client!,
    rateRps: message.rateRps,
    methods: message.methods,
    zeroAtMs,
    warmupS: (message.warmupS * secondMs) / 1000,
    measureS: (message.measureS * secondMs) / 1000,
    phaseOffset: message.phaseOffset,
    random: seededRandom(prepared!.seed),
    recorder,
    backendOf,
  });
  loopDelay.disable();
  clearTimeout(loopTimer);
  clearInterval(progressTimer);
  clearTimeout(cpuTimer);
  clearTimeout(endTimer);
  const cpu = cpuAtEnd ?? process.cpuUsage(cpuAtZero ?? undefined);
  send({
    type: 'result',
    run: recorder.export(),
    cpuMicros: cpu.user + cpu.system,
    evidence: evidence(),
    loopDelayMs: loopDelayOf(loopDelay),
  });
}

async function handle(message: ToClientHost): Promise<void> {
  switch (message.type) {
    case 'prepare':
      client = await prepare(message);
      send({ type: 'ready' });
      return;
    case 'run':
      await run(message);
      return;
    case 'restart': {
      // Calls in flight on the old channel finish there.
      const old = client;
      client = newProbeClient(prepared!);
      setTimeout(() => old?.close(), 5000);
      return;
    }
    case 'addresses':
      Object.assign(addressIndex, message.addressIndex);
      setFleetAddresses(message.addresses);
      return;
    case 'stop':
      client?.close();
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: ToClientHost) => {
  handle(message).catch((error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.stack ?? error.message : String(error) });
  });
});
process.on('disconnect', () => process.exit(0));
