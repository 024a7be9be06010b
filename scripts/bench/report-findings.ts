/**
 * The report's plain-language reading of its numbers: the load test's headline, built from
 * the verdicts alone, and what each notable figure means. Every figure in it comes from the results.
 */
import { AggregateRow, regimeOfRun } from './aggregate';
import { clientLabel } from './policies';
import { formatPercent } from './progress';
import { REFERENCE_RESULTS } from '../lib/reference-numbers';
import { behaviourOf, FleetKind, fleetRoles, SINGLE_METHOD } from '../model';
import { offeredLoad, REFERENCE_SCALE, regimeKey } from './scale';
import { scenarioById } from './scenarios';
import { PEAK_EWMA_DEFAULTS } from '../../src/policy/peak-ewma-config';
import { groupName, isLoadVerdict, LoadVerdict, Outcome, pairedRatio, Verdict, WINNER_RULE } from './verdicts';
import type { BenchResults } from './report';
import { likeReference } from './report-regimes';
import { errorCell, shareCell } from './row-cells';

/** The reference's per-client rate for a fleet kind (its 20 pods, 8 clients, 70 %): 1,338 homo, 1,169 het. */
function referencePerClientRps(fleet: FleetKind): number {
  const behaviours = fleetRoles(fleet, 20).map(behaviourOf);
  return offeredLoad(behaviours, SINGLE_METHOD, 8, REFERENCE_SCALE).perClientRps;
}

const OUTCOME_WORDS: readonly [Outcome, string][] = [
  ['win', 'wins'],
  ['tie', 'ties'],
  ['split', 'splits (wins on one criterion, loses on another)'],
  ['loss', 'loses'],
];

/**
 * The load test's headline, one sentence per measure, built from the
 * verdicts alone: every scenario named under "wins" has a win in the
 * verdict table, and every loss there is named here.
 */
export function loadHeadline(loads: readonly LoadVerdict[]): string[] {
  const out: string[] = [];
  const rule =
    `p99 ≥ ${Math.round((1 - WINNER_RULE.p99Ratio) * 100)} % and ≥ ${WINNER_RULE.p99Ms} ms lower, or errors ≥ ${WINNER_RULE.errorPoints * 100} pp and ` +
    `${WINNER_RULE.errorRatio}× lower, or recovery ≥ ${WINNER_RULE.recoveryS} s sooner`;
  for (const [measure, what] of [
    ['reference', `by the reference's winner rule (${rule}), against each of round_robin, least_request and lr+od that ran in the same layout and regime; the worst pair decides`],
    ['allCalls', 'on p99 over all calls (failures at the deadline), by the same p99 rule'],
  ] as const) {
    const mine = loads.filter((v) => v.measure === measure && v.outcome !== null);
    if (mine.length === 0) continue;
    const parts = OUTCOME_WORDS.flatMap(([outcome, word]) => {
      const names = mine.filter((v) => v.outcome === outcome).map((v) => v.name);
      return names.length > 0 ? [`${word} in ${names.join(', ')}`] : [];
    });
    out.push(`- **Load test, ${what}**: peak_ewma ${parts.join('; ')}.`);
    for (const v of mine.filter((x) => x.outcome === 'loss' || x.outcome === 'split')) {
      out.push(`  - ${v.name}: ${v.detail}.`);
    }
  }
  return out;
}

/** How many `verdicts` were met, missed, measured without a decision, and not measured. */
function tally(verdicts: readonly Verdict[]): string {
  const count = (test: (v: Verdict) => boolean): number => verdicts.filter(test).length;
  const unresolved = count((v) => v.met === null && v.unresolved === true);
  return (
    `${count((v) => v.met === true)} met, ${count((v) => v.met === false)} missed, ` +
    `${unresolved > 0 ? `${unresolved} not resolved, ` : ''}${count((v) => v.met === null && v.unresolved !== true)} not measured`
  );
}

