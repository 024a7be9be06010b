/**
 * A test-only resolver, scheme `churn-test`: `churn-test:///<name>` resolves
 * to whatever address list the driver last set for <name>. Every set is
 * pushed at once to every channel using the name, the way a DNS or EDS update
 * would arrive; a re-resolution request re-sends the latest list.
 */
import { experimental } from '@grpc/grpc-js';

export const CHURN_SCHEME = 'churn-test';

type Listener = experimental.ResolverListener;

interface NameState {
  endpoints: experimental.Endpoint[];
  readonly listeners: Set<Listener>;
}

const names = new Map<string, NameState>();

class ChurnResolver implements experimental.Resolver {
  private readonly state: NameState;
  private destroyed = false;

  constructor(
    target: experimental.GrpcUri,
    private readonly listener: Listener,
  ) {
    const state = names.get(target.path);
    if (!state) {
      throw new Error(`${CHURN_SCHEME}: no address list set for "${target.path}"`);
    }
    this.state = state;
    state.listeners.add(listener);
  }

  updateResolution(): void {
    this.destroyed = false;
    this.state.listeners.add(this.listener);
    // Never call back synchronously from updateResolution (Resolver contract).
    setImmediate(() => {
      if (!this.destroyed) {
        this.listener(experimental.statusOrFromValue(this.state.endpoints), {}, null, 'churn-test re-resolution');
      }
    });
  }

  destroy(): void {
    this.destroyed = true;
    this.state.listeners.delete(this.listener);
  }

  static getDefaultAuthority(target: experimental.GrpcUri): string {
    return target.path;
  }
}

let registered = false;

/** The driver's handle on one name. */
export class ChurnName {
  readonly target: string;
  private readonly state: NameState = { endpoints: [], listeners: new Set() };

  constructor(readonly name: string) {
    if (!registered) {
      experimental.registerResolver(CHURN_SCHEME, ChurnResolver);
      registered = true;
    }
    if (names.has(name)) {
      throw new Error(`${CHURN_SCHEME}: name "${name}" is already in use`);
    }
    names.set(name, this.state);
    this.target = `${CHURN_SCHEME}:///${name}`;
  }

  /** Sets the list (one single-address endpoint per "host:port") and pushes it to every channel now. */
  setAddresses(addresses: readonly string[]): void {
    this.state.endpoints = addresses.map((address) => {
      const separator = address.lastIndexOf(':');
      return { addresses: [{ host: address.slice(0, separator), port: Number(address.slice(separator + 1)) }] };
    });
    for (const listener of this.state.listeners) {
      listener(experimental.statusOrFromValue(this.state.endpoints), {}, null, 'churn-test update');
    }
  }

  /** Forgets the name (channels using it must be closed first). */
  release(): void {
    names.delete(this.name);
  }
}
