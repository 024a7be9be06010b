/**
 * The EndpointLoads of endpoints that just left the address list. An
 * endpoint removed and re-added (DNS answering a subset of the pods, EDS
 * churn, an empty answer during a redeploy) must come back with its own
 * record: its calls from before the removal are still running and end on
 * that record, so a fresh one would say outstanding 0 while they run and
 * the endpoint would draw new calls as if idle. A record is kept while any of
 * its calls is in flight, and for `graceMs` after the removal (so a flapping
 * endpoint also keeps its estimate); pruned on every address update.
 */
import { EndpointLoad } from '../core/endpoint-load';

/** How long a removed endpoint's record outlives its last call: a DNS TTL's worth of flapping. */
export const RETIRED_LOAD_GRACE_MS = 30_000;

interface Retired {
  readonly load: EndpointLoad;
  readonly retiredAtMs: number;
}

export class RetiredLoads {
  private readonly entries = new Map<string, Retired>();

  constructor(private readonly graceMs: number = RETIRED_LOAD_GRACE_MS) {}

  retire(key: string, load: EndpointLoad, nowMs: number): void {
    this.entries.set(key, { load, retiredAtMs: nowMs });
  }

  /** The record of `key` if it is still kept (it leaves this store), else undefined. */
  reclaim(key: string, nowMs: number): EndpointLoad | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      return undefined;
    }
    this.entries.delete(key);
    return this.isKept(entry, nowMs) ? entry.load : undefined;
  }

  /** Forgets records that are no longer kept. O(retired). */
  prune(nowMs: number): void {
    for (const [key, entry] of this.entries) {
      if (!this.isKept(entry, nowMs)) {
        this.entries.delete(key);
      }
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private isKept(entry: Retired, nowMs: number): boolean {
    return entry.load.outstanding > 0 || nowMs - entry.retiredAtMs < this.graceMs;
  }
}
