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
  const started = Date.now();
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
  expect(Date.now() - started).toBeLessThan(30_000);
});

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('every timer src/ starts is unref\'d or cleared in destroy()', () => {
  const offenders: string[] = [];
  for (const file of sourceFiles(path.join(REPO_ROOT, 'src'))) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (!/\bset(Timeout|Interval)\s*\(/.test(line) || /^\s*(\*|\/\/)/.test(line)) return;
      const statement = lines.slice(index, index + 8).join('\n');
      if (!/\.unref\(\)|cleared in destroy\(\)/.test(statement)) {
        offenders.push(`${path.relative(REPO_ROOT, file)}:${index + 1}: ${line.trim()}`);
      }
    });
  }
  expect(offenders).toEqual([]);
});
