/**
 * A resolver the test drives: `manual-test:///<name>` resolves to whatever
 * the test last pushed for <name>, an address list or an error. Lets tests
 * re-resolve, reorder, add and remove endpoints, and fail resolution on demand.
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
    this.state = { latest: experimental.statusOrFromValue([]), serviceConfig: null, listeners: new Set() };
    targets.set(name, this.state);
    this.target = `${SCHEME}:///${name}`;
  }

  /** Pushes an address list, one endpoint per entry; an entry may hold several addresses. */
  setEndpoints(endpoints: readonly (string | readonly string[])[]): void {
    const list = endpoints.map((entry) => ({
      addresses: (typeof entry === 'string' ? [entry] : entry).map((address) => {
        const [host, port] = address.split(':');
        return { host, port: Number(port) };
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
