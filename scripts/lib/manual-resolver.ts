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

class ManualResolver implements experimental.Resolver {
  private readonly target: Target;
  private destroyed = false;

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

  updateResolution(): void {
    this.destroyed = false;
    this.target.listeners.add(this.listener);
    setImmediate(() => {
      if (!this.destroyed) {
        this.listener(this.target.latest, {}, this.target.serviceConfig, 'manual-test resolution');
      }
    });
  }

  destroy(): void {
    this.destroyed = true;
    this.target.listeners.delete(this.listener);
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
