/** How a call's final status becomes a latency outcome. */
import * as fs from 'fs';
import * as path from 'path';
import { status } from '@grpc/grpc-js';
import { CallOutcome } from '../../src/core';
import { NOT_THE_ENDPOINT, OUTLASTED_DETAILS, outcomeOfStatus } from '../../src/policy/call-outcome';

describe('outcomeOfStatus', () => {
  it('takes OK and application errors as answers', () => {
    expect(outcomeOfStatus(status.OK, '')).toBe(CallOutcome.SUCCESS);
    expect(outcomeOfStatus(status.NOT_FOUND, 'no such order')).toBe(CallOutcome.SUCCESS);
    expect(outcomeOfStatus(status.INVALID_ARGUMENT, 'bad')).toBe(CallOutcome.SUCCESS);
  });

  it('takes the endpoint failing the call as a failure', () => {
    for (const code of [status.UNAVAILABLE, status.INTERNAL, status.UNKNOWN, status.DATA_LOSS, status.UNIMPLEMENTED]) {
      expect(outcomeOfStatus(code, 'x')).toBe(CallOutcome.FAILURE);
    }
  });

  it("takes the server's RESOURCE_EXHAUSTED as a shed call: a failure, and word that the endpoint is full now", () => {
    // grpcio's maximum_concurrent_rpcs (grpc/_server.py), and HTTP/2 ENHANCE_YOUR_CALM as grpc-js reports it.
    expect(outcomeOfStatus(status.RESOURCE_EXHAUSTED, 'Concurrent RPC limit exceeded!')).toBe(CallOutcome.SHED);
    expect(outcomeOfStatus(status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded')).toBe(CallOutcome.SHED);
    expect(outcomeOfStatus(status.RESOURCE_EXHAUSTED, 'x')).toBe(CallOutcome.SHED);
  });

  it("takes a quota's RESOURCE_EXHAUSTED as a plain failure: the caller's allowance, not the endpoint's capacity", () => {
    expect(outcomeOfStatus(status.RESOURCE_EXHAUSTED, 'Quota exceeded for quota metric "Requests"')).toBe(CallOutcome.FAILURE);
    expect(outcomeOfStatus(status.RESOURCE_EXHAUSTED, 'RATE_LIMIT: per-user QUOTA spent')).toBe(CallOutcome.FAILURE);
  });

  it("takes other servers' message-size limits as no news about the endpoint: every endpoint would refuse that message", () => {
    for (const details of [
      'grpc: received message larger than max (5000000 vs. 4194304)',
      'grpc: received message after decompression larger than max (5000000 vs. 4194304)',
      'grpc: trying to send message larger than max (5000000 vs. 4194304)',
      'gRPC message exceeds maximum size 4194304: 5000000',
      'Sent message larger than max (5000000 vs. 4194304)',
    ]) {
      expect([details, outcomeOfStatus(status.RESOURCE_EXHAUSTED, details)]).toEqual([details, CallOutcome.CANCELLED]);
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

  it('takes a hedge that lost the race as outlasted: not answered by then, a lower bound like a deadline', () => {
    expect(outcomeOfStatus(status.CANCELLED, 'Discarded in favor of other hedged attempt')).toBe(CallOutcome.OUTLASTED);
  });
});

describe('statuses grpc-js produces for the client\'s own decisions', () => {
  it('are no news about the endpoint', () => {
    const cases: [number, string][] = [
      [status.INTERNAL, 'Request message serialization failure: bad field'],
      [status.INTERNAL, 'Response message parsing error: unexpected end'],
      [status.RESOURCE_EXHAUSTED, 'Attempted to send message with a size larger than 4194304'],
      [status.RESOURCE_EXHAUSTED, 'Received message larger than max (5000000 vs 4194304)'],
      [status.RESOURCE_EXHAUSTED, 'Received message that decompresses to a size larger than 4194304'],
      [status.UNAVAILABLE, 'Stream refused by server'],
    ];
    for (const [code, details] of cases) {
      expect([code, details, outcomeOfStatus(code, details)]).toEqual([code, details, CallOutcome.CANCELLED]);
    }
  });

  it('match only their own code: the same words under another code are still the endpoint failing', () => {
    expect(outcomeOfStatus(status.UNAVAILABLE, 'Discarded in favor of other hedged attempt')).toBe(CallOutcome.FAILURE);
    expect(outcomeOfStatus(status.INTERNAL, 'Failed to decompress gzip-encoded message')).toBe(CallOutcome.FAILURE);
    expect(outcomeOfStatus(status.UNAVAILABLE, 'Received message larger than max (5000000 vs 4194304)')).toBe(CallOutcome.FAILURE);
  });

  it('are texts the installed grpc-js really produces (a grpc-js release that rewords one fails here)', () => {
    const buildDir = path.join(path.dirname(require.resolve('@grpc/grpc-js/package.json')), 'build', 'src');
    const sources = fs
      .readdirSync(buildDir)
      .filter((name) => name.endsWith('.js'))
      .map((name) => fs.readFileSync(path.join(buildDir, name), 'utf8'))
      .join('\n');
    for (const prefixes of [...NOT_THE_ENDPOINT.values(), [OUTLASTED_DETAILS]]) {
      for (const prefix of prefixes) {
        expect([prefix, sources.includes(prefix)]).toEqual([prefix, true]);
      }
    }
  });
});
