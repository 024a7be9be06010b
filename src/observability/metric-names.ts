/**
 * The metrics the hook reports, named in the style of gRFC A78's per-policy
 * metrics (`grpc.lb.wrr.*`, `grpc.lb.pick_first.*`): `grpc.lb.<policy>.<what>`.
 * One series per endpoint; attributes in METRIC_ATTRIBUTES.
 */
import { PickPathName } from '../core/pick-paths';
import { BalancerStats, EndpointStats, MethodStatsView } from '../policy/stats';
import { InstrumentOptions } from './meter';

/** The attribute keys every observation carries. */
export const METRIC_ATTRIBUTES = {
  /**
   * The channel's `grpc-js-peak-ewma.stats_label` option ('' if unset). A
   * balancer cannot see its channel's target, so this stands in for A78's
   * `grpc.target`: set it per channel.
   */
  label: 'grpc.lb.label',
  /** The endpoint's addresses, comma-separated (`127.0.0.1:50051`). */
  endpoint: 'grpc.lb.endpoint',
  /** The policy's registered name, e.g. `peak_ewma_experimental`. */
  policy: 'grpc.lb.policy',
  /**
   * The balancer's `instanceId`. Two balancers can serve the same label and
   * endpoint at once (grpc-js-xds keeps a replaced priority child for a
   * while; a policy change builds a new balancer before dropping the old);
   * this keeps their series apart. Aggregate it away in dashboards.
   */
  instance: 'grpc.lb.instance',
  /**
   * The method path, on the per-method series only (METHOD_METRIC_SPECS,
   * with `methodScoring` on): at most STATS_MAX_METHODS per balancer.
   */
  method: 'grpc.lb.method',
  /**
   * How a pick was made (core/pick-paths.ts: `turn`, `challenged`, `refused`,
   * `ejected`, `drawn`, `slowStart`), on PICKS_METRIC only.
   */
  pickPath: 'grpc.lb.pick_path',
} as const;

/** One instrument: its name, kind, and how to read its value from an endpoint's (or a method's) stats. */
export interface MetricSpec<T = EndpointStats> {
  /** The instrument's name, `grpc.lb.<policy>.<what>`. */
  readonly name: string;
  /** An observable gauge (a value now) or an observable counter (a cumulative total). */
  readonly kind: 'gauge' | 'counter';
  /** Unit (UCUM) and description, as the instrument is created with. */
  readonly options: Required<InstrumentOptions>;
  /** The value to report, or null to report nothing for this endpoint (method). */
  readonly read: (stats: T) => number | null;
}

const callsStarted = (prefix: string): MetricSpec => ({
  name: `${prefix}.calls_started`,
  kind: 'counter',
  options: {
    unit: '{call}',
    description:
      'Calls started on the endpoint since it joined the balancer (cumulative; restarts at 0 if the endpoint leaves and rejoins). Its rate over all endpoints gives the share of picks.',
  },
  read: (endpoint) => endpoint.callsStarted,
});

const outstanding = (prefix: string, what: string): MetricSpec => ({
  name: `${prefix}.outstanding_calls`,
  kind: 'gauge',
  options: { unit: '{call}', description: `Calls in flight on the endpoint (${what}).` },
  read: (endpoint) => endpoint.outstanding,
});

/** Every metric, by policy name. */
export const METRIC_SPECS: Readonly<Record<string, readonly MetricSpec[]>> = {
  peak_ewma_experimental: [
    {
      name: 'grpc.lb.peak_ewma.rtt_estimate',
      kind: 'gauge',
      options: {
        unit: 'ms',
        description: "The endpoint's peak-EWMA round-trip-time estimate now (defaultRtt before its first sample).",
      },
      read: (endpoint) => endpoint.estimateMs,
    },
    {
      name: 'grpc.lb.peak_ewma.cost',
      kind: 'gauge',
      options: {
        unit: 'ms',
        description:
          'The cost a pick compares: rtt_estimate x (outstanding_calls + 1), the estimate raised while calls wait without an answer and, while fresh, to at least the mean answer, and multiplied by (estimate / fleet_rtt)^fleetPenaltyExponent above fleet_rtt; 0 with no sample yet and nothing in flight, penaltyValue + outstanding_calls with calls in flight and no sample yet (a pick counts from the pick, so within one event-loop tick the cost also counts calls picked and not yet started). Lower wins.',
      },
      read: (endpoint) => endpoint.cost,
    },
    outstanding('grpc.lb.peak_ewma', 'streams marked by streamingCallMarker are not counted'),
    callsStarted('grpc.lb.peak_ewma'),
    {
      name: 'grpc.lb.peak_ewma.sample_age',
      kind: 'gauge',
      options: {
        unit: 'ms',
        description: "Time since the endpoint's last RTT sample; not reported before the first one.",
      },
      read: (endpoint) => endpoint.msSinceLastSample,
    },
    {
      name: 'grpc.lb.peak_ewma.ejected',
      kind: 'gauge',
      options: {
        unit: '{endpoint}',
        description:
          '1 while picks skip the endpoint for its latency (judged above the ejection line, grpc.lb.peak_ewma.ejection_line), else 0. Summed over a balancer: how many are out.',
      },
      read: (endpoint) => (endpoint.ejected ? 1 : 0),
    },
  ],
  least_request_experimental: [
    outstanding('grpc.lb.least_request', 'streams included, as gRFC A48 counts them; the cost, with the calls picked in the same event-loop tick that have not started yet'),
    callsStarted('grpc.lb.least_request'),
  ],
};

