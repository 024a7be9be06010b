/**
 * Picks that have not started their call yet, counted until the end of the
 * event-loop turn.
 *
 * grpc-js starts a call (and calls the pick's onCallStarted) only after the
 * call credentials' promise settles: a promise turn after the pick at the
 * earliest. A fan-out placed in one tick (`Promise.all(ids.map(get))`) is
 * therefore picked whole before any of its calls counts as in flight, and
 * every pick saw the endpoints as the first did: a new endpoint, free while
 * idle, took 14 of a 20-call burst that round_robin would have given 5, and
 * least_request compared counts that its own picks had already made stale.
 * A48 counts a call from its pick ("incremented by one after it has been
 * successfully picked by the picker"), so each pick here counts at once on
 * its endpoint (EndpointLoad `picked`) and moves to `outstanding` when its
 * call starts.
 *
 * Counting from the pick alone would leak: grpc-js drops some picks without
 * a callback (the call ended while credentials were generated, the
 * subchannel left READY meanwhile and the call was picked again, the stream
 * could not be created). So the picks still waiting are forgotten when the
 * turn ends (setImmediate, unref'd): by then every call picked in the turn
 * whose credentials were at hand has started. A call whose credentials take
 * longer (a token fetch) counts from its start, as every call did before.
 */
import { EndpointLoad } from '../core/endpoint-load';

export class PickTurn {
  /** Which turn a claim was made in: a claim of an earlier turn was already forgotten. */
  private turn = 0;
  /** The endpoints picked this turn, each once: a synchronous loop of a million calls holds one entry per endpoint. */
  private readonly claimed = new Set<EndpointLoad>();
  private immediate: NodeJS.Immediate | null = null;
  private readonly endTurn = (): void => {
    this.immediate = null;
    this.forgetAll();
  };

  /** A pick chose `load` for a call weighing `callWeight`; returns the turn, for `started`. */
  claim(load: EndpointLoad, callWeight: number): number {
    load.callPicked(callWeight);
    this.claimed.add(load);
    if (this.immediate === null) {
      this.immediate = setImmediate(this.endTurn);
      this.immediate.unref();
    }
    return this.turn;
  }

  /** The call claimed in `turn` started: its pick no longer counts apart (the engine counts the call). */
  started(load: EndpointLoad, callWeight: number, turn: number): void {
    if (turn === this.turn) {
      load.pickSettled(callWeight);
    }
  }

  /** The balancer is going away: nothing more to forget later. */
  stop(): void {
    if (this.immediate !== null) {
      clearImmediate(this.immediate);
      this.immediate = null;
    }
    this.forgetAll();
  }

  private forgetAll(): void {
    for (const load of this.claimed) {
      load.forgetPicks();
    }
    this.claimed.clear();
    this.turn++;
  }
}
