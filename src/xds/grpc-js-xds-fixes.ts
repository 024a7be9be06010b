/**
 * Workarounds for two @grpc/grpc-js-xds 1.14 defects in the retention of a
 * child that left EDS (kept 15 minutes in case it comes back), found by a
 * bug hunt on 2026-12-06 (docs/xds.md §5). Each policy is registered again
 * as the same class with the mend, after grpc-js-xds registered its own
 * (grpc-js's registry is last-wins), and only where the class has the shape
 * the mend was written against; any other release keeps its own policy.
 *
 * - `weighted_target` (the policy under WrrLocality, one child per locality)
 *   drops a removed locality's child from its map when the retention ends
 *   without destroying it (load-balancer-weighted-target.ts,
 *   `WeightedChildImpl.deactivate`; the priority policy destroys its own).
 *   The child's balancer, ours, lived on unseen: listed by
 *   getLoadBalancerStats() and the metrics hook, its subchannels connected
 *   to backends no longer in EDS, after `client.close()` too, one more per
 *   locality move. Mended with a child map that destroys a child as it drops
 *   it: the map's `delete` is called only by that timer.
 * - `priority` destroys its children without clearing their retention and
 *   failover timers (load-balancer-priority.ts, `PriorityChildImpl.destroy`),
 *   and neither is unref'd: a process whose xds:/// channel had moved to a new
 *   priority child stayed alive up to 15 minutes after `client.close()`.
 *   Mended by clearing both before the children are destroyed.
 */
import { experimental } from '@grpc/grpc-js';
import { requireXdsInternal } from './xds-registry';

type WeightedTargetModule = typeof import('@grpc/grpc-js-xds/build/src/load-balancer-weighted-target');
type PriorityModule = typeof import('@grpc/grpc-js-xds/build/src/load-balancer-priority');
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

/** A priority child as the mend reads it; methods absent in another release are skipped. */
interface PriorityChildTimers {
  maybeReactivate?: () => void; // clears the retention timer
  cancelFailoverTimer?: () => void;
}

let installed = false;
const mended: string[] = [];

/**
 * Reads what both mends need (grpc-js-xds's modules and its registered config
 * classes: call after its register()) and returns what installs them;
 * throws, having changed nothing, if a module has moved. Idempotent.
 */
export function prepareGrpcJsXdsFixes(): () => string[] {
  const weightedTarget = requireXdsInternal<WeightedTargetModule>('@grpc/grpc-js-xds/build/src/load-balancer-weighted-target').WeightedTargetLoadBalancer;
  const weightedTargetConfig = configClassOf('weighted_target', { targets: {} });
  const priority = requireXdsInternal<PriorityModule>('@grpc/grpc-js-xds/build/src/load-balancer-priority').PriorityLoadBalancer;
  const priorityConfig = configClassOf('priority', { children: {}, priorities: [] });
  return () => {
    if (installed) {
      return mended;
    }
    installed = true;
    if (typeof weightedTarget === 'function' && weightedTargetConfig !== null) {
      experimental.registerLoadBalancerType('weighted_target', weightedTargetDestroyingDropped(weightedTarget), weightedTargetConfig);
      mended.push('weighted_target');
    }
    if (typeof priority === 'function' && priorityConfig !== null) {
      experimental.registerLoadBalancerType('priority', priorityClearingTimers(priority), priorityConfig);
      mended.push('priority');
    }
    return mended;
  };
}

/** Installs both mends; idempotent. Returns the names of the policies mended. */
export function installGrpcJsXdsFixes(): string[] {
  return prepareGrpcJsXdsFixes()();
}

function weightedTargetDestroyingDropped(Original: WeightedTargetModule['WeightedTargetLoadBalancer']): WeightedTargetModule['WeightedTargetLoadBalancer'] {
  return class WeightedTargetDestroyingDroppedChildren extends Original {
    constructor(...args: ConstructorParameters<WeightedTargetModule['WeightedTargetLoadBalancer']>) {
      super(...args);
      const self = this as unknown as { targets?: unknown };
      // The shape this was written against: an empty Map, before any update.
      if (self.targets instanceof Map && self.targets.size === 0) {
        self.targets = new DestroyingChildMap<Destroyable>();
      }
    }
  };
}

function priorityClearingTimers(Original: PriorityModule['PriorityLoadBalancer']): PriorityModule['PriorityLoadBalancer'] {
  return class PriorityClearingTimersOnDestroy extends Original {
    override destroy(): void {
      const children = (this as unknown as { children?: unknown }).children;
      if (children instanceof Map) {
        for (const child of children.values() as Iterable<PriorityChildTimers>) {
          child.maybeReactivate?.();
          child.cancelFailoverTimer?.();
        }
      }
      super.destroy();
    }
  };
}

/** The config class registered for `typeName`, read off a parsed minimal config (grpc-js-xds exports neither); null if it does not parse. */
function configClassOf(typeName: string, minimalConfig: object): ConfigClass | null {
  try {
    return experimental.parseLoadBalancingConfig({ [typeName]: minimalConfig }).constructor as ConfigClass;
  } catch {
    return null;
  }
}
