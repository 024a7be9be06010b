/**
 * round_robin as grpc-js runs it: cycle through the READY endpoints, from a
 * random starting point whenever the list changes.
 */
import { RandomSource } from '../../src/core/random';
import { ClientPolicy } from './client-policy';

export class RoundRobinPolicy implements ClientPolicy {
  private ready: readonly number[] = [];
  private next = 0;

  constructor(private readonly random: RandomSource) {}

  setReady(backendIds: readonly number[]): void {
    this.ready = backendIds.slice();
    this.next = Math.floor(this.random() * backendIds.length);
  }

  pick(): number {
    const count = this.ready.length;
    if (count === 0) {
      return -1;
    }
    if (this.next >= count) {
      this.next = 0;
    }
    return this.ready[this.next++];
  }

  started(): number {
    return 0;
  }

  ended(): void {}
}
