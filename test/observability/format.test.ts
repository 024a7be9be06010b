/** The text view of a stats snapshot. */
import { BalancerStats, formatLoadBalancerStats } from '../../src';
import { registerStatsSource, unregisterStatsSource } from '../../src/policy/stats';

const snapshot: BalancerStats[] = [
  {
    instanceId: 1,
    policy: 'peak_ewma_experimental',
    label: 'orders',
    state: 'READY',
    config: { peak_ewma_experimental: { choiceCount: 2, decayTime: '10s' } },
    fleetRttMs: 10.2,
    ejectionLineMs: 15.3,
    maxEjected: 2,
    candidatesPerPick: 10,
    picks: { turn: 380, challenged: 2, refused: 30, ejected: 0, drawn: 0, slowStart: 0 },
    refusals: { inFlight: 4, failure: 6, mean: 20 },
    endpoints: [
      { address: '10.0.0.1:50051', state: 'READY', outstanding: 1, estimateMs: 10.4149, cost: 20.8298, callsStarted: 412, shareOfCalls: 0.412, msSinceLastSample: 3.2, ejected: false, meanMs: 10.123, failuresInARow: 0, slowStartMsLeft: null },
      { address: '10.0.0.9:50051', state: 'READY', outstanding: 0, estimateMs: 31.5, cost: 31.5, callsStarted: 3, shareOfCalls: 0.003, msSinceLastSample: 900, ejected: true, meanMs: 30.04, failuresInARow: 2, slowStartMsLeft: null },
      { address: '10.0.0.22:50051', state: 'CONNECTING', outstanding: 0, estimateMs: 10, cost: 10, callsStarted: 0, shareOfCalls: 0, msSinceLastSample: null, ejected: false, meanMs: null, failuresInARow: 0, slowStartMsLeft: null },
    ],
    methods: [],
  },
  {
    instanceId: 2,
    policy: 'least_request_experimental',
    label: '',
    state: 'TRANSIENT_FAILURE',
    config: { least_request_experimental: { choiceCount: 2, selectionMethod: 'N_CHOICES' } },
    fleetRttMs: null,
    ejectionLineMs: null,
    maxEjected: null,
    candidatesPerPick: null,
    picks: { turn: 0, challenged: 0, refused: 0, ejected: 0, drawn: 0, slowStart: 0 },
    refusals: { inFlight: 0, failure: 0, mean: 0 },
    endpoints: [
      { address: '10.0.0.3:50051', state: 'TRANSIENT_FAILURE', outstanding: 0, estimateMs: null, cost: 0, callsStarted: 7, shareOfCalls: 1, msSinceLastSample: null, ejected: false, meanMs: null, failuresInARow: 0, slowStartMsLeft: null },
    ],
    methods: [],
  },
];

describe('formatLoadBalancerStats', () => {
  it("prints one block per balancer: header with policy, instance, label, state, fleet average and unwrapped config; its picks by path once it has picked, the refused ones by reason; the ejection line, how many are out of how many may be, and which with their means; aligned rows", () => {
    expect(formatLoadBalancerStats(snapshot)).toBe(
      [
        'peak_ewma_experimental #1 "orders" READY fleet_ms=10.20 {"choiceCount":2,"decayTime":"10s"}',
        '  picks: turn=380 challenged=2 refused=30 (inFlight=4 failure=6 mean=20) ejected=0 drawn=0 slowStart=0',
        '  ejection: line_ms=15.30 ejected=1 of at most 2: 10.0.0.9:50051 mean_ms=30.04',
        '  endpoint         state       estimate_ms  outstanding   cost  calls  share  last_sample_ms_ago',
        '  10.0.0.1:50051   READY             10.41            1  20.83    412  0.412                   3',
        '  10.0.0.9:50051   READY             31.50            0  31.50      3  0.003                 900',
        '  10.0.0.22:50051  CONNECTING        10.00            0  10.00      0  0.000                   -',
        '',
        'least_request_experimental #2 TRANSIENT_FAILURE {"choiceCount":2,"selectionMethod":"N_CHOICES"}',
        '  endpoint        state              estimate_ms  outstanding  cost  calls  share  last_sample_ms_ago',
        '  10.0.0.3:50051  TRANSIENT_FAILURE            -            0  0.00      7  1.000                   -',
      ].join('\n'),
    );
  });

  it('with per-method scoring, lists the methods under the endpoints', () => {
    const withMethods: BalancerStats = {
      ...snapshot[0],
      methods: [
        { method: '/shop.Orders/Get', calls: 300, baselineMs: 2.04, weight: 0.2 },
        { method: '/shop.Orders/Search', calls: 112, baselineMs: null, weight: 1 },
      ],
    };
    expect(formatLoadBalancerStats([withMethods]).split("\n").slice(7)).toEqual([
      '  method               calls  baseline_ms  weight',
      '  /shop.Orders/Get       300         2.04   0.200',
      '  /shop.Orders/Search    112            -   1.000',
    ]);
  });

  it('without an ejection budget, counts the ejected endpoints with no bound; names five at most; with no line (ejection off, or no answer yet), prints no ejection line', () => {
    const lines = (stats: BalancerStats): string[] => formatLoadBalancerStats([stats]).split('\n');
    expect(lines({ ...snapshot[0], maxEjected: null })[2]).toBe('  ejection: line_ms=15.30 ejected=1: 10.0.0.9:50051 mean_ms=30.04');
    const out = (i: number) => ({ ...snapshot[0].endpoints[1], address: `10.0.1.${i}:50051`, meanMs: 20 + i });
    const many = { ...snapshot[0], maxEjected: 8, endpoints: [0, 1, 2, 3, 4, 5, 6].map(out) };
    expect(lines(many)[2]).toBe(
      '  ejection: line_ms=15.30 ejected=7 of at most 8: 10.0.1.0:50051 mean_ms=20.00, 10.0.1.1:50051 mean_ms=21.00, 10.0.1.2:50051 mean_ms=22.00, 10.0.1.3:50051 mean_ms=23.00, 10.0.1.4:50051 mean_ms=24.00, +2 more',
    );
    expect(lines({ ...snapshot[0], endpoints: [snapshot[0].endpoints[0]] })[2]).toBe('  ejection: line_ms=15.30 ejected=0 of at most 2');
    expect(lines({ ...snapshot[0], ejectionLineMs: null }).filter((line) => line.includes('ejection:'))).toEqual([]);
  });

  it('says so when no balancer is live', () => {
    expect(formatLoadBalancerStats([])).toMatch(/no peak_ewma_experimental or least_request_experimental balancer/);
  });

  it("without a snapshot, formats this process's (getLoadBalancerStats()); anything but an array is a TypeError naming the parameter", () => {
    // It threw "Cannot read properties of undefined (reading 'length')".
    expect(formatLoadBalancerStats()).toBe(formatLoadBalancerStats([]));
    const source = { balancerStats: () => snapshot[0] };
    registerStatsSource(source);
    try {
      expect(formatLoadBalancerStats()).toBe(formatLoadBalancerStats([snapshot[0]]));
    } finally {
      unregisterStatsSource(source);
    }
    const call = formatLoadBalancerStats as (snapshot: unknown) => string;
    expect(() => call(null)).toThrow(new TypeError('formatLoadBalancerStats(snapshot): snapshot must be the array getLoadBalancerStats() returns, or none; got null'));
    expect(() => call(snapshot[0])).toThrow(/snapshot must be the array getLoadBalancerStats\(\) returns/);
  });
});
