/**
 * registerXds() mends two grpc-js-xds 1.14 defects (src/xds/grpc-js-xds-fixes.ts;
 * found by an xDS bug hunt, 2026-12-06; docs/xds.md §5):
 *
 * - `weighted_target` (under WrrLocality) only dropped a removed locality's
 *   child from its map when its 15-minute retention ended, so our balancer
 *   under it lived on: listed by getLoadBalancerStats(), its subchannels
 *   connected to backends no longer in EDS, after client.close() too.
 * - `priority` left its children's retention and failover timers running
 *   when destroyed, so a closed channel kept the process alive.
 *
 * The policies run here as grpc-js runs them, from the registry through a
 * ChildLoadBalancerHandler, with a recording child policy in place of ours
 * and jest's fake clock for the timers.
 */
import { ChannelOptions, experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { registerXds } from '../../src/xds';
import { DestroyingChildMap, installGrpcJsXdsFixes } from '../../src/xds/grpc-js-xds-fixes';

const PROBE = 'weighted_target_fix_probe';
const RETENTION_MS = 15 * 60 * 1000; // grpc-js-xds's DEFAULT_RETENTION_INTERVAL_MS

/** Every probe balancer made, in order, with whether it was destroyed. */
const made: { destroyed: boolean; addresses: string[] }[] = [];

class ProbeConfig implements experimental.TypedLoadBalancingConfig {
  getLoadBalancerName(): string {
    return PROBE;
  }
  toJsonObject(): object {
    return { [PROBE]: {} };
  }
  static createFromJson(): ProbeConfig {
    return new ProbeConfig();
  }
}

class ProbeBalancer implements experimental.LoadBalancer {
  private readonly record = { destroyed: false, addresses: [] as string[] };
  constructor() {
    made.push(this.record);
  }
  updateAddressList(endpoints: { ok: boolean; value?: experimental.Endpoint[] }): boolean {
    this.record.addresses = (endpoints.value ?? []).map((endpoint) => experimental.endpointToString(endpoint));
    return true;
  }
  exitIdle(): void {}
  resetBackoff(): void {}
  destroy(): void {
    this.record.destroyed = true;
  }
  getTypeName(): string {
    return PROBE;
  }
}

const helper: experimental.ChannelControlHelper = {
  createSubchannel: () => {
    throw new Error('the probe policy makes no subchannels');
  },
  updateState: () => {},
  requestReresolution: () => {},
  addChannelzChild: () => {},
  removeChannelzChild: () => {},
};

/** A weighted_target config over `localities`, each with the probe policy as its child. */
function configOver(localities: string[]): experimental.TypedLoadBalancingConfig {
  const targets = Object.fromEntries(localities.map((name) => [name, { weight: 1, child_policy: [{ [PROBE]: {} }] }]));
  return experimental.parseLoadBalancingConfig({ weighted_target: { targets } });
}

/** One endpoint per locality, its locality path naming it (what xds_wrr_locality hands weighted_target). */
function endpointsIn(localities: string[]) {
  return {
    ok: true as const,
    value: localities.map((name, i) => ({ addresses: [{ host: '127.0.0.1', port: 10_000 + i }], localityPath: [name] })),
  };
}

beforeAll(() => {
  setLogVerbosity(logVerbosity.NONE);
  registerXds();
  experimental.registerLoadBalancerType(PROBE, ProbeBalancer as never, ProbeConfig);
});

beforeEach(() => {
  made.length = 0;
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

function weightedTargetOver(localities: string[]): experimental.ChildLoadBalancerHandler {
  const balancer = new experimental.ChildLoadBalancerHandler(helper);
  balancer.updateAddressList(endpointsIn(localities), configOver(localities), {} as ChannelOptions, '');
  return balancer;
}

describe("weighted_target after registerXds()", () => {
  it("destroys a removed locality's child when its retention ends, and only then", () => {
    const balancer = weightedTargetOver(['zone-a', 'zone-b']);
    expect(made.map((child) => child.addresses)).toEqual([['[127.0.0.1:10000]'], ['[127.0.0.1:10001]']]);
    balancer.updateAddressList(endpointsIn(['zone-a']), configOver(['zone-a']), {} as ChannelOptions, '');
    jest.advanceTimersByTime(RETENTION_MS - 1_000);
    expect(made.map((child) => child.destroyed)).toEqual([false, false]); // kept, in case zone-b comes back
    jest.advanceTimersByTime(2_000);
    expect(made.map((child) => child.destroyed)).toEqual([false, true]);
    balancer.destroy();
    expect(made.map((child) => child.destroyed)).toEqual([true, true]);
  });

  it('keeps a locality that comes back within its retention: the same child, not destroyed', () => {
    const balancer = weightedTargetOver(['zone-a', 'zone-b']);
    balancer.updateAddressList(endpointsIn(['zone-a']), configOver(['zone-a']), {} as ChannelOptions, '');
    jest.advanceTimersByTime(RETENTION_MS / 2);
    balancer.updateAddressList(endpointsIn(['zone-a', 'zone-b']), configOver(['zone-a', 'zone-b']), {} as ChannelOptions, '');
    jest.advanceTimersByTime(RETENTION_MS * 2);
    expect(made).toHaveLength(2);
    expect(made.map((child) => child.destroyed)).toEqual([false, false]);
    balancer.destroy();
  });

  it('leaves no child behind as a locality moves to a new name each update', () => {
    const balancer = weightedTargetOver(['zone-a', 'moving-0']);
    for (let move = 1; move <= 5; move++) {
      balancer.updateAddressList(endpointsIn(['zone-a', `moving-${move}`]), configOver(['zone-a', `moving-${move}`]), {} as ChannelOptions, '');
      jest.advanceTimersByTime(RETENTION_MS + 1_000);
    }
    // zone-a, and the latest moving child, live; the five before were destroyed.
    expect(made.filter((child) => !child.destroyed)).toHaveLength(2);
    expect(made).toHaveLength(7);
    balancer.destroy();
    expect(made.every((child) => child.destroyed)).toBe(true);
  });
});

/** A priority config over `children`, in that order of priority, each with the probe policy. */
function priorityConfig(children: string[]): experimental.TypedLoadBalancingConfig {
  const entries = children.map((name) => [name, { config: [{ [PROBE]: {} }], ignore_reresolution_requests: false }]);
  return experimental.parseLoadBalancingConfig({ priority: { children: Object.fromEntries(entries), priorities: children } });
}

describe('priority after registerXds()', () => {
  it("leaves no timer running once destroyed: a replaced child's retention, a child's failover", () => {
    const balancer = new experimental.ChildLoadBalancerHandler(helper);
    balancer.updateAddressList(endpointsIn(['p0']), priorityConfig(['p0']), {} as ChannelOptions, '');
    // EDS moved the endpoints to a new priority child: p0 is kept for its retention.
    balancer.updateAddressList(endpointsIn(['p1']), priorityConfig(['p1']), {} as ChannelOptions, '');
    expect(made).toHaveLength(2);
    expect(jest.getTimerCount()).toBeGreaterThan(0);
    balancer.destroy();
    expect(made.map((child) => child.destroyed)).toEqual([true, true]);
    // Nothing left to hold a closed channel's process for 15 minutes.
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('the mends', () => {
  it('are both installed against the grpc-js-xds this package is tested with', () => {
    expect(installGrpcJsXdsFixes().sort()).toEqual(['priority', 'weighted_target']);
  });
});

describe('DestroyingChildMap', () => {
  it('destroys a child as it drops it, and nothing it does not hold', () => {
    const destroyed: string[] = [];
    const map = new DestroyingChildMap<{ destroy(): void }>();
    map.set('a', { destroy: () => destroyed.push('a') });
    expect(map.delete('b')).toBe(false);
    expect(map.delete('a')).toBe(true);
    expect(destroyed).toEqual(['a']);
    expect(map.size).toBe(0);
  });
});
