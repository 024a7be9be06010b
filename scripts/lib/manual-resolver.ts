/**
 * A resolver a test or script drives: `manual-test:///<name>` resolves to
 * whatever was last pushed for <name>, an address list or an error, and
 * every push reaches every channel using the name at once, the way a DNS or
 * EDS update would. Lets tests and the churn soak re-resolve, reorder, add
 * and remove endpoints, and fail resolution on demand.
 */
import { experimental, LoadBalancingConfig, status } from '@grpc/grpc-js';

type Listener = (
  endpointList: experimental.StatusOr<experimental.Endpoint[]>,
  attributes: { [key: string]: unknown },
  serviceConfig: { ok: true; value: ServiceConfigValue } | null,
  resolutionNote: string,
) => boolean;

const SCHEME = 'manual-test';

interface ServiceConfigValue {
  loadBalancingConfig: LoadBalancingConfig[];
  methodConfig: [];
}

interface Target {
  latest: experimental.StatusOr<experimental.Endpoint[]>;
  serviceConfig: { ok: true; value: ServiceConfigValue } | null;
  listeners: Set<Listener>;
}

const targets = new Map<string, Target>();

/**
 * The least time between two answers to re-resolution requests, in ms. pick_first asks for
 * one at every address update while an endpoint's connection is refused, and an answer is an
 * update: answered at once, every channel with a stopped backend spun at 15-20 thousand
 * updates a second (round_robin alike), and the e2e tests that stop backends measured shares
 * and timings beside that spin. grpc-js's DNS resolver answers at most once every 30 s; the
 * load test's resolver (scripts/bench/fleet-resolver.ts) not at all. A push (`setEndpoints`,
 * `fail`) still reaches every channel at once.
 */
const MIN_RESEND_MS = 250;

class ManualResolver implements experimental.Resolver {
  private readonly target: Target;
  private destroyed = false;
  /** When the latest answer to a request went out (-Infinity: none since the last destroy, so the next is at once). */
  private answeredAtMs = -Infinity;
  /** Cancels the answer on its way, if one is. */
  private pending: (() => void) | null = null;

  constructor(
    uri: experimental.GrpcUri,
    private readonly listener: Listener,
  ) {
    const target = targets.get(uri.path);
    if (!target) {
      throw new Error(`${SCHEME}: unknown target ${uri.path}`);
    }
    this.target = target;
    target.listeners.add(listener);
  }

  /** Answers with the latest push: the first request (and the first after a destroy) at once, later ones at most every MIN_RESEND_MS, coalesced. */
  updateResolution(): void {
    this.destroyed = false;
    this.target.listeners.add(this.listener);
    if (this.pending !== null) {
      return;
    }
    const waitMs = Math.max(0, this.answeredAtMs + MIN_RESEND_MS - Date.now());
    const answer = (): void => {
      this.pending = null;
      if (!this.destroyed) {
        this.answeredAtMs = Date.now();
        this.listener(this.target.latest, {}, this.target.serviceConfig, 'manual-test resolution');
      }
    };
    if (waitMs === 0) {
      const immediate = setImmediate(answer);
      this.pending = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(answer, waitMs);
      timer.unref();
      this.pending = () => clearTimeout(timer);
    }
  }

  destroy(): void {
    this.destroyed = true;
    this.target.listeners.delete(this.listener);
    this.pending?.();
    this.pending = null;
    this.answeredAtMs = -Infinity;
  }

  static getDefaultAuthority(uri: experimental.GrpcUri): string {
    return uri.path;
  }
}

let registered = false;

export class ManualTarget {
  readonly target: string;
  private readonly state: Target;

  constructor(readonly name: string) {
    if (!registered) {
      experimental.registerResolver(SCHEME, ManualResolver);
      registered = true;
    }
    if (targets.has(name)) {
      throw new Error(`${SCHEME}: name "${name}" is already in use`);
    }
    this.state = { latest: experimental.statusOrFromValue([]), serviceConfig: null, listeners: new Set() };
    targets.set(name, this.state);
    this.target = `${SCHEME}:///${name}`;
  }

  /** Pushes an address list, one endpoint per entry; an entry may hold several addresses. */
  setEndpoints(endpoints: readonly (string | readonly string[])[]): void {
    const list = endpoints.map((entry) => ({
      addresses: (typeof entry === 'string' ? [entry] : entry).map((address) => {
        const separator = address.lastIndexOf(':');
        return { host: address.slice(0, separator), port: Number(address.slice(separator + 1)) };
      }),
    }));
    this.publish(experimental.statusOrFromValue(list));
  }

  /**
   * Sets the service config that resolutions carry from now on (as a DNS TXT
   * record would), and pushes it with the current addresses.
   */
  setServiceConfig(loadBalancingConfig: LoadBalancingConfig[]): void {
    this.state.serviceConfig = { ok: true, value: { loadBalancingConfig, methodConfig: [] } };
    this.publish(this.state.latest);
  }

  /** Forgets the name (close the channels using it first). */
  release(): void {
    targets.delete(this.name);
  }

  /** Pushes a resolution failure. */
  fail(details: string): void {
    this.publish(experimental.statusOrFromError({ code: status.UNAVAILABLE, details }));
  }

  private publish(result: experimental.StatusOr<experimental.Endpoint[]>): void {
    this.state.latest = result;
    for (const listener of this.state.listeners) {
      listener(result, {}, this.state.serviceConfig, 'manual-test update');
    }
  }
}
