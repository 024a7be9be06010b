/**
 * Two copies of grpc-js-peak-ewma sharing ONE @grpc/grpc-js: an application
 * depends on one version, a library it uses on another, and npm dedupes
 * grpc-js but not us (src/policy/package-copies.ts). The second copy is a
 * second load of src/ (jest.isolateModules) handed the same grpc-js, with
 * its version, where a test needs one, said by a mocked own-package.ts; the
 * first copy reads its own from package.json. Each test gets a fresh grpc-js
 * (jest.resetModules), so one test's registrations do not reach the next.
 * Real servers and channels over loopback; every channel's policy is shown
 * to be ours by its stats entry, which a pick_first fallback would not have.
 */
import * as path from 'path';
import type { PackageCopy } from '../../src/policy/own-package';

type GrpcJs = typeof import('@grpc/grpc-js');

/** One copy of the package: its public API and the internals a test reads. */
interface Copy {
  readonly api: typeof import('../../src');
  readonly streaming: typeof import('../../src/policy/streaming');
  readonly methods: typeof import('../../src/core/methods');
}

const OWN_PACKAGE = '../../src/policy/own-package';
const ROOT = path.resolve(__dirname, '..', '..');
/** The first copy, as its package.json says. */
const REAL: PackageCopy = { version: (require('../../package.json') as { version: string }).version, dir: ROOT };
const LIBRARY_DIR = '/srv/app/node_modules/some-library/node_modules/grpc-js-peak-ewma';
const newer = (): PackageCopy => ({ version: `${Number(REAL.version!.split('.')[0]) + 1}.0.0`, dir: LIBRARY_DIR });
/** A prerelease of the real version, below it (SemVer §11); the lowest version of all if the real one is a prerelease. */
const older = (): PackageCopy => ({ version: REAL.version!.includes('-') ? '0.0.0-0' : `${REAL.version}-rc.1`, dir: LIBRARY_DIR });
const sameVersion = (): PackageCopy => ({ version: REAL.version, dir: LIBRARY_DIR });
const named = (copy: PackageCopy) => `${copy.version} at ${copy.dir}`;

let grpc: GrpcJs;
let first: Copy;
let probe: typeof import('../../scripts/lib/probe-service');
let manual: typeof import('../../scripts/lib/manual-resolver');
let backendsLib: typeof import('../support/backends');
let logLines: string[];

function requireCopy(): Copy {
  return { api: require('../../src'), streaming: require('../../src/policy/streaming'), methods: require('../../src/core/methods') };
}

/** Another copy of the package on the same grpc-js, saying `as` (version and directory) if given. */
function loadCopy(as?: PackageCopy): Copy {
  let copy!: Copy;
  jest.isolateModules(() => {
    jest.doMock('@grpc/grpc-js', () => grpc); // the same grpc-js, as npm dedupes it
    if (as !== undefined) {
      jest.doMock(OWN_PACKAGE, () => ({ ownPackage: () => as }));
    }
    copy = requireCopy();
  });
  // doMock outlives isolateModules.
  jest.dontMock('@grpc/grpc-js');
  jest.dontMock(OWN_PACKAGE);
  return copy;
}

beforeEach(() => {
  jest.resetModules();
  grpc = require('@grpc/grpc-js');
  first = requireCopy();
  probe = require('../../scripts/lib/probe-service');
  manual = require('../../scripts/lib/manual-resolver');
  backendsLib = require('../support/backends');
  logLines = [];
  const keep = (severity: string) => (...args: unknown[]) => logLines.push(`${severity} ${args.join(' ')}`);
  grpc.setLogger({ error: keep('E'), info: keep('I'), debug: keep('D') });
  grpc.setLogVerbosity(grpc.logVerbosity.INFO);
});

const ourLines = (severity: 'E' | 'I') => logLines.filter((line) => line.startsWith(`${severity} grpc-js-peak-ewma:`));

/** The config class grpc-js now parses `peak_ewma_experimental` with: the registered copy's. */
const registeredConfig = () => grpc.experimental.parseLoadBalancingConfig({ peak_ewma_experimental: {} });

/** The stats entry of the channel labelled `label`, as `copy` lists it (exactly one). */
function statsOf(copy: Copy, label: string) {
  const found = copy.api.getLoadBalancerStats().filter((s) => s.label === label);
  expect(found).toHaveLength(1);
  return found[0];
}

