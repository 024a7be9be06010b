/**
 * One load-test backend: a real grpc-js Server on 127.0.0.1 serving the
 * Probe service, whose answers come from the shared queueing model
 * (scripts/model) running under real timers. Backends in one process share
 * one RealTimeScheduler, so a GC pause on one holds only its own completions.
 *
 * With `orca`, the server also serves ORCA's out-of-band OpenRcaService
 * (grpc-js's `ServerMetricRecorder`), reporting `application_utilization` =
 * mean busy-slot fraction over the last second, `rps_fractional` = answers
 * per second and `eps` = errors per second. weighted_round_robin's weight
 * qps / utilisation is then the backend's throughput at full utilisation:
 * its capacity.
 *
 * Why out-of-band and not per-call trailers (`grpc.server_call_metric_recording`
 * + `call.getMetricsRecorder()`, which grpc-js also supports): in grpc-js
 * 1.14.7 `loadOrcaProto()` never caches (`const loadedOrcaProto = null`), so
 * every per-call report re-parses the ORCA .proto files with proto-loader:
 * 60–260 ms of CPU per call on the server to serialize, and again on the
 * client, whose WRR picker parses each trailer the same way. OOB reports
 * load the protos once per server and once per client stream.
 */
import { Server, ServerCredentials, ServerMetricRecorder, ServerUnaryCall, sendUnaryData, status } from '@grpc/grpc-js';
import { probeServiceDefinitionWith } from '../lib/probe-service';
import { Behaviour, CallbackBackend, Scheduler, STATUS_OK, STATUS_RESOURCE_EXHAUSTED } from '../model';
import { RandomSource } from '../../src/core/random';
import { decodeMedianMs } from './probe-request';

export interface ProbeBackendOptions {
  readonly id: string;
  readonly scheduler: Scheduler;
  readonly random: RandomSource;
  readonly behaviour: Partial<Behaviour>;
  readonly gcPhaseMs?: number;
  /** Serve ORCA out-of-band load reports. */
  readonly orca?: boolean;
  /** grpc-js `grpc.max_connection_age_ms` (s09), with the reference's 5 s grace. */
  readonly maxConnectionAgeMs?: number;
  /**
   * More unary methods, `/loadtest.Probe/<name>` each, answered as Call is
   * (the request body names the service time): a workload's method groups
   * (method-paths.ts).
   */
  readonly methodNames?: readonly string[];
}

export interface ProbeBackendStats {
  readonly id: string;
  readonly arrivals: number;
  readonly served: number;
  readonly failed: number;
  readonly skipped: number;
  readonly blackholed: number;
  /** Calls refused with RESOURCE_EXHAUSTED (load shed: queueLimit). */
  readonly refused: number;
  readonly inService: number;
  readonly queueLength: number;
}

/** Sliding one-second window of the backend's load, sampled every 100 ms. */
class LoadWindow {
  private static readonly SAMPLES = 10;
  private readonly busy: number[] = [];
  private readonly served: number[] = [];
  private readonly failed: number[] = [];
  utilization = 0;
  qps = 0;
  eps = 0;

  sample(busyFraction: number, servedTotal: number, failedTotal: number): void {
    this.busy.push(busyFraction);
    this.served.push(servedTotal);
    this.failed.push(failedTotal);
    if (this.busy.length > LoadWindow.SAMPLES + 1) {
      this.busy.shift();
      this.served.shift();
      this.failed.shift();
    }
    const spanS = (this.served.length - 1) / LoadWindow.SAMPLES;
    this.utilization = this.busy.reduce((a, b) => a + b, 0) / this.busy.length;
    this.qps = spanS > 0 ? (servedTotal - this.served[0]) / spanS : 0;
    this.eps = spanS > 0 ? (failedTotal - this.failed[0]) / spanS : 0;
  }
}

export class ProbeBackend {
  readonly backend: CallbackBackend;
  port = 0;
  private server: Server;
  private readonly reply: Buffer;
  private readonly load = new LoadWindow();
  private readonly orca: ServerMetricRecorder | null;

  constructor(readonly options: ProbeBackendOptions) {
    this.backend = new CallbackBackend({
      scheduler: options.scheduler,
      random: options.random,
      behaviour: options.behaviour,
      gcPhaseMs: options.gcPhaseMs,
    });
    this.reply = Buffer.from(options.id, 'utf8');
    this.orca = options.orca ? new ServerMetricRecorder() : null;
    this.server = this.newServer();
  }

