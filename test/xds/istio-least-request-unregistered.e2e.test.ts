/**
 * The control case for istio-least-request.e2e.test.ts: the same Istio-shaped
 * Cluster (lb_policy LEAST_REQUEST) for a grpc-js client with
 * @grpc/grpc-js-xds alone (registerXds() never runs in this file, and Jest
 * gives each file its own modules): NACKed, and with no earlier good
 * Cluster every call fails UNAVAILABLE. If this starts failing because the
 * Cluster is ACKed, grpc-js-xds supports the enum itself and
 * src/xds/legacy-least-request.ts must go (its install check says so too).
 */
import { experimental, logVerbosity, ServiceError, setLogVerbosity, status } from '@grpc/grpc-js';
import { callOnce } from '../../scripts/lib/probe-service';
import { XdsWorld } from './support/xds-world';

let world: XdsWorld;

beforeAll(async () => {
  setLogVerbosity(logVerbosity.NONE);
  world = await XdsWorld.start('clusters/istio-least-request.yaml', 'istio-unregistered-e2e', {
    registerXds: false,
    awaitFirstCall: false,
  });
});

afterAll(() => world?.close());

test('without registerXds() the Istio-shaped cluster is NACKed and calls fail UNAVAILABLE', async () => {
  // The setup this control case stands on: nothing of this package was registered in this file.
  expect(experimental.isLoadBalancerNameRegistered('least_request_experimental')).toBe(false);
  const message = await world.controlPlane.expectNack('cluster', world.controlPlane.version('cluster'));
  expect(message).toContain('load_balancing_policy unset and unsupported lb_policy: LEAST_REQUEST');
  const error = (await callOnce(world.client, 5_000).then(
    () => null,
    (thrown: ServiceError) => thrown,
  )) as ServiceError | null;
  expect(error?.code).toBe(status.UNAVAILABLE);
});