function channel(
  target: string,
  label: string,
  config: object = {},
  interceptors: import('@grpc/grpc-js').Interceptor[] = [],
  policy = 'peak_ewma_experimental',
) {
  return probe.createProbeClient(target, grpc.credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [policy]: config }] }),
    [first.api.STATS_LABEL_OPTION]: label,
    interceptors,
  });
}

/** `count` calls in a row; the ids of the backends that served them. */
async function servedBy(client: import('../../scripts/lib/probe-service').ProbeClient, count: number): Promise<string[]> {
  const served = new Set<string>();
  for (let i = 0; i < count; i++) {
    served.add(await probe.callOnce(client, 5_000));
  }
  return [...served].sort();
}

/** A channel made now runs our policy (it has a stats entry, which a pick_first fallback would not) and serves. */
async function expectOurPolicyServes(config: object = {}): Promise<void> {
  const backends = await backendsLib.startBackends(1);
  const client = channel(`ipv4:${backends[0].address}`, 'serves', config);
  try {
    expect(await servedBy(client, 3)).toEqual([backends[0].id]);
    expect(statsOf(first, 'serves').policy).toBe('peak_ewma_experimental');
  } finally {
    client.close();
    backendsLib.stopBackends(backends);
  }
}

const SERVED_BY =
  'I grpc-js-peak-ewma: two copies of grpc-js-peak-ewma are loaded: peak_ewma_experimental and least_request_experimental are served by';

describe('register() with another copy of the package on the same grpc-js', () => {
  it.each([
    ['an older copy registered after this one does not replace it', older, ['first', 'second'], 'first', 'the higher version'],
    ['a newer copy registered after this one replaces it', newer, ['first', 'second'], 'second', 'the higher version'],
    ['a newer copy registered before this one keeps the registration', newer, ['second', 'first'], 'second', 'the higher version'],
    ['this copy replaces an older one registered before it', older, ['second', 'first'], 'first', 'the higher version'],
    [
      'a copy of the same version registered after this one does not replace it',
      sameVersion,
      ['first', 'second'],
      'first',
      'the same version, registered first',
    ],
  ] as const)('%s; one INFO line names both copies', async (_title, other, order, serving, why) => {
    const copies = { first: { copy: first, as: REAL }, second: { copy: loadCopy(other()), as: other() } };
    const found = serving === 'first' ? 'second' : 'first';
    for (const name of order) {
      copies[name].copy.api.register();
    }
    expect(registeredConfig()).toBeInstanceOf(copies[serving].copy.api.PeakEwmaLoadBalancingConfig);
    // Registering again, from either copy, changes nothing and says nothing more.
    for (const name of order) {
      copies[name].copy.api.register();
    }
    expect(registeredConfig()).toBeInstanceOf(copies[serving].copy.api.PeakEwmaLoadBalancingConfig);
    expect(ourLines('I')).toEqual([`${SERVED_BY} ${named(copies[serving].as)} (${why}); also found ${named(copies[found].as)}`]);
    await expectOurPolicyServes();
  });

  it('replaces, and says so, a registration no copy recorded (a copy from before the record)', async () => {
    grpc.experimental.registerLoadBalancerType('peak_ewma_experimental', first.api.PeakEwmaLoadBalancer, first.api.PeakEwmaLoadBalancingConfig);
    const library = loadCopy(newer());
    library.api.register();
    expect(registeredConfig()).toBeInstanceOf(library.api.PeakEwmaLoadBalancingConfig);
    expect(ourLines('I')).toEqual([
      'I grpc-js-peak-ewma: peak_ewma_experimental and least_request_experimental are now served by ' +
        `${named(newer())}, replacing a copy of grpc-js-peak-ewma too old to say its version`,
    ]);
    await expectOurPolicyServes();
  });

  it('the copy that did not win still validates service configs naming our policies', async () => {
    first.api.register();
    const library = loadCopy(older());
    library.api.register();
    expect(registeredConfig()).not.toBeInstanceOf(library.api.PeakEwmaLoadBalancingConfig);
    const config = { loadBalancingConfig: [{ peak_ewma_experimental: { decayTime: '5s' } }, { least_request_experimental: { choiceCount: 3 } }] };
    expect(library.api.validateServiceConfig(config)).toBe(2);
    expect(() => library.api.validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimental: { decayTime: 'soon' } }] })).toThrow(
      /peak_ewma_experimental: field "decayTime"/,
    );
    expect(() => library.api.validateServiceConfig({ loadBalancingConfig: [{ peak_ewma_experimental: { decayTme: '5s' } }] })).toThrow(
      /did you mean "decayTime"/,
    );
    await expectOurPolicyServes(config.loadBalancingConfig[0].peak_ewma_experimental);
  });
});