/**
 * Per-method series, for balancers with per-method scoring on: one per
 * method among the balancer's STATS_MAX_METHODS most called, attributes as
 * above without `grpc.lb.endpoint`, with `grpc.lb.method`.
 */
export const METHOD_METRIC_SPECS: readonly MetricSpec<MethodStatsView>[] = [
  {
    name: 'grpc.lb.peak_ewma.method_calls',
    kind: 'counter',
    options: { unit: '{call}', description: 'Calls started for the method since the balancer began tracking it (cumulative).' },
    read: (method) => method.calls,
  },
  {
    name: 'grpc.lb.peak_ewma.method_baseline',
    kind: 'gauge',
    options: {
      unit: 'ms',
      description: "The method's fleet average latency (successful calls, all endpoints), which its samples are judged against.",
    },
    read: (method) => method.baselineMs,
  },
];

/**
 * Per-balancer series (attributes as above without `grpc.lb.endpoint`), for
 * the policies in PICKS_POLICIES: what each endpoint's estimate and
 * `ejected` are judged against.
 */
export const BALANCER_METRIC_SPECS: readonly MetricSpec<BalancerStats>[] = [
  {
    name: 'grpc.lb.peak_ewma.fleet_rtt',
    kind: 'gauge',
    options: {
      unit: 'ms',
      description: "The balancer's fleet average latency (successful calls, all endpoints), which estimates and the ejection line are relative to; not reported before the first answer.",
    },
    read: (stats) => stats.fleetRttMs,
  },
  {
    name: 'grpc.lb.peak_ewma.ejection_line',
    kind: 'gauge',
    options: {
      unit: 'ms',
      description:
        'Endpoints judged above this are ejected (skipped by picks): ejectionRatio x fleet_rtt, or higher while more than max_ejected endpoints are over that. Not reported with ejection off or before the first answer.',
    },
    read: (stats) => stats.ejectionLineMs,
  },
  {
    name: 'grpc.lb.peak_ewma.max_ejected',
    kind: 'gauge',
    options: {
      unit: '{endpoint}',
      description: 'How many endpoints may be ejected at once (maxEjectionPercent of the READY endpoints, at least 1). Not reported when nothing bounds it (maxEjectionPercent 100, ejection off).',
    },
    read: (stats) => stats.maxEjected,
  },
];

/** One pick path of a balancer and its count, as PICKS_METRIC reads it. */
export interface PickPathView {
  readonly path: PickPathName;
  readonly count: number;
}

/**
 * One series per balancer and pick path (attribute `grpc.lb.pick_path`),
 * for the policies in PICKS_POLICIES. Mostly `turn` on a healthy fleet;
 * `refused` is the rotation's gate keeping slow endpoints out.
 */
export const PICKS_METRIC: MetricSpec<PickPathView> = {
  name: 'grpc.lb.peak_ewma.picks',
  kind: 'counter',
  options: {
    unit: '{pick}',
    description:
      "The balancer's picks since it began, by how each was made (grpc.lb.pick_path): a rotation turn, a challenger under the margin, a turn the gate refused, an ejected incumbent, a draw without a rotation, or a turn slow start gave a warming pod the gate refused (cumulative).",
  },
  read: (view) => view.count,
};

/** The policies PICKS_METRIC and BALANCER_METRIC_SPECS report: peak_ewma only, since least_request draws every pick and judges no latency. */
export const PICKS_POLICIES: ReadonlySet<string> = new Set(['peak_ewma_experimental']);
