/**
 * The xDS path for the benchmarks: the fake control plane (scripts/xds)
 * serving the fixtures' listener (xds:///listener1 → cluster1), the PeakEwma
 * cluster fixture (Envoy's PeakEwma with Envoy's defaults, which map to
 * peak_ewma_experimental's defaults) and an EDS assignment with the fleet's
 * addresses in one locality, so one peak_ewma balancer sees every backend,
 * as the service-config clients do.
 *
 * grpc-js-xds builds cds → outlier_detection (no ejection configured) →
 * xds_cluster_impl → priority → peak_ewma_experimental: the comparison with
 * the service-config client shows what those layers cost.
 */
import { FakeControlPlane } from '../xds/control-plane';
import { clusterLoadAssignment, loadBootstrap } from '../xds/fixtures';

export const XDS_TARGET = 'xds:///listener1';

export interface XdsSetup {
  readonly target: string;
  /** The bootstrap JSON for the per-channel bootstrap option. */
  readonly bootstrap: string;
  close(): void;
}

/** `clusterFixture`: the CDS cluster served as cluster1 (default: Envoy's PeakEwma). */
export async function startXdsControlPlane(
  addresses: readonly string[],
  clusterFixture = 'clusters/peak-ewma.yaml',
): Promise<XdsSetup> {
  const controlPlane = await FakeControlPlane.start();
  controlPlane.putFromFile('listener.yaml');
  controlPlane.putFromFile(clusterFixture);
  controlPlane.setEndpoints([clusterLoadAssignment('endpoints1', [{ region: 'r1', addresses }])]);
  return {
    target: XDS_TARGET,
    bootstrap: JSON.stringify(loadBootstrap(controlPlane.address)),
    close: () => controlPlane.close(),
  };
}
