/**
 * Hygiene: nothing of ours outlives its channel.
 * - Closing a channel destroys our balancer: it leaves getLoadBalancerStats()
 *   (the registry is the one module-level collection we keep).
 * - A process that used both policies and closed everything exits by itself
 *   (no process.exit): nothing holds the event loop.
 * - src/ starts no timer that is neither unref'd nor cleared: every
 *   setTimeout/setInterval in src/ must be followed by .unref() or carry a
 *   "cleared in destroy()" comment (a guard for future code; today src/ has none).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { getLoadBalancerStats, register, STATS_LABEL_OPTION } from '../../src';
import { callOnce, createProbeClient } from '../../scripts/lib/probe-service';
import { startBackends, stopBackends } from '../support/backends';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

register();

test('closing the channel destroys the balancer: it leaves getLoadBalancerStats()', async () => {
  const backends = await startBackends(2, 'hyg');
  try {
    const target = 'ipv4:' + backends.map((backend) => backend.address).join(',');
    for (const [label, policy] of [
      ['hyg-peak', { peak_ewma_experimental: {} }],
      ['hyg-lr', { least_request_experimental: {} }],
    ] as const) {
      const client = createProbeClient(target, credentials.createInsecure(), {
        'grpc.service_config': JSON.stringify({ loadBalancingConfig: [policy] }),
        [STATS_LABEL_OPTION]: label,
      });
      await callOnce(client, 5_000);
      expect(getLoadBalancerStats().filter((stats) => stats.label === label)).toHaveLength(1);
      client.close();
      expect(getLoadBalancerStats().filter((stats) => stats.label === label)).toHaveLength(0);
    }
  } finally {
    stopBackends(backends);
  }
});

test('a process that used both policies and closed its channels and servers exits by itself', () => {
  const result = spawnSync(
    path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
    [path.join(__dirname, 'support', 'natural-exit.ts')],
    { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, GRPC_VERBOSITY: 'NONE' } },
  );
  expect(result.error).toBeUndefined(); // spawnSync's timeout would set ETIMEDOUT here
  expect(result.status).toBe(0);
  const report = JSON.parse(result.stdout.trim().split('\n').pop()!);
  expect(report.used).toEqual(['least_request_experimental', 'peak_ewma_experimental']);
  expect(report.balancersAfterClose).toBe(0);
});

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Lines of `text` that start a timer neither unref'd nor said to be cleared in destroy() within the next 8 lines. */
function timerOffenders(text: string): string[] {
  const lines = text.split('\n');
  const offenders: string[] = [];
  lines.forEach((line, index) => {
    if (!/\bset(Timeout|Interval)\s*\(/.test(line) || /^\s*(\*|\/\/)/.test(line)) return;
    const statement = lines.slice(index, index + 8).join('\n');
    if (!/\.unref\(\)|cleared in destroy\(\)/.test(statement)) {
      offenders.push(`${index + 1}: ${line.trim()}`);
    }
  });
  return offenders;
}

test('the timer scan flags a bare timer and passes an unref\'d, a cleared or a commented one', () => {
  // src/'s own timers are unref'd (pick-turn's setImmediate is not scanned; the empty-list back-off is grpc-js's),
  // so the scan below has had nothing to flag: it must be able to.
  expect(timerOffenders('const a = 1;\nsetTimeout(f, 5);\n')).toEqual(['2: setTimeout(f, 5);']);
  expect(timerOffenders('this.timer = setInterval(() => tick(), 5);')).toEqual(['1: this.timer = setInterval(() => tick(), 5);']);
  expect(timerOffenders('setTimeout(f, 5).unref();')).toEqual([]);
  expect(timerOffenders('const t = setTimeout(\n  f,\n  5,\n);\nt.unref();')).toEqual([]);
  expect(timerOffenders('this.timer = setInterval(f, 5); // cleared in destroy()')).toEqual([]);
  expect(timerOffenders('// setTimeout(f, 5) would block exit\n * setInterval(f) in a doc comment')).toEqual([]);
});

test('every timer src/ starts is unref\'d or cleared in destroy()', () => {
  const offenders = sourceFiles(path.join(REPO_ROOT, 'src')).flatMap((file) =>
    timerOffenders(fs.readFileSync(file, 'utf8')).map((offender) => `${path.relative(REPO_ROOT, file)}:${offender}`),
  );
  expect(offenders).toEqual([]);
});
