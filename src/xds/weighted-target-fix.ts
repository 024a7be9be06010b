/**
 * A workaround for a @grpc/grpc-js-xds 1.14 defect: `weighted_target` (the
 * policy under WrrLocality, one child per locality) never destroys the
 * child of a locality that left EDS. It keeps the child 15 minutes, in
 * case the locality comes back, and then only drops it from its map
 * (load-balancer-weighted-target.ts, `WeightedChildImpl.deactivate`; the
 * priority policy destroys its own). The child's balancer, ours, then lives
 * on unseen: listed by getLoadBalancerStats() and the metrics hook, its
 * subchannels connected to backends no longer in EDS, after
 * `client.close()` too, one more per locality move.
 *
 * The fix: `weighted_target` registered again, as the same class with a map
 * that destroys a child as it drops it. The map's `delete` is called only by
 * that timer; everything else (a new child, a destroy of the whole policy)
 * goes through `set`, `clear` and the children's own `destroy`, as before.
 * Installed only where the class has the shape it was written against; any
 * other release keeps grpc-js-xds's own policy.
 */
import { experimental } from '@grpc/grpc-js';
import { requireXdsInternal } from './xds-registry';

const WEIGHTED_TARGET_MODULE = '@grpc/grpc-js-xds/build/src/load-balancer-weighted-target';
const TYPE_NAME = 'weighted_target';

type WeightedTargetModule = typeof import('@grpc/grpc-js-xds/build/src/load-balancer-weighted-target');
type WeightedTargetClass = WeightedTargetModule['WeightedTargetLoadBalancer'];

type ConfigClass = Parameters<typeof experimental.registerLoadBalancerType>[2];

interface Destroyable {
  destroy(): void;
}

/** A map of children that destroys a child when it is dropped from the map. */
export class DestroyingChildMap<Child extends Destroyable> extends Map<string, Child> {
  override delete(name: string): boolean {
    const child = this.get(name);
    const had = super.delete(name);
    child?.destroy();
    return had;
  }
}

let installed = false;

/**
 * Registers `weighted_target` again with the fix, after grpc-js-xds
 * registered its own; idempotent. Returns whether the fix is in place.
 */
export function installWeightedTargetFix(): boolean {
  if (installed) {
    return true;
  }
  const Original = requireXdsInternal<WeightedTargetModule>(WEIGHTED_TARGET_MODULE).WeightedTargetLoadBalancer;
  // The config class, from grpc-js's registry: grpc-js-xds does not export it.
  const ConfigClass = configClassOf(TYPE_NAME);
  if (typeof Original !== 'function' || ConfigClass === null) {
    return false;
  }
  const Fixed = fixedClass(Original);
  experimental.registerLoadBalancerType(TYPE_NAME, Fixed, ConfigClass);
  installed = true;
  return true;
}

function fixedClass(Original: WeightedTargetClass): WeightedTargetClass {
  return class WeightedTargetDestroyingDroppedChildren extends Original {
    constructor(...args: ConstructorParameters<WeightedTargetClass>) {
      super(...args);
      const self = this as unknown as { targets?: unknown };
      // The shape this was written against: an empty Map, before any update.
      if (self.targets instanceof Map && self.targets.size === 0) {
        self.targets = new DestroyingChildMap<Destroyable>();
      }
    }
  };
}

/** The config class registered for `typeName`, read off a parsed empty config; null if it does not parse. */
function configClassOf(typeName: string): ConfigClass | null {
  try {
    const config = experimental.parseLoadBalancingConfig({ [typeName]: { targets: {} } });
    return config.constructor as never;
  } catch {
    return null;
  }
}
