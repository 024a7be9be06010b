/**
 * Markdown tables for docs/simulation.md from `npm run simulate -- --json`
 * files, beside the reference's published numbers
 * (results/cluster-2026-10-05-fixes, reference-load-test.md §6).
 *
 *   npx tsx scripts/sim/doc-tables.ts --full FILE [--textbook FILE] [--recommended FILE]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { REFERENCE_RECOVERY_S, REFERENCE_RESULTS, ReferenceRow } from '../lib/reference-numbers';
import { PolicyResult } from './results';
import { HERD_SCENARIOS, SuiteJson } from './report';
import { REFERENCE_POLICIES } from './suite';

/** The reference's published numbers for a scenario (keyed by its sNN prefix), if it published any. */
function publishedFor(scenario: string): ReferenceRow | undefined {
  return REFERENCE_RESULTS[scenario.slice(0, 3)];
}

/** Published p99 and error rate (%) of the i-th reference-layout group (REFERENCE_POLICIES order). */
function publishedGroup(published: ReferenceRow, i: number): { p99: number; errorPercent: number } {
  const policy = REFERENCE_POLICIES[i];
  return { p99: published.p99Ms[policy], errorPercent: published.errorRate[policy] * 100 };
}

/** Published recovery (s) of the i-th reference-layout group, where published. */
function publishedRecovery(scenario: string, i: number): number | undefined {
  const policy = REFERENCE_POLICIES[i];
  const recovery = REFERENCE_RECOVERY_S[scenario.slice(0, 3)];
  return recovery && (policy === 'peak_ewma' || policy === 'least_request') ? recovery[policy] : undefined;
}

const { values } = parseArgs({
  options: { full: { type: 'string' }, textbook: { type: 'string' }, recommended: { type: 'string' } },
});
const load = (file?: string): SuiteJson | undefined => (file ? (JSON.parse(readFileSync(file, 'utf8')) as SuiteJson) : undefined);
const full = load(values.full)!;
const textbook = load(values.textbook);
const recommended = load(values.recommended);

const f = (x: number | null | undefined, d = 1): string => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
const pct = (x: number): string => `${(x * 100).toFixed(x < 0.001 && x > 0 ? 3 : 2)}`;
const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
const header = (cells: string[]): string => `${row(cells)}\n${row(cells.map(() => '---'))}`;

/** The policy-under-test's result in a reference-layout scenario (second group). */
function underTest(policies: Record<string, PolicyResult>): PolicyResult {
  return Object.values(policies)[1];
}

function referenceTable(): string {
  const lines = [
    header(['scenario', 'policy', 'published p99', 'ours p99', 'published ÷ s02', 'ours ÷ s02', 'published err %', 'ours err %', 'ours p99All']),
  ];
  const ours = full.reference.scenarios;
  const publishedS02 = publishedFor('s02')!;
  for (const [scenario, policies] of Object.entries(ours)) {
    const published = publishedFor(scenario);
    if (!published) continue;
    const results = Object.values(policies);
    const s02 = Object.values(ours['s02-steady-identical'] ?? {});
    results.forEach((r, i) => {
      const group = publishedGroup(published, i);
      lines.push(
        row([
          scenario,
          i === 1 ? `peak_ewma (${r.policy})` : r.policy,
          f(group.p99),
          f(r.p99),
          f(group.p99 / publishedGroup(publishedS02, i).p99, 2),
          s02[i] ? f(r.p99 / s02[i].p99, 2) : '–',
          f(group.errorPercent, 2),
          pct(r.errorRate),
          f(r.p99All),
        ]),
      );
    });
  }
  return lines.join('\n');
}

function textbookTable(): string {
  if (!textbook) return '';
  const lines = [header(['scenario', 'textbook peak p99', 'its ÷ s02', 'RR', 'LR', 'lr_od', 'published RR', 'published LR', 'published lr_od'])];
  const ours = textbook.reference.scenarios;
  const s02 = underTest(ours['s02-steady-identical']).p99;
  for (const [scenario, policies] of Object.entries(ours)) {
    const published = publishedFor(scenario);
    if (!published) continue;
    const [rr, peak, lr, od] = Object.values(policies);
    const { round_robin: pubRr, least_request: pubLr, lr_od: pubOd } = published.p99Ms;
    lines.push(row([scenario, f(peak.p99), f(peak.p99 / s02, 2), f(rr.p99), f(lr.p99), f(od.p99), f(pubRr), f(pubLr), f(pubOd)]));
  }
  return lines.join('\n');
}

