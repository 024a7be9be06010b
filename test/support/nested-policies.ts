/**
 * A loadBalancingConfig entry nested `levels` deep: outlier_detection
 * entries, each the only child of the one above, peak_ewma_experimental
 * innermost. For the nesting limit (MAX_CHILD_POLICY_DEPTH), which the
 * service-config validator and the TypedStruct converter both apply.
 */
export function nestedPolicies(levels: number): Record<string, unknown> {
  let entry: Record<string, unknown> = { peak_ewma_experimental: {} };
  for (let i = 0; i < levels; i++) {
    entry = { outlier_detection: { child_policy: [entry] } };
  }
  return entry;
}
