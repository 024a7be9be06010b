/**
 * Where the churning address list reaches the client from: the test-only
 * `manual-test` resolver (the update reaches the balancer synchronously), or
 * EDS from the fake xDS control plane (scripts/xds), with the policy from CDS
 * (Envoy's PeakEwma at the top level, xds-fixtures/clusters/peak-ewma.yaml).
 */
import { ChannelOptions } from '@grpc/grpc-js';
import { ManualTarget } from '../lib/manual-resolver';

export type SourceKind = 'resolver' | 'eds';

export interface AddressSource {
  readonly kind: SourceKind;
  readonly target: string;
  readonly channelOptions: ChannelOptions;
  /**
   * How long the balancer may take to show a published list: 0 for the
   * resolver (synchronous), longer for EDS (an ADS round trip).
   */
  readonly settleMs: number;
  /** Publishes the list; resolves once the client has it (EDS: on its ACK). */
  publish(addresses: readonly string[]): Promise<void>;
  close(): void;
}

export function resolverSource(name: string, policy: object): AddressSource {
  const manualTarget = new ManualTarget(name);
  return {
    kind: 'resolver',
    target: manualTarget.target,
    channelOptions: { 'grpc.service_config': JSON.stringify({ loadBalancingConfig: [policy] }) },
    settleMs: 0,
    publish: async (addresses) => manualTarget.setEndpoints(addresses),
    close: () => manualTarget.release(),
  };
}

/** One locality throughout: grpc-js-xds replaces a priority's child (and keeps the old one 15 min) when all its localities change. */
const LOCALITY = { region: 'region-a', zone: 'zone-1' };

export async function edsSource(): Promise<AddressSource> {
  // Loaded on demand (require, as this package compiles to CommonJS): @grpc/grpc-js-xds takes seconds to load.
  const { registerXds } = require('../../src/xds') as typeof import('../../src/xds');
  const { FakeControlPlane } = require('../xds/control-plane') as typeof import('../xds/control-plane');
  const { clusterLoadAssignment, loadBootstrap } = require('../xds/fixtures') as typeof import('../xds/fixtures');
  registerXds();
  const controlPlane = await FakeControlPlane.start();
  controlPlane.putFromFile('listener.yaml');
  controlPlane.putFromFile('clusters/peak-ewma.yaml');
  return {
    kind: 'eds',
    target: 'xds:///listener1',
    channelOptions: controlPlane.channelOptions(loadBootstrap(controlPlane.address)),
    settleMs: 2_000,
    publish: async (addresses) => {
      const version = controlPlane.setEndpoints([clusterLoadAssignment('endpoints1', [{ ...LOCALITY, addresses }])]);
      await controlPlane.expectAck('endpoint', version, 20_000);
    },
    close: () => controlPlane.close(),
  };
}
