/**
 * PickTurn (src/policy/pick-turn.ts): a pick counts on its endpoint until
 * its call starts or the event-loop turn ends, whichever comes first; a call
 * that starts later (its credentials took longer) counts from its start
 * only, and never settles a pick of a later turn.
 */
import { EndpointLoad } from '../../src/core';
import { PickTurn } from '../../src/policy/pick-turn';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('PickTurn', () => {
  it('counts a pick until its call starts in the same turn', () => {
    const turn = new PickTurn();
    const load = new EndpointLoad();
    const claimed = turn.claim(load, 1);
    turn.claim(load, 1);
    expect(load.picked).toBe(2);
    turn.started(load, 1, claimed);
    expect(load.picked).toBe(1);
    turn.stop();
  });

  it('forgets the picks whose calls did not start when the turn ends', async () => {
    const turn = new PickTurn();
    const [a, b] = [new EndpointLoad(), new EndpointLoad()];
    turn.claim(a, 1);
    turn.claim(b, 2);
    await Promise.resolve();
    // Promise turns are still the same event-loop turn.
    expect([a.picked, b.pickedWork]).toEqual([1, 2]);
    await nextTurn();
    expect([a.picked, a.pickedWork, b.picked, b.pickedWork]).toEqual([0, 0, 0, 0]);
  });

  it("never lets a late start settle a later turn's pick", async () => {
    const turn = new PickTurn();
    const load = new EndpointLoad();
    const early = turn.claim(load, 1);
    await nextTurn();
    const late = turn.claim(load, 1);
    expect(late).not.toBe(early);
    // The first call's credentials came late: it starts now.
    turn.started(load, 1, early);
    expect(load.picked).toBe(1);
    turn.started(load, 1, late);
    expect(load.picked).toBe(0);
    turn.stop();
  });

  it('forgets everything when stopped (the balancer is destroyed)', () => {
    const turn = new PickTurn();
    const load = new EndpointLoad();
    turn.claim(load, 1);
    turn.stop();
    expect(load.picked).toBe(0);
  });
});
