/** The `least_request_experimental` policy (gRFC A48): the shared skeleton with the outstanding-calls cost. */
import { experimental } from '@grpc/grpc-js';
import { EndpointPickingLoadBalancer } from './endpoint-picking-balancer';
import { LEAST_REQUEST_POLICY_NAME, LeastRequestLoadBalancingConfig } from './least-request-config';
import { Tracer } from './trace';

const tracer = new Tracer('least_request');

/** The `least_request_experimental` load balancer; grpc-js constructs it once register() has run. */
export class LeastRequestLoadBalancer extends EndpointPickingLoadBalancer {
  constructor(helper: experimental.ChannelControlHelper) {
    super(helper, LEAST_REQUEST_POLICY_NAME, LeastRequestLoadBalancingConfig, tracer);
  }
}
