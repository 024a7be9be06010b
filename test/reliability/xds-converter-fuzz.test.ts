/**
 * Fuzzing the xDS converters (src/xds) as grpc-js-xds calls them: an encoded
 * `typed_config` Any — well-formed Envoy PeakEwma / LeastRequest / TypedStruct
 * messages with hostile values, the same mutated on the wire, random bytes.
 *
 * Properties, per input:
 * 1. The converter returns a config grpc-js parses (numbers finite, within
 *    our bounds) or null (TypedStruct naming an unregistered policy), or
 *    throws an Error (or PgvViolation) with a message; never a TypeError,
 *    RangeError or other crash.
 * 2. Through grpc-js-xds's convertToLoadBalancingConfig, top level and under
 *    xds_wrr_locality: a result grpc-js accepts at the top (what CDS
 *    validation checks before ACKing) is also accepted when
 *    XdsWrrLocalityLoadBalancer re-parses its child as
 *    `{weighted_target: {targets: {...child_policy}}}` on the first address
 *    update — the call that throws uncaught and kills the process with
 *    grpc-js-xds's own converters (grpc-js-lb-internals.md §12). An ACKed
 *    config that fails there would be a process crash.
 *
 * Runs: FUZZ_XDS_RUNS per property (default 1 500; each input goes through
 * three paths).
 */