function allScenarios(json: SuiteJson, layout: 'reference' | 'uniform'): string {
  const byScenario = layout === 'reference' ? json.reference.scenarios : json.scenarios;
  const names = Object.keys(
    Object.values(byScenario).find((p) => Object.keys(p).length > 1) ?? Object.values(byScenario)[0] ?? {},
  );
  const lines = [header(['scenario', ...names.map((n) => `${n} p99 / p99All`), 'err % (policy under test)'])];
  for (const [scenario, policies] of Object.entries(byScenario)) {
    if (HERD_SCENARIOS.includes(scenario) || scenario === 'fast-fail') continue;
    const all = Object.values(policies);
    const peak = policies['peak_ewma'] ?? (layout === 'reference' ? underTest(policies) : all[0]);
    lines.push(
      row([scenario, ...names.map((n) => (policies[n] ? `${f(policies[n].p99)} / ${f(policies[n].p99All)}` : '–')), pct(peak.errorRate)]),
    );
  }
  return lines.join('\n');
}

function recoveryTable(): string {
  const lines = [header(['scenario', 'policy', 'detect s', 'recover s', 'published recover s'])];
  for (const scenario of ['s03-brownout', 's04-crashloop', 's05-blackhole', 's06-gc-pause', 's10-node-cpu-contention']) {
    const policies = full.reference.scenarios[scenario];
    if (!policies) continue;
    Object.values(policies).forEach((r, i) => {
      lines.push(row([scenario, r.policy, f(r.detectionSeconds, 0), f(r.recoverySeconds, 0), f(publishedRecovery(scenario, i), 0)]));
    });
  }
  return lines.join('\n');
}

function herdTable(): string {
  const herd = full.scenarios['herd'];
  if (!herd) return '';
  const lines = [header(['policy', 'fresh pod joins: 1st s / fair', 'peak 100 ms / fair', 'pod restarts cold: 1st s / fair', 'peak 100 ms / fair', 'busiest healthy p95 / fair', 'p99'])];
  for (const [policy, r] of Object.entries(herd)) {
    const [join, restart] = r.fresh ?? [];
    lines.push(row([policy, f(join?.firstSecond, 2), f(join?.peakBin, 2), f(restart?.firstSecond, 2), f(restart?.peakBin, 2), f(r.busiestHealthy.p95, 2), f(r.p99)]));
  }
  return lines.join('\n');
}

function fastFailTable(json: SuiteJson): string {
  const ff = json.scenarios['fast-fail'];
  if (!ff) return '';
  const lines = [header(['policy', 'errors % (fault window)', 'p99All', 'share of pod 0 / fair', 'recover s'])];
  for (const [policy, r] of Object.entries(ff)) {
    lines.push(row([policy, pct(r.errorRate), f(r.p99All), f(r.share[0] * 20, 3), f(r.recoverySeconds, 0)]));
  }
  return lines.join('\n');
}

function gridTable(): string {
  const cells = Object.keys(full.grid);
  if (cells.length === 0) return '';
  const policies = Object.keys(full.grid[cells[0]]);
  const lines = [header(['backends × load', ...policies.map((p) => `${p} p99 (err %)`)])];
  for (const cell of cells) {
    lines.push(row([cell.replace('x', ' × ') + ' %', ...policies.map((p) => `${f(full.grid[cell][p].p99)} (${pct(full.grid[cell][p].errorRate)})`)]));
  }
  return lines.join('\n');
}

function scaleTable(): string {
  const lines = [header(['policy', 'p50', 'p99', 'p99.9', 'p99All', 'err %', 'busiest healthy p95'])];
  for (const [policy, r] of Object.entries(full.scale)) {
    lines.push(row([policy, f(r.p50), f(r.p99), f(r.p999), f(r.p99All), pct(r.errorRate), f(r.busiestHealthy.p95, 2)]));
  }
  return lines.join('\n');
}