describe('compareVersions (SemVer 2.0 precedence)', () => {
  it('orders the specification\'s own examples, numbers as numbers at any length, and puts what is not SemVer lowest', () => {
    const { compareVersions } = require('../../src/policy/semver-precedence') as typeof import('../../src/policy/semver-precedence');
    // Ascending (SemVer 2.0 §11 and more).
    const ascending = [
      null,
      'not-a-version',
      '1.0', // two parts: not SemVer
      '0.9.0',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.2.0',
      '1.10.0',
      '1.10.2',
      '2.0.0',
      '9007199254740993.0.0', // past 2^53: Number would call it equal to the next
      '9007199254740994.0.0',
    ];
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) {
        const [a, b] = [ascending[i], ascending[j]];
        // Both not SemVer rank equal.
        const expected = i < 3 && j < 3 ? 0 : Math.sign(i - j);
        expect([a, b, Math.sign(compareVersions(a, b))]).toEqual([a, b, expected]);
      }
    }
    expect(compareVersions('1.0.0+build.5', '1.0.0+build.9')).toBe(0);
    expect(compareVersions('01.0.0', '0.0.1')).toBeLessThan(0); // a leading zero is not SemVer
  });
});

describe('a live channel after another copy registers', () => {
  it.each(['peak_ewma_experimental', 'least_request_experimental'])('%s keeps taking address and config updates, in the balancer it had', async (
    policy,
  ) => {
    first.api.register();
    const backends = await backendsLib.startBackends(2);
    const target = new manual.ManualTarget('two-copies-live');
    target.setEndpoints([backends[0].address]);
    const client = channel(target.target, 'live', {}, [], policy);
    try {
      expect(await servedBy(client, 1)).toEqual([backends[0].id]);
      const before = statsOf(first, 'live');
      const library = loadCopy(newer());
      library.api.register(); // grpc-js now parses the channel's configs with the library's class
      expect(registeredConfig()).toBeInstanceOf(library.api.PeakEwmaLoadBalancingConfig);
      target.setServiceConfig([{ [policy]: { choiceCount: 3 } }]);
      target.setEndpoints([backends[1].address]); // a rolling deploy: backend 0 leaves, backend 1 joins
      expect(await servedBy(client, 10)).toEqual([backends[1].id]);
      const after = statsOf(first, 'live');
      expect({
        policy: after.policy,
        instanceId: after.instanceId,
        endpoints: after.endpoints.map((e) => e.address),
        choiceCount: (after.config as Record<string, { choiceCount: number }>)[policy].choiceCount,
      }).toEqual({
        policy,
        instanceId: before.instanceId,
        endpoints: [backends[1].address],
        choiceCount: 3,
      });
    } finally {
      client.close();
      backendsLib.stopBackends(backends);
      target.release();
    }
  });

  it('refuses a config the other copy accepts and this one does not, logs it at ERROR, and keeps serving with its last config', async () => {
    first.api.register();
    const backends = await backendsLib.startBackends(2);
    const target = new manual.ManualTarget('two-copies-refused');
    target.setEndpoints([backends[0].address]);
    const client = channel(target.target, 'refused');
    try {
      expect(await servedBy(client, 1)).toEqual([backends[0].id]);
      // A newer copy that allows a larger errorPenaltyFactor than this one (1000).
      const library = loadCopy(newer());
      (library.api.PEAK_EWMA_LIMITS as { maxErrorPenaltyFactor: number }).maxErrorPenaltyFactor = 1e6;
      library.api.register();
      const wide = [{ peak_ewma_experimental: { errorPenaltyFactor: 5000 } }];
      expect(grpc.experimental.parseLoadBalancingConfig(wide[0])).toBeInstanceOf(library.api.PeakEwmaLoadBalancingConfig);

      target.setServiceConfig(wide);
      target.setEndpoints([backends[1].address]); // refused with it: the channel keeps backend 0
      expect(await servedBy(client, 5)).toEqual([backends[0].id]);
      const refused = statsOf(first, 'refused');
      expect(refused.endpoints.map((e) => e.address)).toEqual([backends[0].address]);
      expect(refused.config).toEqual(first.api.PeakEwmaLoadBalancingConfig.parse({}).toJsonObject());
      // Both refused updates, said once.
      expect(ourLines('E')).toEqual([
        `E grpc-js-peak-ewma: peak_ewma: instance ${refused.instanceId} refused an update: its peak_ewma_experimental config was ` +
          `made by another copy of grpc-js-peak-ewma (${named(newer())}) and does not parse in this one (${named(REAL)}): ` +
          'peak_ewma_experimental: field "errorPenaltyFactor" must be at least 1 and at most 1000, got 5000; it keeps its config and endpoints',
      ]);

      // A config both accept is taken again, with the latest addresses.
      target.setServiceConfig([{ peak_ewma_experimental: { errorPenaltyFactor: 7 } }]);
      expect(await servedBy(client, 5)).toEqual([backends[1].id]);
      expect(statsOf(first, 'refused').instanceId).toBe(refused.instanceId);
    } finally {
      client.close();
      backendsLib.stopBackends(backends);
      target.release();
    }
  });
});

