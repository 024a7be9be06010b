/**
 * One xDS setup for e2e tests: the fake control plane serving the fixtures'
 * listener, a cluster fixture and the endpoints fixture (pointed at real
 * Probe backends on 127.0.0.1), and a client on xds:///listener1 with its own
 * XdsClient (per-channel bootstrap) and a stats label.
 */
import { credentials } from '@grpc/grpc-js';
import { callOnce, createProbeClient, ProbeClient } from '../../../scripts/lib/probe-service';
import { FakeControlPlane } from '../../../scripts/xds/control-plane';
import { clusterLoadAssignment, loadBootstrap, loadResource, withAddresses } from '../../../scripts/xds/fixtures';
import { BalancerStats, getLoadBalancerStats, STATS_LABEL_OPTION } from '../../../src';
import { registerXds } from '../../../src/xds';
import { loadGrpcJsXds } from '../../../src/xds/xds-registry';
import { startBackends, stopBackends, TestBackend } from '../../support/backends';

export const TARGET = 'xds:///listener1';

export interface WorldOptions {
  /**
   * Default true. False: only @grpc/grpc-js-xds's own register() runs, as in
   * an app without this package. Jest gives each test file its own module
   * registry, so this holds for the whole file.
   */
  registerXds?: boolean;
  /** Default true: start() returns after one call succeeded. False: after the first CDS response was answered. */
  awaitFirstCall?: boolean;
}

export class XdsWorld {
  private constructor(
    readonly controlPlane: FakeControlPlane,
    readonly backends: TestBackend[],
    readonly client: ProbeClient,
    readonly label: string,
  ) {}

  /** Three backends b0, b1 (locality region-a) and b2 (region-b), as in xds-fixtures/endpoints.yaml. */
  static async start(clusterFixture: string, label: string, options: WorldOptions = {}): Promise<XdsWorld> {
    if (options.registerXds ?? true) {
      registerXds();
    } else {
      loadGrpcJsXds().register();
    }
    const controlPlane = await FakeControlPlane.start();
    const backends = await startBackends(3);
    controlPlane.putFromFile('listener.yaml');
    const clusterVersion = controlPlane.putFromFile(clusterFixture).cluster!;
    controlPlane.setEndpoints([withAddresses(loadResource('endpoints.yaml'), backends.map((backend) => backend.address))]);
    const client = createProbeClient(TARGET, credentials.createInsecure(), {
      ...controlPlane.channelOptions(loadBootstrap(controlPlane.address)),
      [STATS_LABEL_OPTION]: label,
    });
    const world = new XdsWorld(controlPlane, backends, client, label);
    try {
      if (options.awaitFirstCall ?? true) {
        await callOnce(client, 10_000);
      } else {
        client.waitForReady(Date.now() + 1, () => {}); // connect now: the channel is idle until a call or this
        await controlPlane.waitForResponse('cluster', clusterVersion);
      }
    } catch (error) {
      world.close(); // or the servers keep Jest from exiting
      throw error;
    }
    return world;
  }

  /** Our balancers serving this world's client. */
  stats(policy?: string): BalancerStats[] {
    return getLoadBalancerStats().filter(
      (stats) => stats.label === this.label && (policy === undefined || stats.policy === policy),
    );
  }

  /** Puts a cluster fixture and resolves when the client ACKs it (rejects on a NACK). */
  async pushCluster(fixture: string): Promise<string> {
    const version = this.controlPlane.putFromFile(fixture).cluster!;
    await this.controlPlane.expectAck('cluster', version);
    return version;
  }

  /**
   * Sets the EDS endpoints from these backends, one entry per locality, and
   * resolves on ACK. Keep the fixture's localities (region-a/zone-1,
   * region-b/zone-2) unless the test is about changing them: when every
   * locality of a priority changes, grpc-js-xds starts a new priority child
   * and keeps the old one (and its balancers) for 15 minutes.
   */
  async pushEndpoints(localities: { region: string; zone: string; backends: TestBackend[] }[]): Promise<string> {
    const version = this.controlPlane.setEndpoints([
      clusterLoadAssignment(
        'endpoints1',
        localities.map((locality) => ({
          region: locality.region,
          zone: locality.zone,
          addresses: locality.backends.map((backend) => backend.address),
        })),
      ),
    ]);
    await this.controlPlane.expectAck('endpoint', version);
    return version;
  }

  close(): void {
    this.client.close();
    this.controlPlane.close();
    stopBackends(this.backends);
  }
}

/** Unary calls each backend served, as a map id → count, from its own counter. */
export function callsByBackend(backends: readonly TestBackend[]): Map<string, number> {
  return new Map(backends.map((backend) => [backend.id, backend.calls]));
}

/** Per-backend calls between two callsByBackend() snapshots, as shares of the total. */
export function sharesBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const deltas = new Map([...after].map(([id, count]) => [id, count - (before.get(id) ?? 0)]));
  const total = [...deltas.values()].reduce((sum, count) => sum + count, 0);
  return new Map([...deltas].map(([id, count]) => [id, total === 0 ? 0 : count / total]));
}
