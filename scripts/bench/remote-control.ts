/**
 * The simulator's `ScenarioControl` for a real fleet: what a scenario's
 * `setup` asks for becomes IPC to backend hosts and clients.
 *
 * `setup` runs before anything starts. Behaviour set then (s12's cross-zone
 * pods) becomes the backends' starting behaviour, `maxConnectionAge` a server
 * option, and `atSecond` actions are kept to run on the shared clock.
 * Backends are numbered as in the simulator (0..n-1 at start, new ones
 * after); behaviour patches are scaled (scale.ts) on their way out.
 */
import type { Behaviour, BackendModel, Role } from '../model';
import type { ScenarioControl } from '../sim/scenarios';
import type { Timeline } from './scenarios';

/** What the load test does for the control. */
export interface FleetActions {
  setBehaviour(id: number, patch: Partial<Behaviour>): void;
  /** Starts backend `id` (cold, not yet published). */
  addBackend(id: number, role: Role): Promise<void>;
  /** Tells every client the published set; backends left out are retired. */
  publish(ids: readonly number[]): Promise<void>;
  restartClients(): void;
  /** Stops backend `id` (its port refuses connections) and starts it again cold on the same port after `downMs`. */
  restartInPlace(id: number, downMs: number): void;
}

export class RemoteScenarioControl implements ScenarioControl {
  readonly measureS: number;
  readonly faultStartS: number;
  readonly faultEndS: number;
  /** Behaviour set during setup, per backend: the starting behaviour. */
  readonly standing = new Map<number, Partial<Behaviour>>();
  readonly events: { readonly atS: number; readonly action: () => void }[] = [];
  maxConnectionAgeMs: number | undefined;
  private publishedIds: number[];
  private nextId: number;
  private actions: FleetActions | null = null;
  /**
   * Adds, publishes and behaviour for a backend being added run in order: a
   * publish waits for the backends it names, a patch for the backend it names.
   */
  private queue: Promise<void> = Promise.resolve();
  /** Backends whose add has been asked for and has not finished. */
  private readonly starting = new Set<number>();

  constructor(
    timeline: Timeline,
    backendCount: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.measureS = timeline.measureS;
    this.faultStartS = timeline.faultStartS;
    this.faultEndS = timeline.faultEndS;
    this.publishedIds = Array.from({ length: backendCount }, (_, i) => i);
    this.nextId = backendCount;
  }

  /** Setup is over: from now on the control acts on the running fleet. */
  start(actions: FleetActions): void {
    this.actions = actions;
  }

  /** Resolves when every queued add and publish has been done. */
  settled(): Promise<void> {
    return this.queue;
  }

  atSecond(s: number, action: () => void): void {
    this.events.push({ atS: s, action });
  }

  backend(id: number): BackendModel {
    const setBehaviour = (patch: Partial<Behaviour>): void => {
      if (this.actions === null) {
        this.standing.set(id, { ...this.standing.get(id), ...patch });
      } else if (this.starting.has(id)) {
        // Its add is still on its way: sent now, the patch would reach no backend (s18's newcomers ran at full speed).
        this.enqueue(async () => this.running().setBehaviour(id, patch));
      } else {
        this.actions.setBehaviour(id, patch);
      }
    };
    // A remote backend offers only setBehaviour; anything else is a bug in the scenario for this harness.
    return new Proxy({ setBehaviour } as object, {
      get: (_target, property) => {
        if (property === 'setBehaviour') return setBehaviour;
        throw new Error(`backend(${id}).${String(property)}: a remote backend offers only setBehaviour`);
      },
    }) as BackendModel;
  }

  addBackend(role: Role): number {
    const id = this.nextId++;
    this.starting.add(id);
    this.enqueue(async () => {
      await this.running().addBackend(id, role);
      this.starting.delete(id);
    });
    return id;
  }

  published(): readonly number[] {
    return this.publishedIds;
  }

  publish(ids: readonly number[]): void {
    this.publishedIds = [...ids];
    const snapshot = [...ids];
    this.enqueue(() => this.running().publish(snapshot));
  }

  restartClients(): void {
    this.running().restartClients();
  }

  markFresh(): void {
    // The simulator's herd measure; the load test reports shares per second instead.
  }

  restartInPlace(id: number, downMs: number): void {
    this.running().restartInPlace(id, downMs);
  }

  maxConnectionAge(maxAgeMs: number): void {
    if (this.actions !== null) {
      throw new Error('maxConnectionAge must be set during setup (it is a server option)');
    }
    this.maxConnectionAgeMs = maxAgeMs;
  }

  private running(): FleetActions {
    if (this.actions === null) {
      throw new Error('this scenario action needs a running fleet; call it from atSecond');
    }
    return this.actions;
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: unknown) => this.onError(error));
  }
}
