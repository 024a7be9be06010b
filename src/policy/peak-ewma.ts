/** The `peak_ewma_experimental` policy: the shared skeleton with the peak-EWMA cost. */
import { experimental } from '@grpc/grpc-js';
import { EndpointPickingLoadBalancer } from './endpoint-picking-balancer';
import { PEAK_EWMA_POLICY_NAME, PeakEwmaLoadBalancingConfig } from './peak-ewma-config';
import { Tracer } from './trace';

const tracer = new Tracer('peak_ewma');

/** The `peak_ewma_experimental` load balancer; grpc-js constructs it once register() has run. */
export class PeakEwmaLoadBalancer extends EndpointPickingLoadBalancer {
  constructor(helper: experimental.ChannelControlHelper) {
    super(helper, PEAK_EWMA_POLICY_NAME, PeakEwmaLoadBalancingConfig, tracer);
  }
}