  private newServer(): Server {
    const options = this.options;
    const server = new Server({
      'grpc.enable_channelz': 0,
      ...(options.maxConnectionAgeMs
        ? { 'grpc.max_connection_age_ms': options.maxConnectionAgeMs, 'grpc.max_connection_age_grace_ms': 5000 }
        : {}),
    });
    const methodNames = options.methodNames ?? [];
    const onCall = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => this.onCall(call, callback);
    server.addService(probeServiceDefinitionWith(methodNames), {
      call: onCall,
      watch: (call: { end(): void }) => call.end(),
      ...Object.fromEntries(methodNames.map((name) => [name, onCall])),
    });
    this.orca?.addToServer(server);
    return server;
  }

  get id(): string {
    return this.options.id;
  }

  async start(port = 0): Promise<number> {
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
        error ? reject(error) : resolve(boundPort),
      ),
    );
    return this.port;
  }

  /**
   * A restart in place (s19: an OOM kill or a crash; the pod keeps its IP):
   * the server stops listening now, so a client's reconnect is refused, and
   * is stopped as `stop(graceMs)` does; after `downMs` a new server listens
   * on the same port. The model starts cold again at once (its warm-up
   * counts from the new process's first call), and keeps its queue: the old
   * process's calls in flight finish, as the simulator's graceful restart.
   */
  async restartInPlace(downMs: number, graceMs: number): Promise<void> {
    const old = this.server;
    this.server = this.newServer();
    this.backend.model.restart();
    // Not awaited: the old process's grace runs on while the new one listens.
    void ProbeBackend.shutDown(old, graceMs);
    await new Promise((resolve) => setTimeout(resolve, downMs));
    // The old listener closed at once; its sessions, still draining, do not hold the port.
    await this.start(this.port);
  }

  setBehaviour(patch: Partial<Behaviour>): void {
    this.backend.model.setBehaviour(patch);
  }

  /** Called every 100 ms by the host, for the ORCA window. */
  sampleLoad(): void {
    const model = this.backend.model;
    const slots = model.behaviour.slots;
    const busyFraction = slots > 0 ? Math.min(1, model.inService / slots) : model.inService > 0 ? 1 : 0;
    this.load.sample(busyFraction, model.counters.served, model.counters.failed + model.counters.refused);
    if (this.orca) {
      this.orca.setApplicationUtilizationMetric(this.load.utilization);
      this.orca.setQpsMetric(this.load.qps);
      this.orca.setEpsMetric(this.load.eps);
    }
  }

  stats(): ProbeBackendStats {
    const model = this.backend.model;
    return { id: this.id, ...model.counters, inService: model.inService, queueLength: model.queueLength };
  }

  /** Graceful: GOAWAY, then up to `graceMs` for calls in flight, then force. */
  stop(graceMs = 0): Promise<void> {
    return ProbeBackend.shutDown(this.server, graceMs);
  }

  private static async shutDown(server: Server, graceMs: number): Promise<void> {
    if (graceMs <= 0) {
      server.forceShutdown();
      return;
    }
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }

  private onCall(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void {
    const scheduler = this.options.scheduler;
    const deadline = call.getDeadline();
    const deadlineEpochMs = deadline instanceof Date ? deadline.getTime() : deadline;
    // The model works in scheduler time (performance.now()).
    const deadlineAtMs = Number.isFinite(deadlineEpochMs)
      ? scheduler.nowMs() + (deadlineEpochMs - Date.now())
      : Infinity;
    const callId = this.backend.submit(decodeMedianMs(call.request), deadlineAtMs, (replyStatus) => {
      if (replyStatus === STATUS_OK) {
        callback(null, this.reply);
      } else if (replyStatus === STATUS_RESOURCE_EXHAUSTED) {
        // Load shed (queueLimit): as grpcio answers over maximum_concurrent_rpcs (its text is not copied, so python-fleet.ts tells them apart).
        callback({ code: status.RESOURCE_EXHAUSTED, details: 'load shed: every slot busy and the queue full (queueLimit)' });
      } else {
        const details = this.backend.model.behaviour.mode === 'unavailable' ? 'crash-looping' : 'flaky';
        callback({ code: status.UNAVAILABLE, details });
      }
    });
    call.on('cancelled', () => this.backend.cancel(callId));
  }
}
