/**
 * Tables for the terminal and the report: one run per policy, the pick path, update time,
 * CPU per RPC, the per-scenario detail and the verdicts, with the cells they share.
 */
import { AggregateRow } from './aggregate';
import type { CpuPerRpcResult } from './cpu-per-rpc';
import type { ScenarioResult } from './loadtest';
import type { PickPathReport } from './pick-path';
import type { UpdateTimeReport } from './update-time';
import { ClientKind, clientLabel, POLICY_LABELS } from './policies';
import { recoveryMeasurable } from '../sim/metrics';
import { formatMs, formatPercent } from './progress';
import { Table } from './tables';
import { allP99Cell, errorCell, p99Cell, shareCell } from './row-cells';
import { isLoadVerdict, Outcome, pairedRatio, Verdict } from './verdicts';

export const policyLabel = clientLabel;

function seconds(value: number | null): string {
  return value === null ? '–' : `${Math.round(value)} s`;
}

/** A recovery cell: "n/m" where the window ended too soon after the fault to measure it (metrics.ts `recoveryMeasurable`). */
function recoveryCell(value: number | null, measurable: boolean): string {
  return measurable ? seconds(value) : 'n/m';
}

/** One run's per-policy table for the terminal. */
export function loadTable(result: ScenarioResult): Table {
  const fault = result.faultyBackends.length > 0;
  return {
    headers: [
      'policy',
      fault ? 'p50 (fault)' : 'p50',
      fault ? 'p99 (fault)' : 'p99',
      'p99.9',
      'p99 all calls',
      'errors',
      ...(fault ? ['detect', 'recover'] : []),
      'CPU µs/call',
      'loop delay p99',
    ],
    rows: result.policies.map((p) => [
      policyLabel(p.policy),
      formatMs(p.headline.okLatency.p50Ms),
      formatMs(p.headline.okLatency.p99Ms),
      formatMs(p.headline.okLatency.p999Ms),
      formatMs(p.headline.allLatency.p99Ms),
      formatPercent(p.headline.errorRate),
      ...(fault ? [seconds(p.detectS), recoveryCell(p.recoverS, recoveryMeasurable(result.timeline))] : []),
      p.cpuMicrosPerCall.toFixed(0),
      formatMs(p.clientLoopDelayMs.p99),
    ]),
  };
}

export function pickTable(report: PickPathReport): Table {
  const counts = Array.from(new Set(report.results.map((r) => r.endpoints)));
  const policies = Array.from(new Set(report.results.map((r) => r.policy)));
  return {
    headers: ['endpoints', ...policies.flatMap((p) => [`${POLICY_LABELS[p]} mean ns`, 'p50', 'p99', 'exitIdle'])],
    rows: counts.map((n) => [
      String(n),
      ...policies.flatMap((p) => {
        const r = report.results.find((x) => x.policy === p && x.endpoints === n);
        return r
          ? [r.meanNs.toFixed(0), String(r.p50Ns), String(r.p99Ns), r.exitIdleNs === undefined ? '–' : r.exitIdleNs.toFixed(0)]
          : ['–', '–', '–', '–'];
      }),
    ]),
  };
}

export function updateTimeTable(report: UpdateTimeReport): Table {
  return {
    headers: ['endpoints', 'policy', 'median ms', '× round_robin'],
    rows: report.results.map((r) => [String(r.endpoints), POLICY_LABELS[r.policy], r.medianMs.toFixed(2), r.vsRoundRobin.toFixed(2)]),
  };
}

export function cpuTable(results: readonly CpuPerRpcResult[]): Table {
  const counts = Array.from(new Set(results.map((r) => r.backends)));
  const policies = Array.from(new Set(results.map((r) => r.policy)));
  const bothXds = policies.includes('peak_ewma_xds') && policies.includes('round_robin_xds');
  return {
    headers: [
      'backends',
      ...policies.map((p) => `${clientLabel(p)} µs/call`),
      ...policies.filter((p) => p !== 'round_robin').map((p) => `${clientLabel(p)} / rr`),
      ...(bothXds ? ['peak_ewma via xDS / round_robin via xDS'] : []),
      'calls/s (rr)',
    ],
    rows: counts.map((n) => {
      const of = (p: ClientKind) => results.find((r) => r.policy === p && r.backends === n);
      return [
        String(n),
        ...policies.map((p) => of(p)?.cpuMicrosPerCall.toFixed(1) ?? '–'),
        ...policies.filter((p) => p !== 'round_robin').map((p) => of(p)?.ratioToRoundRobin.toFixed(3) ?? '–'),
        ...(bothXds ? [xdsRatio(of('peak_ewma_xds'), of('round_robin_xds'))] : []),
        of('round_robin')?.callsPerSecond.toFixed(0) ?? '–',
      ];
    }),
  };
}

function xdsRatio(peakEwma: CpuPerRpcResult | undefined, roundRobin: CpuPerRpcResult | undefined): string {
  return peakEwma && roundRobin ? pairedRatio(peakEwma, roundRobin).toFixed(3) : '–';
}

export function detailTable(rows: readonly AggregateRow[]): Table {
  const faulty = rows.some((r) => Number.isFinite(r.faultyShare));
  return {
    headers: [
      'policy',
      'p50',
      'p99 [95 % CI]',
      'p99.9',
      'p99 all calls [95 % CI]',
      'errors [95 % CI]',
      ...(faulty ? ['share to faulty [95 % CI]', 'detect', 'recover'] : []),
      'client CPU µs/call',
    ],
    rows: rows.map((r) => [
      policyLabel(r.policy),
      formatMs(r.p50Ms),
      p99Cell(r),
      formatMs(r.p999Ms),
      allP99Cell(r),
      errorCell(r),
      ...(faulty ? [`${shareCell(r)} (fair ${formatPercent(r.fairShare, 0)})`, seconds(r.detectS), recoveryCell(r.recoverS, r.recoveryMeasurable)] : []),
      r.cpuMicrosPerCall.toFixed(0),
    ]),
  };
}

const OUTCOME_CELL: Readonly<Record<Outcome, string>> = { win: '**win**', tie: 'tie', split: '**split**', loss: '**loss**' };

export function verdictTable(verdicts: readonly Verdict[]): Table {
  return {
    headers: ['target', 'result', 'numbers'],
    numeric: false,
    rows: verdicts.map((v) => [
      v.target,
      isLoadVerdict(v) && v.outcome !== null ? OUTCOME_CELL[v.outcome] : v.met === null ? (v.unresolved ? 'not resolved' : 'not measured') : v.met ? '**met**' : '**missed**',
      v.detail,
    ]),
  };
}