import fc from 'fast-check';
import { experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { convertToLoadBalancingConfig } from '@grpc/grpc-js-xds/build/src/lb-policy-registry';
import type { LoadBalancingPolicy__Output } from '@grpc/grpc-js-xds/build/src/generated/envoy/config/cluster/v3/LoadBalancingPolicy';
import { LeastRequestLoadBalancingConfig, PEAK_EWMA_LIMITS, PeakEwmaLoadBalancingConfig } from '../../src';
import { convertLeastRequest, convertPeakEwma, convertTypedStruct, PgvViolation, registerXds } from '../../src/xds';
import {
  deepTypedStruct,
  EncodedAny,
  fuzzRoot,
  leastRequestAny,
  peakEwmaAny,
  policyList,
  typedStructFamily,
  underWrrLocality,
} from './support/xds-arbitraries';

const RUNS = Number(process.env.FUZZ_XDS_RUNS ?? 1_500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: RUNS, seed: SEED };

beforeAll(() => {
  setLogVerbosity(logVerbosity.NONE); // our policies log each rejected config at ERROR
  registerXds();
});

function check(condition: boolean, what: string): void {
  if (!condition) {
    throw new Error(`property violated: ${what}`);
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };
function attempt<T>(run: () => T): Outcome<T> {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A rejection a control plane can be NACKed with: an Error (or PgvViolation) with a message. */
function checkCleanError(error: unknown, where: string): void {
  check(error instanceof Error, `${where}: threw a non-Error ${String(error)}`);
  const { constructor: ctor, message } = error as Error;
  check(ctor === Error || ctor === PgvViolation, `${where}: threw ${ctor.name}: ${message}`);
  check(message.length > 0, `${where}: empty message`);
  // decodeValidated deliberately wraps whatever protobufjs throws on bad bytes as "cannot decode <Type>: ...";
  // protobufjs itself may throw a TypeError there (a map entry without its value: "Cannot read properties of
  // null (reading 'nullValue')"). That is a clean NACK. A TypeError anywhere else is not.
  const afterDecode = message.replace(/cannot decode \w+: .*$/s, 'cannot decode');
  check(!/Cannot read properties|is not a function|Maximum call stack|undefined \(reading/.test(afterDecode), `${where}: a crash wrapped as an Error: ${message}`);
}

/** A converted config grpc-js accepts, with our policies' numbers in bounds. */
function checkAccepted(config: object, where: string): void {
  const parsed = attempt(() => experimental.parseLoadBalancingConfig(config as never));
  check(parsed.ok, `${where}: grpc-js rejects ${JSON.stringify(config)}: ${!parsed.ok && (parsed.error as Error).message}`);
  const typed = (parsed as { value: experimental.TypedLoadBalancingConfig }).value;
  if (typed instanceof PeakEwmaLoadBalancingConfig) {
    const { decayMs, defaultRttMs, penaltyValue, errorPenaltyFactor } = typed.settings;
    check([decayMs, defaultRttMs, penaltyValue, errorPenaltyFactor].every(Number.isFinite), `${where}: non-finite setting`);
    check(decayMs > 0 && decayMs <= PEAK_EWMA_LIMITS.maxDecayMs, `${where}: decayMs ${decayMs}`);
    check(defaultRttMs > 0 && defaultRttMs <= PEAK_EWMA_LIMITS.maxDefaultRttMs, `${where}: defaultRttMs ${defaultRttMs}`);
    check(penaltyValue > 0 && penaltyValue <= PEAK_EWMA_LIMITS.maxPenaltyValue, `${where}: penaltyValue ${penaltyValue}`);
  }
  if (typed instanceof LeastRequestLoadBalancingConfig) {
    check(typed.configuredChoiceCount >= 2 && typed.configuredChoiceCount <= 10, `${where}: choiceCount`);
  }
}

/** What XdsWrrLocalityLoadBalancer.updateAddressList parses, outside any try/catch, for one locality. */
function wrrLocalityChildParse(config: Record<string, { child_policy: object[] }>): Outcome<unknown> {
  const childPolicy = config.xds_wrr_locality.child_policy;
  return attempt(() =>
    experimental.parseLoadBalancingConfig({ weighted_target: { targets: { '{"region":"r1"}': { weight: 1, child_policy: childPolicy } } } }),
  );
}

interface Counts {
  accepted: number;
  skipped: number;
  rejected: number;
  wrrAcked: number;
  wrrNacked: number;
}
const newCounts = (): Counts => ({ accepted: 0, skipped: 0, rejected: 0, wrrAcked: 0, wrrNacked: 0 });

/** Both outcomes must have been reached (each in at least 2 % of inputs), or the properties prove little. */
function expectBothOutcomes(counts: Counts): void {
  expect(counts.accepted).toBeGreaterThan(RUNS / 50);
  expect(counts.rejected).toBeGreaterThan(RUNS / 50);
  expect(counts.wrrAcked).toBeGreaterThan(RUNS / 50);
  expect(counts.wrrNacked).toBeGreaterThan(RUNS / 50);
}

/** Both properties for one input; `direct` is the converter registered for its type URL. */
function checkInput(any: EncodedAny, direct: (typedConfig: EncodedAny) => object | null, counts = newCounts()): void {
  // 1. The converter alone.
  const converted = attempt(() => direct(any));
  if (!converted.ok) {
    checkCleanError(converted.error, 'converter');
    counts.rejected++;
  } else if (converted.value === null) {
    counts.skipped++;
  } else {
    checkAccepted(converted.value, 'converter');
    counts.accepted++;
  }

  // 2a. Top level, through grpc-js-xds's registry.
  const topLevel = attempt(() => convertToLoadBalancingConfig(policyList(any) as unknown as LoadBalancingPolicy__Output));
  if (topLevel.ok) {
    checkAccepted(topLevel.value, 'registry');
  } else {
    checkCleanError(topLevel.error, 'registry');
  }

  // 2b. Under xds_wrr_locality: ACKed (top-level parse succeeds) must imply the child re-parse succeeds.
  const wrapped = attempt(() => convertToLoadBalancingConfig(underWrrLocality(any) as unknown as LoadBalancingPolicy__Output));
  if (!wrapped.ok) {
    checkCleanError(wrapped.error, 'wrr_locality registry');
    counts.wrrNacked++;
    return;
  }
  const acked = attempt(() => experimental.parseLoadBalancingConfig(wrapped.value));
  if (!acked.ok) {
    checkCleanError(acked.error, 'wrr_locality top-level parse');
    counts.wrrNacked++;
    return;
  }
  counts.wrrAcked++;
  const child = wrrLocalityChildParse(wrapped.value as Record<string, { child_policy: object[] }>);
  check(
    child.ok,
    `ACKed under xds_wrr_locality but its child fails to parse (a process crash in grpc-js-xds): ` +
      `${JSON.stringify(wrapped.value)}: ${!child.ok && (child.error as Error).message}`,
  );
}

describe('xDS converters under fuzzing', () => {
  it(`PeakEwma: well-formed hostile values, wire mutations, random bytes (${RUNS} inputs × 3 paths)`, () => {
    const counts = newCounts();
    fc.assert(fc.property(peakEwmaAny, (any) => checkInput(any, convertPeakEwma, counts)), params);
    expectBothOutcomes(counts);
  });

  it(`LeastRequest: well-formed hostile values, wire mutations, random bytes (${RUNS} inputs × 3 paths)`, () => {
    const counts = newCounts();
    fc.assert(fc.property(leastRequestAny, (any) => checkInput(any, convertLeastRequest, counts)), params);
    expectBothOutcomes(counts);
  });

  it(`TypedStruct (xds and udpa): any policy name, hostile Struct fields, wire mutations (${RUNS} inputs × 3 paths)`, () => {
    const counts = newCounts();
    fc.assert(fc.property(typedStructFamily(), (any) => checkInput(any, convertTypedStruct, counts)), params);
    expectBothOutcomes(counts);
    expect(counts.skipped).toBeGreaterThan(RUNS / 50); // unregistered names: null, the next policy is tried
  });

  it.each([50, 99, 101, 150, 5_000])('a TypedStruct nested %i levels deep is converted or rejected cleanly', (depth) => {
    checkInput(deepTypedStruct(depth), convertTypedStruct);
  });

  /*
   * Two bugs this fuzzer found in src/xds, fixed on 2026-12-01 (b77c81f) and
   * kept as specs: (1) a TypedStruct whose type_url names an Object.prototype
   * member ("x/constructor", "x/__proto__") passed grpc-js's
   * `name in registeredLoadBalancerTypes` and the Cluster was NACKed where
   * gRFC A52 asks for null (skip, try the next policy); (2) a Struct key
   * "__proto__" set the flattened config's prototype, so its fields were read
   * as inherited config fields.
   */

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'a TypedStruct naming the policy "%s" is skipped (null), not NACKed',
    (name) => {
      const any = deepTypedStruct(0, `x/${name}`);
      expect(attempt(() => convertTypedStruct(any))).toEqual({ ok: true, value: null });
    },
  );

  it('a Struct key "__proto__" stays an ignored unknown key, not the config\'s prototype', () => {
    const any = deepTypedStruct(0);
    const struct = fuzzRoot.lookupType('xds.type.v3.TypedStruct');
    const fields: Record<string, unknown> = {};
    Object.defineProperty(fields, '__proto__', {
      value: { structValue: { fields: { choiceCount: { numberValue: 5 } } } },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    any.value = Buffer.from(struct.encode(struct.fromObject({ type_url: 'x/peak_ewma_experimental', value: { fields } })).finish());
    const config = convertTypedStruct(any) as Record<string, object>;
    const parsed = experimental.parseLoadBalancingConfig(config as never) as PeakEwmaLoadBalancingConfig;
    expect(parsed.choiceCount).toBe(2);
  });
});
