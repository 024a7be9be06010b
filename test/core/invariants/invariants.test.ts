/**
 * What the engine promises, checked at every pick and every call's end over
 * random fleets and histories (harness.ts, scenarios.ts) under the defaults
 * and twelve other configurations: property tests with fixed seeds, so a
 * run is exact and repeatable. A failure names the configuration, the kind
 * of promise broken, the pick and what was seen; fast-check shrinks the
 * history first.
 */
import fc from 'fast-check';
import { run, VARIANTS } from './harness';
import { scenario } from './scenarios';

/** Random histories per property: enough to find §52's defect within its first 100. */
const RUNS = 150;

function holds(kinds: string[], seed: number, options: { zeroMs?: boolean } = {}): void {
  const wanted = new Set(kinds);
  fc.assert(
    fc.property(scenario({ zeroMs: options.zeroMs }), (history) => {
      const broken = run(history, { checks: true, kinds: wanted }).violations.filter((violation) => wanted.has(violation.kind));
      if (broken.length > 0) {
        throw new Error(`${VARIANTS[history.variant][0]}: ${broken[0].kind} at pick ${broken[0].pick}: ${broken[0].detail}`);
      }
    }),
    { numRuns: RUNS, seed },
  );
}

describe('the engine, over random fleets and histories', () => {
  it('returns a valid index for n ≥ 1 and -1 for n = 0, and counts one pick path per pick', () => {
    holds(['index', 'pick-paths-count', 'refusal-count'], 101);
  });

  it("keeps its counts equal to the calls: outstanding, picked, their work and each method's in flight never negative, and 0 once every call ended and every pick was forgotten", () => {
    holds(['count-negative', 'count-outstanding', 'count-picked', 'count-work-leak', 'count-pickedwork-leak', 'count-method', 'leak-at-end', 'leak-method'], 102);
  });

  it('prices every endpoint at a finite cost ≥ 0, and rate() says what cost() says', () => {
    holds(['cost-finite', 'rate-vs-cost', 'estimate-finite'], 103);
  });

  it('keeps costs finite when answers take 0 ms on the clock (the fleet average 0: no ratio to it)', () => {
    holds(['cost-finite'], 204, { zeroMs: true });
  });

  it('decides the same whether costs were read between picks or not: reads have no side effects', () => {
    fc.assert(
      fc.property(scenario(), (history) => {
        expect(run(history, { checks: false }).picks).toEqual(run(history, { checks: true }).picks);
      }),
      { numRuns: 60, seed: 104 },
    );
  });

  it('chooses an ejected endpoint only when every other candidate drawn is ejected or a dearer one being probed, and one being probed only when no priced candidate drawn is as cheap, after 2d draws (§53)', () => {
    holds(['ejected-chosen-over-drawn', 'ejected-with-few-draws', 'probing-rating'], 105);
  });

  it('never ejects an idle stale endpoint, and ejects none past maxEjectionTime and K × maxProbeBackoff fair shares', () => {
    holds(['stale-ejected', 'ejected-past-bound'], 106);
  });

  it('with the rotation, picks an idle endpoint that has not answered, or is stale, within 10n + 10 picks', () => {
    holds(['starved-new', 'starved-stale'], 107);
  });

  it('never lowers an estimate on a failure, a shed, a deadline or a lost hedge (errorPenaltyFactor > 1)', () => {
    holds(['failure-lowers-estimate'], 108);
  });

  it("gives no rotation turn to an incumbent with this client's call in flight once it and the fleet have answered", () => {
    holds(['gate-in-flight'], 109);
  });

  it('gives an endpoint being probed (no answer yet, or stale, with a call out) no rotation turn while a priced endpoint is READY (§52)', () => {
    holds(['probe2-turn'], 201);
  });
});
