import fc from 'fast-check';
import { seededRandom } from '../../src/core/random';
import { ArrivalCalendar } from '../../scripts/sim/arrivals';

/**
 * Fires a calendar until every client is done and returns the (time, client)
 * pairs in firing order. Each client sends `sends` calls; `nextMs` gives the
 * time of a client's next one.
 */
function fireAll(startsMs: readonly number[], sends: number, nextMs: (client: number, nowMs: number, sent: number) => number): Array<[number, number]> {
  const fired: Array<[number, number]> = [];
  const sent = new Array<number>(startsMs.length).fill(0);
  let nowMs = -Infinity;
  const calendar = new ArrivalCalendar(startsMs.length, (client) => {
    fired.push([nowMs, client]);
    sent[client]++;
    return sent[client] < sends ? nextMs(client, nowMs, sent[client]) : Infinity;
  });
  startsMs.forEach((startMs, client) => calendar.add(client, startMs));
  while (calendar.nextMs !== Infinity) {
    nowMs = calendar.nextMs;
    calendar.fire();
  }
  return fired;
}

/** What any correct calendar fires: all sends, by time, ties by client. */
function sortedModel(fired: Array<[number, number]>): Array<[number, number]> {
  return [...fired].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

describe('ArrivalCalendar', () => {
  it('fires fixed-spacing clients in (time, client) order, every send once', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { minLength: 1, maxLength: 40 }), fc.double({ min: 0.01, max: 50, noNaN: true }), (startsMs, periodMs) => {
        const fired = fireAll(startsMs, 25, (client, _nowMs, sent) => startsMs[client] + sent * periodMs);
        expect(fired).toHaveLength(startsMs.length * 25);
        expect(fired).toEqual(sortedModel(fired));
      }),
    );
  });

  it('fires Poisson-spaced clients (any order of next times) in (time, client) order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (clients, seed) => {
        const random = seededRandom(seed);
        const startsMs = Array.from({ length: clients }, () => Math.floor(random() * 8)); // ties are common
        const fired = fireAll(startsMs, 20, (_client, nowMs) => nowMs + Math.floor(random() * 16));
        expect(fired).toHaveLength(clients * 20);
        expect(fired).toEqual(sortedModel(fired));
      }),
    );
  });
});
