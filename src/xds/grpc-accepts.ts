/**
 * A converter's output must be a config grpc-js accepts. grpc-js-xds checks
 * only the top-level policy of a Cluster; a child config (under
 * xds_wrr_locality) that fails to parse is ACKed and then throws, uncaught,
 * when addresses arrive, killing the process (grpc-js-lb-internals.md §12).
 * So every converter parses its own output exactly as grpc-js will, and
 * throws, which NACKs the Cluster instead.
 */
import { experimental, LoadBalancingConfig } from '@grpc/grpc-js';

export function assertGrpcAccepts(config: LoadBalancingConfig): LoadBalancingConfig {
  try {
    experimental.parseLoadBalancingConfig(config);
  } catch (error) {
    throw new Error(`grpc-js rejects the converted config ${JSON.stringify(config)}: ${(error as Error).message}`);
  }
  return config;
}
