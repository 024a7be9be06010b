import { RemoteScenarioControl } from '../../scripts/bench/remote-control';
import { phaseTimeline, REFERENCE_TIMELINE, scenarioById, timelineFor } from '../../scripts/bench/scenarios';

/** Runs a simulator scenario's setup against a recording fleet and fires its events in time order. */
async function drive(id: string) {
  const log: string[] = [];
  const timeline = timelineFor(45);
  const scenario = scenarioById(id);
  const errors: unknown[] = [];
  const control = new RemoteScenarioControl(timeline, scenario.backends, (e) => errors.push(e));
  scenario.setup(control);
  const before = { standing: Object.fromEntries(control.standing), maxConnectionAgeMs: control.maxConnectionAgeMs };
  control.start({
    setBehaviour: (backend, patch) => log.push(`set ${backend} ${JSON.stringify(patch)}`),
    addBackend: async (backend, role) => {
      await Promise.resolve();
      log.push(`add ${backend} ${role}`);
    },
    publish: async (ids) => {
      log.push(`publish ${ids.length}: ${ids.slice(0, 2).join(',')}…${ids.slice(-2).join(',')}`);
    },
    restartClients: () => log.push('restart'),
    restartInPlace: (backend, downMs) => log.push(`restart ${backend} in place, down ${downMs} ms`),
  });
  for (const event of [...control.events].sort((a, b) => a.atS - b.atS)) {
    log.push(`t=${event.atS}`);
    event.action();
    await control.settled();
  }
  expect(errors).toEqual([]);
  return { log, before, timeline };
}

describe('remote ScenarioControl (the simulator scenarios on a real fleet)', () => {
  it('s03: slows pod 0 at the fault start and heals it at the end', async () => {
    const { log, timeline } = await drive('s03');
    expect(log).toEqual([
      `t=${timeline.faultStartS}`,
      'set 0 {"latencyFactor":5}',
      `t=${timeline.faultEndS}`,
      'set 0 {"latencyFactor":1}',
    ]);
  });

  it('s12: behaviour set during setup becomes the starting behaviour, not a runtime change', async () => {
    const { log, before } = await drive('s12');
    expect(log).toEqual([]);
    expect(Object.keys(before.standing)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(before.standing[0]).toEqual({ extraDelayMs: 2 });
  });

  it('s09: max connection age is a server option taken at setup', async () => {
    const { before } = await drive('s09');
    expect(before.maxConnectionAgeMs).toBe(10_000);
  });

  it('s07: every 2 s a new backend starts and is published in place of the oldest, adds before publishes', async () => {
    const { log } = await drive('s07');
    expect(log.slice(0, 6)).toEqual([
      't=10',
      'add 20 normal',
      'publish 20: 1,2…19,20',
      't=12',
      'add 21 normal',
      'publish 20: 2,3…20,21',
    ]);
    expect(log.filter((l) => l.startsWith('add')).length).toBe(10);
  });

  it("s18: the newcomers' slowness reaches them after they start and before they are published (it was sent before they existed, and lost)", async () => {
    const { log, timeline } = await drive('s18');
    const slow = '{"latencyFactor":10}';
    expect(log.slice(0, 12)).toEqual([
      `t=${timeline.faultStartS}`,
      ...[20, 21, 22, 23, 24].map((id) => `add ${id} normal`),
      ...[20, 21, 22, 23, 24].map((id) => `set ${id} ${slow}`),
      'publish 25: 0,1…23,24',
    ]);
  });

  it('a patch for a backend already running is not held behind an add in progress', async () => {
    const control = new RemoteScenarioControl(timelineFor(45), 20, () => {});
    const log: string[] = [];
    let finishAdd = (): void => {};
    control.start({
      setBehaviour: (backend, patch) => log.push(`set ${backend} ${JSON.stringify(patch)}`),
      addBackend: (backend) => new Promise<void>((resolve) => (finishAdd = () => (log.push(`add ${backend}`), resolve()))),
      publish: async () => {},
      restartClients: () => {},
      restartInPlace: () => {},
    });
    const joiner = control.addBackend('normal');
    await Promise.resolve();
    control.backend(3).setBehaviour({ latencyFactor: 5 });
    control.backend(joiner).setBehaviour({ latencyFactor: 10 });
    expect(log).toEqual(['set 3 {"latencyFactor":5}']);
    finishAdd();
    await control.settled();
    expect(log).toEqual(['set 3 {"latencyFactor":5}', 'add 20', 'set 20 {"latencyFactor":10}']);
  });

  it('s11: restarts the clients a third of the way through the window, as the harness does at 30 s of 90 (not halfway through the fault phase)', async () => {
    const { log, timeline } = await drive('s11');
    expect(timeline.measureS).toBe(45);
    expect(log).toEqual(['t=15', 'restart']);
  });

  it("s08: retires the first five 5 s before the fault phase ends, where its reported fault phase ends, as the harness's (20, 55] does", async () => {
    const { log, timeline } = await drive('s08');
    const retiredAt = log[log.findIndex((line) => line.startsWith('publish 20')) - 1];
    expect(retiredAt).toBe(`t=${timeline.faultEndS - 5}`);
    const phases = phaseTimeline(scenarioById('s08'), timeline);
    expect([phases.faultStartS, phases.faultEndS]).toEqual([timeline.faultStartS, timeline.faultEndS - 5]);
    expect(phaseTimeline(scenarioById('s08'), REFERENCE_TIMELINE).faultEndS).toBe(55);
    // Every other scenario's phases are the timeline's.
    expect(phaseTimeline(scenarioById('s03'), timeline)).toBe(timeline);
  });

  it('s19: every 2 s the next pod turns cold and restarts in place, down 3 s, in list order', async () => {
    const { log, timeline } = await drive('s19');
    expect(log.slice(0, 6)).toEqual([
      `t=${timeline.faultStartS}`,
      'set 0 {"warmupFactor":5,"warmupCalls":300}',
      'restart 0 in place, down 3000 ms',
      `t=${timeline.faultStartS + 2}`,
      'set 1 {"warmupFactor":5,"warmupCalls":300}',
      'restart 1 in place, down 3000 ms',
    ]);
    expect(log.filter((l) => l.startsWith('restart')).length).toBe((timeline.faultEndS - timeline.faultStartS) / 2);
  });

  it('offers only setBehaviour on a remote backend', () => {
    const control = new RemoteScenarioControl(timelineFor(45), 20, () => {});
    expect(() => control.backend(0).inService).toThrow(/offers only setBehaviour/);
  });
});
