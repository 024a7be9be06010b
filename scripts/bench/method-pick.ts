/**
 * What per-method scoring adds to the pick path: ns per call (pick +
 * onCallStarted + onCallEnded) of peak_ewma with `methodScoring` off and on,
 * side by side, over READY fake subchannels built by grpc-js from service
 * config (fake-channel.ts), every call marked with its method as the
 * `callMarker` interceptor marks it (five methods in turn). Batches of the
 * variants alternate in a shuffled order, so drift hits them alike; the
 * figure is the median of the batch means, in this thread's CPU time
 * (`process.cpuUsage`), so time the process spends preempted on a busy
 * machine does not count.
 *
 *   npx tsx scripts/bench/method-pick.ts [--rounds 40] [--endpoints 10,1000]
 */
import { Metadata } from '@grpc/grpc-js';
import { parseArgs } from 'node:util';
import { register } from '../../src';
import { markedCopy } from '../../src/policy/streaming';
import { buildPicker, pickOnce } from './fake-channel';
import { median, shuffled } from './stats';

const VARIANTS = {
  off: { peak_ewma_experimental: {} },
  work: { peak_ewma_experimental: { methodScoring: 'work' } },
  latency: { peak_ewma_experimental: { methodScoring: 'latency' } },
} as const;
const METHODS = ['/svc.S/Ping', '/svc.S/Get', '/svc.S/List', '/svc.S/Search', '/svc.S/Report'];
const BATCH = 20_000;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' }, endpoints: { type: 'string', default: '10,1000' } } });
  const rounds = Number(values.rounds);
  register();
  const argsByMethod = METHODS.map((method) => ({ metadata: markedCopy(new Metadata(), method, false), extraPickInfo: {} }));
  const trailers = new Metadata();
  for (const endpoints of values.endpoints.split(',').map(Number)) {
    const built = Object.fromEntries(await Promise.all(Object.entries(VARIANTS).map(async ([name, config]) => [name, await buildPicker(config, endpoints)] as const)));
    const means: Record<string, number[]> = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
    let sink: unknown = null;
    for (let round = 0; round < rounds + 5; round++) {
      for (const name of shuffled(Object.keys(VARIANTS))) {
        const { picker } = built[name];
        const start = process.cpuUsage();
        for (let i = 0; i < BATCH; i++) {
          sink = pickOnce(picker, argsByMethod[i % METHODS.length], trailers);
        }
        const used = process.cpuUsage(start);
        if (round >= 5) {
          means[name].push(((used.user + used.system) * 1e3) / BATCH);
        }
      }
    }
    if (sink === null) {
      throw new Error('no subchannel picked');
    }
    const off = median(means.off);
    const line = Object.keys(VARIANTS)
      .map((name) => `${name} ${median(means[name]).toFixed(0)} ns (${(median(means[name]) / off).toFixed(2)}×, +${(median(means[name]) - off).toFixed(0)} ns)`)
      .join(', ');
    console.log(`@${endpoints} endpoints, ${rounds} rounds × ${BATCH} calls: ${line}`);
    Object.values(built).forEach((b) => b.destroy());
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
