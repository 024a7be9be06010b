/**
 * least_request's cost model (gRFC A48): the cost is the number of calls in
 * flight, counted from the pick (A48: "incremented by one after it has been
 * successfully picked by the picker", as grpc-go's leastrequest does), so
 * a call picked and not yet started counts; a finished call teaches
 * nothing. It never reads the clock, so the engine reads none for it
 * (load-model.ts `ignoresTime`).
 */
import { LoadModel } from './load-model';

/** least_request (gRFC A48): the cost is the number of calls in flight. */
export const leastRequestModel: LoadModel = {
  ignoresTime: true,
  ejects: false,
  rate: (load, _nowMs, into) => {
    into.cost = load.committed;
    into.ejected = false;
  },
  cost: (load) => load.committed,
  recordCall: () => {},
};