describe("one copy's callMarker and stats with another copy's balancer", () => {
  it("the application copy's callMarker: its stream is neither in flight nor sampled, its calls carry their method", async () => {
    first.api.register();
    const library = loadCopy(newer());
    library.api.register(); // a dependency's newer copy, loaded later, serves the channels
    const backends = await backendsLib.startBackendsAnswering([1]);
    const client = channel(`ipv4:${backends[0].address}`, 'marked', { methodScoring: 'latency' }, [first.api.callMarker]);
    try {
      expect(registeredConfig()).toBeInstanceOf(library.api.PeakEwmaLoadBalancingConfig);
      const stream = client.watch(Buffer.from('600'), new grpc.Metadata());
      const ended = new Promise((resolve) => stream.on('status', resolve));
      await new Promise((resolve) => stream.once('data', resolve)); // picked, and running
      const duringStream = [first, library].map((copy) => statsOf(copy, 'marked').endpoints.map((e) => e.outstanding));
      await ended;
      const afterStream = statsOf(first, 'marked').endpoints.map((e) => e.msSinceLastSample);
      await servedBy(client, 3);
      expect({ duringStream, afterStream, methods: statsOf(first, 'marked').methods.map((m) => [m.method, m.calls]) }).toEqual({
        duringStream: [[0], [0]], // seen by both copies' stats, not in flight
        afterStream: [null], // no RTT sample from the stream
        methods: [[probe.probePath('Call'), 3]],
      });
    } finally {
      client.close();
      backendsLib.stopBackends(backends);
    }
  });

  it("the picker of one copy reads another copy's call info with its own method keys", () => {
    const library = loadCopy();
    const marked = first.streaming.markedCopy(new grpc.Metadata(), '/svc.S/Get', false);
    const key = library.streaming.timedMethodOf(marked);
    expect(key).toBeInstanceOf(library.methods.MethodKey);
    expect(key).toBe(library.streaming.timedMethodOf(library.streaming.markedCopy(new grpc.Metadata(), '/svc.S/Get', false)));
    expect(library.streaming.isUntimed(first.streaming.markedCopy(new grpc.Metadata(), '/svc.S/Watch', true))).toBe(true);
    const untimed = new grpc.Metadata();
    first.api.markUntimed(untimed);
    expect(library.api.isUntimed(untimed)).toBe(true);
  });

  it("every copy's getLoadBalancerStats lists every copy's balancers, each read in full, with ids unique in the process", async () => {
    first.api.register();
    const backends = await backendsLib.startBackendsAnswering([1]);
    const before = channel(`ipv4:${backends[0].address}`, 'made-before');
    await servedBy(before, 5); // its balancer is made at its first call: the first copy's
    const library = loadCopy(newer());
    library.api.register();
    const after = channel(`ipv4:${backends[0].address}`, 'made-after');
    try {
      await servedBy(after, 5);
      const views = [first, library].map((copy) =>
        ['made-before', 'made-after'].map((label) => {
          const entry = statsOf(copy, label);
          return {
            instanceId: entry.instanceId,
            fleetRttKnown: entry.fleetRttMs !== null,
            estimatesKnown: entry.endpoints.map((e) => e.estimateMs !== null),
          };
        }),
      );
      expect(views[1]).toEqual(views[0]);
      expect(views[0].map((view) => [view.fleetRttKnown, view.estimatesKnown])).toEqual([
        [true, [true]],
        [true, [true]],
      ]);
      expect(views[0][0].instanceId).not.toBe(views[0][1].instanceId);
    } finally {
      before.close();
      after.close();
      backendsLib.stopBackends(backends);
    }
  });
});
