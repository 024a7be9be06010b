/**
 * least_request's cost model (gRFC A48): the cost is the number of calls in
 * flight, and a finished call teaches nothing. It never reads the clock, so
 * the engine reads none for it (load-model.ts `ignoresTime`).
 */
import { LoadModel } from './load-model';

/** least_request (gRFC A48): the cost is the number of calls in flight. */
export const leastRequestModel: LoadModel = {
  ignoresTime: true,
  ejects: false,
  rate: (load, _nowMs, into) => {
    into.cost = load.outstanding;
    into.ejected = false;
  },
  cost: (load) => load.outstanding,
  recordCall: () => {},
};