/** Plain-language reading of the numbers; every figure in it comes from `results`. */
export function findings(results: BenchResults, rows: readonly AggregateRow[], verdicts: readonly Verdict[], loads: readonly LoadVerdict[]): string[] {
  const out: string[] = [];
  const others = verdicts.filter((v) => !isLoadVerdict(v));
  const count = (outcome: Outcome): number => loads.filter((v) => v.measure === 'reference' && v.outcome === outcome).length;
  if (loads.length > 0) {
    out.push(
      `Load test, by the reference's rule: ${count('win')} wins, ${count('tie')} ties, ${count('split')} splits, ${count('loss')} losses. ` +
        `Other targets: ${tally(others)}.`,
      '',
    );
  } else {
    out.push(`Targets: ${tally(others)}.`, '');
  }
  out.push(...loadHeadline(loads));
  // Slowdowns (not crashes or black holes): where calls sent to the faulty backend wait in its queue.
  const SLOWDOWNS = ['s03', 's06', 's10'];
  for (const peak of rows.filter((r) => r.layout === 'reference' && r.policy === 'peak_ewma' && SLOWDOWNS.includes(r.scenario))) {
    const run = results.load.find((r) => r.scenario === peak.scenario && r.layout === 'reference' && regimeKey(regimeOfRun(r)) === regimeKey(peak.regime));
    if (!run || !(peak.faultyShare > peak.fairShare / 3)) continue;
    const fleet = scenarioById(peak.scenario).fleet;
    const f = peak.regime.timeFactor;
    out.push(
      `- **${groupName(peak.scenario, 'reference', peak.regime)}**: peak_ewma still sent ${shareCell(peak)} of its fault-phase calls to the ` +
        `faulty backend${run.faultyBackends.length > 1 ? 's' : ''} (fair: ${formatPercent(peak.fairShare, 0)}), ` +
        `detection in ${peak.detectS === null ? '–' : peak.detectS.toFixed(0)} timeline s; those calls, queued behind round_robin's traffic at that ` +
        `backend, set its p99. Each client sends ${run.load.perClientRps} calls/s${f === 1 ? '' : ` (${run.load.perClientRps * f} per timeline second)`} ` +
        `(the reference: ${referencePerClientRps(fleet).toLocaleString('en-US')}) over a ${run.timeline.faultEndS - run.timeline.faultStartS} timeline-s fault ` +
        '(the reference: 40 s); the uniform layout, without round_robin\'s queue, shows the policy alone.',
    );
  }
  const crash = rows.find((r) => r.scenario === 's04' && r.layout === 'reference' && r.policy === 'peak_ewma' && likeReference(r.regime));
  const crashRun = crash && results.load.find((r) => r.scenario === 's04' && r.layout === 'reference' && regimeKey(regimeOfRun(r)) === regimeKey(crash.regime));
  if (crash && crashRun) {
    const { probeFairShares: fairShares, maxEjectionMs, decayMs } = PEAK_EWMA_DEFAULTS;
    const backends = crashRun.backendCount;
    // Per timeline second: the time constants scale with the run, so these are the reference's units.
    const rate = crashRun.load.perClientRps * crash.regime.timeFactor;
    out.push(
      `- **s04** (crash loop): peak_ewma's error rate is ${errorCell(crash)} (the reference's: ` +
        `${formatPercent(REFERENCE_RESULTS.s04?.errorRate.peak_ewma ?? NaN)}); it kept sending ${shareCell(crash)} of its ` +
        `fault-phase calls to the pod that fails them at once (fair: ${formatPercent(crash.fairShare, 0)}). Mostly probes: an avoided endpoint is ` +
        `admitted again when its estimate is stale — \`maxEjectionTime\` (${maxEjectionMs / 1000} s) without a sample *and* ${fairShares} fair shares of ` +
        `the client's own calls since (${fairShares} × ${backends} = ${fairShares * backends} calls: ${((fairShares * backends) / rate).toFixed(1)} s at ${rate} calls per timeline second) — or when its ` +
        `estimate has decayed (τ = ${decayMs / 1000} s, both × the time factor here) back near the fleet average, whichever comes first. ` +
        `The reference's clients send ${referencePerClientRps('homo').toLocaleString('en-US')} calls/s, so each probe is a smaller share of their calls.`,
    );
  }
  const rr = results.cpu?.find((r) => r.policy === 'round_robin' && r.backends === 10);
  const pick10 = results.pick?.results.find((r) => r.policy === 'peak_ewma' && r.endpoints === 10);
  const rrPick10 = results.pick?.results.find((r) => r.policy === 'round_robin' && r.endpoints === 10);
  if (pick10 && rrPick10) {
    const share = rr ? ` (${((pick10.meanNs / 1000 / rr.cpuMicrosPerCall) * 100).toFixed(2)} % of the ${rr.cpuMicrosPerCall.toFixed(0)} µs of client CPU a call costs)` : '';
    out.push(
      `- **Pick path**: round_robin's picker does no per-call work: it advances an index and returns its child's ` +
        `pick, with no callbacks (${rrPick10.meanNs.toFixed(0)} ns per call on average at 10 endpoints). A load-aware ` +
        'picker must choose among candidates and account each call\'s start and end (clock reads, the cost model, ' +
        'a result object and two callbacks), so a ratio to round_robin\'s picker of 1.2 is out of reach for any of ' +
        `them. peak_ewma must read the clock three times per call (pick, start, end), and one \`performance.now()\` ` +
        `costs about ${(results.pick!.timerOverheadNs / 2).toFixed(0)} ns on this machine (half the timed pair); ` +
        'least_request reads it never. The absolute cost is what counts: ' +
        `peak_ewma's pick path is ${pick10.meanNs.toFixed(0)} ns per call on ` +
        `average at 10 endpoints${share}. Growth from 10 to 1000 endpoints is memory, not work: each pick touches two ` +
        'random endpoints\' state, which stops fitting in cache.',
    );
  }
  if (results.cpu) {
    const ours = results.cpu.filter((r) => r.policy === 'peak_ewma' || r.policy === 'least_request');
    out.push(
      `- **CPU per RPC**: ${ours.map((r) => `${clientLabel(r.policy)} ${r.ratioToRoundRobin.toFixed(3)}× at ${r.backends}`).join(', ')} ` +
        '(medians of per-round ratios; on this shared machine a round-to-round spread of several % is normal, see ' +
        'the per-round values in the JSON).',
    );
    const xdsRows = results.cpu.filter((r) => r.policy === 'peak_ewma_xds');
    const xdsParts = xdsRows.flatMap((pe) => {
      const rr = results.cpu!.find((r) => r.policy === 'round_robin_xds' && r.backends === pe.backends);
      return rr
        ? [`${pe.backends}: round_robin via xDS ${rr.ratioToRoundRobin.toFixed(3)}× round_robin, peak_ewma via xDS ${pairedRatio(pe, rr).toFixed(3)}× round_robin via xDS`]
        : [];
    });
    if (xdsParts.length > 0) {
      out.push(
        '- **xDS**: grpc-js-xds\'s layers (cds, xds_cluster_impl with its per-call counters, priority, and for ' +
          'round_robin wrr_locality and weighted_target) cost every policy; what this package adds is the ratio of ' +
          `peak_ewma via xDS to round_robin via xDS, each with its own fake control plane (${xdsParts.join('; ')}). ` +
          'The converter runs once per CDS update, never per call.',
      );
    }
  }
  out.push(
    '- **Found on the way** (not in this package): grpc-js 1.14.7 reloads the ORCA .proto on every per-call load ' +
      'report (`loadOrcaProto()` never caches), 60–260 ms of CPU per call on both sides, so weighted_round_robin runs ' +
      'here on out-of-band reports; grpc-js\'s outlier_detection accepts durations only as `{seconds, nanos}` ' +
      'objects, not the proto3 JSON strings ("10s") of gRFC A50\'s examples; grpc-js calls the balancer\'s ' +
      '`exitIdle()` on every call (ours was O(endpoints), ~21 µs per call at 500 endpoints, fixed in 9d7aa58); and ' +
      'tsx (esbuild `keepNames`) adds ~2 µs per call to code with per-call closures, so the benchmarks load a ' +
      'tsc-style build of the package.',
    '',
  );
  return out;
}
