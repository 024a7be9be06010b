/**
 * A fleet of the simulator's backend models by role, on one virtual
 * scheduler that nothing advances: what the oracle policies' tests read
 * speeds from. Each backend's randomness is seeded by its index.
 */
import { seededRandom } from '../../src/core/random';
import { BackendModel } from '../../scripts/model/backend';
import { behaviourAtSlots } from '../../scripts/model/roles';
import { VirtualScheduler } from '../../scripts/model/virtual-scheduler';

export function modelFleet(roles: Parameters<typeof behaviourAtSlots>[0][], slots: number): BackendModel[] {
  const scheduler = new VirtualScheduler();
  return roles.map(
    (role, id) => new BackendModel({ scheduler, random: seededRandom(id + 1), behaviour: behaviourAtSlots(role, slots), onReply: () => undefined }),
  );
}
