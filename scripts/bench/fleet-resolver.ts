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
  private answered = false;

  constructor(
    _target: experimental.GrpcUri,
    private readonly listener: Listener,
  ) {
    listeners.add(listener);
  }

  /**
   * The channel's first resolution gets the list; later requests (a
   * re-resolution, which pick_first asks for while an endpoint's connection
   * is refused) get nothing: the list changes only by `setFleetAddresses`,
   * which tells every channel. Answering each request spun every channel
   * while a pod was down (s19): the answer resets the channel's resolution
   * back-off and re-offers the list, whose refused endpoint asks again at
   * once, tens of thousands of times a second. grpc-js's DNS resolver
   * answers at most once every 30 s.
   */
  updateResolution(): void {
    this.active = true;
    listeners.add(this.listener);
    if (this.answered) {
      return;
    }
    this.answered = true;
    setImmediate(() => {
      if (this.active) {
        publish(this.listener);
      }
    });
  }

  /** A channel gone idle; it asks again when it wakes, and gets the list (as grpc-js's ipv4: resolver). */
  destroy(): void {
    this.active = false;
    this.answered = false;
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
