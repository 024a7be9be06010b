/**
 * `bench-fleet:///fleet`: a resolver whose address list the client host sets
 * from the parent's messages, standing in for the reference's file resolver
 * in churn scenarios (rolling restart, scale up/down). It returns no service
 * config, so the channel's default service config (the policy) applies.
 */
import { experimental } from '@grpc/grpc-js';

export const FLEET_TARGET = 'bench-fleet:///fleet';

type Listener = experimental.ResolverListener;

let endpoints: experimental.Endpoint[] = [];
const listeners = new Set<Listener>();

function publish(listener: Listener): void {
  listener(experimental.statusOrFromValue(endpoints), {}, null, 'bench-fleet');
}

class FleetResolver implements experimental.Resolver {
  private active = true;

  constructor(
    _target: experimental.GrpcUri,
    private readonly listener: Listener,
  ) {
    listeners.add(listener);
  }

  updateResolution(): void {
    this.active = true;
    listeners.add(this.listener);
    setImmediate(() => {
      if (this.active) {
        publish(this.listener);
      }
    });
  }

  destroy(): void {
    this.active = false;
    listeners.delete(this.listener);
  }

  static getDefaultAuthority(): string {
    return 'fleet';
  }
}

export function registerFleetResolver(): void {
  experimental.registerResolver('bench-fleet', FleetResolver);
}

/** Sets the fleet's addresses ("127.0.0.1:port") and tells every live channel. */
export function setFleetAddresses(addresses: readonly string[]): void {
  endpoints = addresses.map((address) => {
    const [host, port] = address.split(':');
    return { addresses: [{ host, port: Number(port) }] };
  });
  for (const listener of listeners) {
    publish(listener);
  }
}
