/**
 * The backend fleet as the parent sees it: a few backend-host processes, the
 * backends spread over them round-robin, addressed by id.
 */
import { ChildProcess } from 'child_process';
import type { Behaviour } from '../model';
import { BackendSpec, forkChild, FromBackendHost, isType, nextMessage, ToBackendHost } from './ipc';
import type { ProbeBackendStats } from './probe-backend';

type Listening = Extract<FromBackendHost, { type: 'listening' }>;
type Stats = Extract<FromBackendHost, { type: 'stats' }>;

export interface FleetOptions {
  readonly hosts: number;
  readonly orca: boolean;
  readonly maxConnectionAgeMs?: number;
  /** Unary methods every backend serves beside Call (method-paths.ts); pods added later serve them too. */
  readonly methodNames?: readonly string[];
}

export class Fleet {
  /** id → "127.0.0.1:port", in the order backends were added. */
  readonly addresses = new Map<string, string>();
  private readonly hosts: ChildProcess[] = [];
  private readonly hostOf = new Map<string, ChildProcess>();
  private nextHost = 0;
  private readonly failures: string[] = [];

  private constructor() {}

  static async start(specs: readonly BackendSpec[], options: FleetOptions): Promise<Fleet> {
    const fleet = new Fleet();
    const hostCount = Math.max(1, Math.min(options.hosts, specs.length));
    for (let i = 0; i < hostCount; i++) {
      const host = forkChild('backend-host.ts');
      // set, retire and restart are posted without a reply to wait for: a host's
      // failure in one of them reaches no waiting caller, so it is kept here.
      host.on('message', (message: FromBackendHost) => {
        if (message.type === 'error') fleet.failures.push(`backend host ${host.pid}: ${message.message}`);
      });
      fleet.hosts.push(host);
    }
    const groups = fleet.hosts.map(() => [] as BackendSpec[]);
    specs.forEach((spec, i) => groups[i % hostCount].push(spec));
    await Promise.all(
      fleet.hosts.map(async (host, i) => {
        const reply = nextMessage(host, isType<Listening>('listening'));
        fleet.post(host, {
          type: 'start',
          backends: groups[i],
          orca: options.orca,
          maxConnectionAgeMs: options.maxConnectionAgeMs,
          methodNames: options.methodNames?.slice(),
        });
        fleet.remember(host, (await reply).ports);
      }),
    );
    // Keep the id order of `specs`.
    const ordered = new Map(specs.map((spec) => [spec.id, fleet.addresses.get(spec.id)!]));
    fleet.addresses.clear();
    for (const [id, address] of ordered) {
      fleet.addresses.set(id, address);
    }
    return fleet;
  }

  /** Starts more backends (cold pods) on the hosts in turn; resolves when they listen. */
  async add(specs: readonly BackendSpec[]): Promise<void> {
    for (const spec of specs) {
      const host = this.hosts[this.nextHost++ % this.hosts.length];
      const reply = nextMessage(host, isType<Listening>('listening'));
      this.post(host, { type: 'add', backends: [spec] });
      this.remember(host, (await reply).ports);
    }
  }

  /** Patches running backends; an unknown name throws (a patch posted to no host was lost in silence: s18, docs/tuning-log.md §72). */
  set(ids: readonly string[], patch: Partial<Behaviour>): void {
    this.assertRunning('set', ids);
    for (const host of this.hosts) {
      const own = ids.filter((id) => this.hostOf.get(id) === host);
      if (own.length > 0) {
        this.post(host, { type: 'set', ids: own, patch });
      }
    }
  }

  /** Graceful stop of some backends (GOAWAY, then up to `graceMs`); an unknown or already retired name throws, as `set` does. */
  retire(ids: readonly string[], graceMs: number): void {
    this.assertRunning('retire', ids);
    for (const host of this.hosts) {
      const own = ids.filter((id) => this.hostOf.get(id) === host);
      if (own.length > 0) {
        this.post(host, { type: 'retire', ids: own, graceMs });
      }
    }
    for (const id of ids) {
      this.addresses.delete(id);
      this.hostOf.delete(id); // a later set or restart of it is a fault of the run, not a no-op
    }
  }

  /** Restarts backend `id` in place (ProbeBackend.restartInPlace): down for `downMs`, back on its port cold. */
  restartInPlace(id: string, downMs: number, graceMs: number): void {
    this.assertRunning('restartInPlace', [id]);
    this.post(this.hostOf.get(id)!, { type: 'restart', id, downMs, graceMs });
  }

  /** Throws, naming `verb`, unless every one of `ids` was started and not retired: posted to no host, an order is lost in silence. */
  private assertRunning(verb: string, ids: readonly string[]): void {
    const unknown = ids.filter((id) => !this.hostOf.has(id));
    if (unknown.length > 0) throw new Error(`${verb}: no backend ${unknown.join(', ')}`);
  }

  /**
   * What the hosts reported failing since the start, in order: a backend that
   * could not listen again after a restart in place, one that would not stop.
   * A run that used the fleet is not a measurement of the scenario if this
   * is not empty.
   */
  hostFailures(): readonly string[] {
    return this.failures;
  }

  /** Every backend's counters, and the worst event-loop delay among the hosts since the last call. */
  async stats(): Promise<{ backends: ProbeBackendStats[]; loopDelayMs: { p99: number; max: number } }> {
    const replies = await Promise.all(
      this.hosts.map((host) => {
        const reply = nextMessage(host, isType<Stats>('stats'));
        this.post(host, { type: 'stats' });
        return reply;
      }),
    );
    return {
      backends: replies.flatMap((reply) => reply.stats),
      loopDelayMs: {
        p99: Math.max(...replies.map((r) => r.loopDelayMs.p99)),
        max: Math.max(...replies.map((r) => r.loopDelayMs.max)),
      },
    };
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.hosts.map(async (host) => {
        const done = nextMessage(host, isType<Extract<FromBackendHost, { type: 'done' }>>('done'), 10_000).catch(() => {});
        this.post(host, { type: 'stop' });
        await done;
        if (host.exitCode === null) {
          host.kill();
        }
      }),
    );
  }

  private remember(host: ChildProcess, ports: Record<string, number>): void {
    for (const [id, port] of Object.entries(ports)) {
      this.addresses.set(id, `127.0.0.1:${port}`);
      this.hostOf.set(id, host);
    }
  }

  private post(host: ChildProcess, message: ToBackendHost): void {
    host.send(message);
  }
}