/** The targets for the policy under test, met or not, from one suite JSON. */
function targetsTable(json: SuiteJson, label: string, baselines: SuiteJson = json): string {
  const lines = [header(['target', 'value', 'met'])];
  const add = (target: string, value: number | null, limit: number, text: string): void => {
    // NaN (a p99.9 from too few calls, percentile-rules.ts): not measured, neither met nor missed.
    const verdict = value !== null && Number.isNaN(value) ? 'n/m' : value !== null && value <= limit ? 'yes' : 'no';
    lines.push(row([target, text, verdict]));
  };
  const ref = json.reference.scenarios;
  const put = (scenario: string): PolicyResult | undefined => (ref[scenario] ? underTest(ref[scenario]) : undefined);
  const s02 = put('s02-steady-identical');
  if (s02) {
    for (const [scenario, limit] of [['s01-steady-uneven', 1.2], ['s10-node-cpu-contention', 1.1], ['s03-brownout', 1.02]] as const) {
      const r = put(scenario);
      if (r) add(`reference: ${scenario} p99 ≤ ${limit} × s02`, r.p99 / s02.p99, limit, `${f(r.p99)} / ${f(s02.p99)} = ${f(r.p99 / s02.p99, 3)}`);
    }
  }
  const s01 = ref['s01-steady-uneven'];
  if (s01) {
    const peak = underTest(s01);
    const od = s01['lr_od'];
    add('reference: s01 p99.9 ≤ ½ lr_od p99.9', (peak.p999 ?? NaN) / (od.p999 ?? NaN), 0.5, `${f(peak.p999)} vs ${f(od.p999)} (${f(peak.p999 / od.p999, 2)}×)`);
  }
  for (const scenario of ['s03-brownout', 's04-crashloop', 's10-node-cpu-contention']) {
    const r = put(scenario);
    if (r) add(`reference: ${scenario} recovery ≤ 4 s`, r.recoverySeconds, 4, `${f(r.recoverySeconds, 0)} s`);
  }
  const s04 = put('s04-crashloop');
  if (s04) add('reference: s04 errors ≤ 0.1 %', s04.errorRate, 0.001, `${pct(s04.errorRate)} %`);
  const uni = json.scenarios;
  const mine = (scenario: string): PolicyResult | undefined => uni[scenario]?.[label];
  const u02 = mine('s02-steady-identical');
  if (u02) {
    for (const scenario of ['s01-steady-uneven', 's10-node-cpu-contention']) {
      const r = mine(scenario);
      if (!r) continue;
      add(`uniform: ${scenario} p99 ≤ 1.3 × s02`, r.p99 / u02.p99, 1.3, `${f(r.p99)} / ${f(u02.p99)} = ${f(r.p99 / u02.p99, 3)}`);
      add(`uniform: ${scenario} p99All ≤ 1.3 × s02`, r.p99All / u02.p99All, 1.3, `${f(r.p99All)} / ${f(u02.p99All)} = ${f(r.p99All / u02.p99All, 3)}`);
    }
  }
  const behind: string[] = [];
  let compared = 0;
  for (const [scenario, policies] of Object.entries(uni)) {
    const r = policies[label];
    if (!r) continue;
    for (const baseline of ['round_robin', 'least_request', 'lr_od']) {
      const b = policies[baseline] ?? baselines.scenarios[scenario]?.[baseline];
      if (!b) continue;
      compared++;
      // Ahead = lower p99 over all calls; a tie within 1 % counts as not behind (identical fleets).
      if (r.p99All > b.p99All * 1.01) behind.push(`${scenario} vs ${baseline}: ${f(r.p99All)} > ${f(b.p99All)}`);
    }
  }
  if (compared > 0) {
    lines.push(row(['uniform: p99All ahead of (or within 1 % of) every non-oracle baseline', behind.length === 0 ? `all ${compared} comparisons` : behind.join('; '), behind.length === 0 ? 'yes' : 'no']));
  }
  const herd = uni['herd']?.[label];
  if (herd?.fresh) {
    const worstFresh = Math.max(...herd.fresh.map((e) => e.firstSecond));
    add('herd: fresh backend ≤ 2 × fair in its first second', worstFresh, 2, `${f(worstFresh, 2)}×`);
    add('herd: busiest healthy ≤ 1.3 × fair (p95 of seconds)', herd.busiestHealthy.p95, 1.3, `${f(herd.busiestHealthy.p95, 2)}×`);
  }
  return lines.join('\n');
}

const sections: Array<[string, string]> = [
  ['Targets (product defaults)', targetsTable(full, 'peak_ewma')],
  ['Reference layout vs published', referenceTable()],
  ['Reference layout with the textbook peak EWMA (calibration)', textbookTable()],
  ['Reference layout, all scenarios', allScenarios(full, 'reference')],
  ['Detection and recovery', recoveryTable()],
  ['Uniform layout, all scenarios', allScenarios(full, 'uniform')],
  ['Herd', herdTable()],
  ['Fast-fail', fastFailTable(full)],
  ['Sensitivity grid', gridTable()],
  ['Scale', scaleTable()],
];
if (recommended) {
  sections.push(['Targets (recommended config; uniform baselines from the --full run, same seed)', targetsTable(recommended, 'recommended', full)]);
  sections.push(['Recommended config, reference layout', allScenarios(recommended, 'reference')]);
  sections.push(['Recommended config, uniform layout', allScenarios(recommended, 'uniform')]);
}
for (const [title, body] of sections) {
  if (body) console.log(`\n### ${title}\n\n${body}`);
}
