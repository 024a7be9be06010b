/** How a call's final status becomes a latency outcome. */
import { status } from '@grpc/grpc-js';
import { CallOutcome } from '../../src/core';
import { outcomeOfStatus } from '../../src/policy/call-outcome';

describe('outcomeOfStatus', () => {
  it('takes OK and application errors as answers', () => {
    expect(outcomeOfStatus(status.OK, '')).toBe(CallOutcome.SUCCESS);
    expect(outcomeOfStatus(status.NOT_FOUND, 'no such order')).toBe(CallOutcome.SUCCESS);
    expect(outcomeOfStatus(status.INVALID_ARGUMENT, 'bad')).toBe(CallOutcome.SUCCESS);
  });

  it('takes the endpoint failing the call as a failure', () => {
    for (const code of [status.UNAVAILABLE, status.INTERNAL, status.UNKNOWN, status.DATA_LOSS, status.RESOURCE_EXHAUSTED, status.UNIMPLEMENTED]) {
      expect(outcomeOfStatus(code, 'x')).toBe(CallOutcome.FAILURE);
    }
  });

  it('tells a deadline from a cancel', () => {
    expect(outcomeOfStatus(status.DEADLINE_EXCEEDED, 'Deadline exceeded after 0.3s')).toBe(CallOutcome.DEADLINE_EXCEEDED);
  });

  it('takes a client cancel as no news, and a server-side reset (same code) as a failure', () => {
    expect(outcomeOfStatus(status.CANCELLED, 'Cancelled on client')).toBe(CallOutcome.CANCELLED);
    expect(outcomeOfStatus(status.CANCELLED, 'Cancelled by parent call')).toBe(CallOutcome.CANCELLED);
    expect(outcomeOfStatus(status.CANCELLED, 'Call cancelled')).toBe(CallOutcome.FAILURE);
  });
});
