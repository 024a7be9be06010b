/**
 * How far each regime cell's targets are from reach for a client that sees
 * no queue: peak_ewma beside `oracle-static` (oracle-static.ts: each
 * backend's true speed, a weighted round robin over speed^k, the best k per
 * cell and scenario) and beside `oracle` (every queue), on the reference's
 * metric (the mean of per-client p99s, `p99All`) and on the fleet's
 * (`p99AllPooled`, every call in one histogram).
 *
 *   npm run simulate -- --regimes --seed N --json gridN.json --uniform-policies \
 *     'round_robin,peak_ewma,oracle,k4=oracle-static{"exponent":4},k15=oracle-static{"exponent":15},k30=oracle-static{"exponent":30}'
 *   npx tsx scripts/sim/client-bound.ts grid1.json grid2.json ...
 *
 * Grids that also ran `oracle-ready` (oracle-ready.ts: peak_ewma shown only
 * the backends that are healthy; labels "ready", "ready=…" or "r90=…") get a
 * column for it, its best label per cell and scenario, between peak_ewma
 * and oracle-static: the engine's own rule with perfect knowledge of who is
 * slow.
 *
 * Each value is the mean over the files (seeds) given; the bound of a cell
 * is 1.3 × round_robin's s02 (issue 15), ✗ marks a value over it.
 */
import { readFileSync } from 'node:fs';
import { meanRegimes } from './judge-report';
import { RegimeJson } from './regimes';

type Field = 'p99All' | 'p99AllPooled';

const S02 = 's02-steady-identical';
const SICK = ['s01-steady-uneven', 's03-brownout', 's10-node-cpu-contention'];
const STATIC = /^k\d+=?/;
const READY = /^(ready|r\d+)(=|$)/;

export function boundTable(grids: readonly RegimeJson[], field: Field): string {
  // The mean over seeds of each result, as the judge takes it; a policy a seed lacks is left out.
  const means = meanRegimes(grids.map((regimes) => ({ regimes })), field);
  const meanOf = (cell: string, scenario: string, policy: string): number | undefined => means[cell]?.[scenario]?.[policy]?.p99All;
  const first = grids[0];
  const labels = Object.keys(first[Object.keys(first)[0]]?.[S02] ?? {});
  const staticLabels = labels.filter((label) => STATIC.test(label));
  const readyLabels = labels.filter((label) => READY.test(label));
  const fmt = (x: number | undefined, bound: number): string => (x === undefined ? '–' : `${x.toFixed(1)}${x > bound ? ' ✗' : ''}`);
  // The lowest mean among `group` in a cell and scenario, with its label before any "=".
  const bestOf = (group: readonly string[], cell: string, scenario: string, bound: number): string => {
    let best: number | undefined;
    let bestLabel = '';
    for (const label of group) {
      const value = meanOf(cell, scenario, label);
      if (value !== undefined && (best === undefined || value < best)) {
        best = value;
        bestLabel = label.replace(/=.*/, '');
      }
    }
    return `${fmt(best, bound)}${bestLabel ? ` (${bestLabel})` : ''}`;
  };
  const readyHeading = readyLabels.length > 0 ? ' / oracle-ready' : '';
  const lines = [
    `| slots × clients | round_robin s02 (bound) | ${SICK.map((s) => `${s.slice(0, 3)}: peak_ewma${readyHeading} / oracle-static (k) / oracle`).join(' | ')} |`,
    `|---|---|${SICK.map(() => '---').join('|')}|`,
  ];
  for (const cell of Object.keys(first)) {
    const healthy = meanOf(cell, S02, 'round_robin');
    if (healthy === undefined) continue;
    const bound = 1.3 * healthy;
    const columns = SICK.map((scenario) => {
      const peak = fmt(meanOf(cell, scenario, 'peak_ewma'), bound);
      const ready = readyLabels.length > 0 ? ` / ${bestOf(readyLabels, cell, scenario, bound)}` : '';
      return `${peak}${ready} / ${bestOf(staticLabels, cell, scenario, bound)} / ${fmt(meanOf(cell, scenario, 'oracle'), bound)}`;
    });
    lines.push(`| ${cell.replace('x', ' × ')} | ${healthy.toFixed(1)} (${bound.toFixed(1)}) | ${columns.join(' | ')} |`);
  }
  return lines.join('\n');
}

function main(): void {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error('usage: client-bound.ts GRID.json [GRID.json ...] (simulate --regimes --json outputs)');
  const grids = files.map((file) => {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { regimes?: RegimeJson };
    if (json.regimes === undefined) throw new Error(`${file}: no "regimes" (write it with npm run simulate -- --regimes --json ${file})`);
    return json.regimes;
  });
  console.log(`mean over ${files.length} file(s); ✗ over 1.3 × round_robin's s02 of the cell\n`);
  console.log(`p99 over all calls, the mean of per-client p99s (the reference's, the targets'):\n\n${boundTable(grids, 'p99All')}\n`);
  console.log(`p99 over all calls, every client's calls in one histogram:\n\n${boundTable(grids, 'p99AllPooled')}`);
}

if (require.main === module) main();
