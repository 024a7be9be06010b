/**
 * A channel without sockets, for timing pickers alone: a ChannelControlHelper
 * whose createSubchannel hands out subchannels that are READY from birth.
 *
 * Why this and not real subchannels: the pick path (pick + onCallStarted +
 * onCallEnded) never touches the transport, and 1000 real connections would
 * time the kernel, not the picker. Why this and not a hand-built picker: the
 * policies are built by grpc-js itself — `ChildLoadBalancerHandler` (exported
 * by grpc-js) looks the policy up in grpc-js's registry by the config's name,
 * exactly as a channel does — so round_robin, peak_ewma and least_request all
 * run their real code: LeafLoadBalancer, pick_first and the policy's picker.
 */
import { connectivityState, experimental, Metadata } from '@grpc/grpc-js';

type SubchannelInterface = experimental.SubchannelInterface;

let nextId = 1;

/** A subchannel that is READY and healthy and never changes. */
class ReadySubchannel {
  private readonly id = nextId++;

  constructor(private readonly address: string) {}

  getConnectivityState(): connectivityState {
    return connectivityState.READY;
  }
  addConnectivityStateListener(): void {}
  removeConnectivityStateListener(): void {}
  startConnecting(): void {}
  getAddress(): string {
    return this.address;
  }
  throttleKeepalive(): void {}
  ref(): void {}
  unref(): void {}
  getChannelzRef() {
    return { kind: 'subchannel' as const, id: this.id, name: this.address };
  }
  isHealthy(): boolean {
    return true;
  }
  addHealthStateWatcher(): void {}
  removeHealthStateWatcher(): void {}
  addDataWatcher(): void {}
  getRealSubchannel(): never {
    return this as never;
  }
  realSubchannelEquals(other: SubchannelInterface): boolean {
    return other === (this as unknown);
  }
  getCallCredentials(): never {
    throw new Error('ReadySubchannel has no credentials: the pick benchmark makes no calls');
  }
  getChannel(): never {
    throw new Error('ReadySubchannel has no channel: the pick benchmark makes no calls');
  }
}

/** A channel's side of a balancer, with READY fake subchannels; `onState` sees every published state. */
export function readyChannelHelper(
  onState: (state: connectivityState, picker: experimental.Picker) => void,
): experimental.ChannelControlHelper {
  return {
    createSubchannel: (address) =>
      new ReadySubchannel(experimental.subchannelAddressToString(address)) as unknown as SubchannelInterface,
    updateState: (state, picker) => onState(state, picker),
    requestReresolution: () => {},
    addChannelzChild: () => {},
    removeChannelzChild: () => {},
  };
}

export interface BuiltPicker {
  readonly picker: experimental.Picker;
  readonly state: connectivityState;
  /**
   * The balancer's exitIdle(), which grpc-js calls on every call
   * (InternalChannel.getConfig → ResolvingLoadBalancer.exitIdle → child).
   */
  exitIdle(): void;
  destroy(): void;
}

/** Fake endpoint addresses 10.0.x.y:443, one per endpoint. */
export function fakeEndpoints(count: number): experimental.Endpoint[] {
  return Array.from({ length: count }, (_, i) => ({
    addresses: [{ host: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`, port: 443 }],
  }));
}

/**
 * Builds the policy named by `lbConfig` over `endpointCount` READY endpoints
 * through grpc-js's own registry and returns the picker it published.
 */
export async function buildPicker(lbConfig: object, endpointCount: number): Promise<BuiltPicker> {
  let latest: { state: connectivityState; picker: experimental.Picker } | null = null;
  const helper = readyChannelHelper((state, picker) => {
    latest = { state, picker };
  });
  const handler = new experimental.ChildLoadBalancerHandler(helper);
  const config = experimental.parseLoadBalancingConfig(lbConfig as never);
  handler.updateAddressList(experimental.statusOrFromValue(fakeEndpoints(endpointCount)), config, {}, 'benchmark');
  // pick_first may finish on a later tick.
  for (let i = 0; i < 10 && (latest as { state: connectivityState } | null)?.state !== connectivityState.READY; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  const published = latest as { state: connectivityState; picker: experimental.Picker } | null;
  if (published === null || published.state !== connectivityState.READY) {
    throw new Error(`${JSON.stringify(lbConfig)} did not become READY over ${endpointCount} fake endpoints`);
  }
  return {
    picker: published.picker,
    state: published.state,
    exitIdle: () => handler.exitIdle(),
    destroy: () => handler.destroy(),
  };
}

/** One call's worth of pick path: pick, then the callbacks a started and finished call runs. */
export function pickOnce(picker: experimental.Picker, args: experimental.PickArgs, trailers: Metadata): unknown {
  const result = picker.pick(args);
  result.onCallStarted?.();
  result.onCallEnded?.(0, 'OK', trailers);
  return result.subchannel;
}
