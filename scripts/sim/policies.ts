/**
 * Policy names the simulator understands, and how each becomes a client's
 * balancer. Engine policies are built from service-config JSON by the
 * product's own config classes, so a variant is just a different config:
 *
 *   peak_ewma                          the product's defaults ({})
 *   peak_ewma{"choiceCount":3}         any peak_ewma_experimental config
 *   d3=peak_ewma{"choiceCount":3}      the same, labelled "d3" in reports
 *   least_request, least_connection    least_request_experimental (N_CHOICES 2 / FULL_SCAN)
 *   lr_od, peak_ewma_od                wrapped in outlier_detection (the reference's lr_od settings)
 *   round_robin, oracle, oracle-capacity
 *   oracle-static, oracle-static{"exponent":4}   knows each backend's speed, not its queue
 *   oracle-own{"othersScale":8}                  knows each backend's speed and its own calls in flight
 *                                                (also "choices": 2, "knowsSpeed": false)
 *   learned-static{"window":32,...}              the same schedule, speeds learnt (research)
 *   oracle-ready{"healthy":0.99,...}             peak_ewma (any config beside "healthy") shown
 *                                                only the backends an oracle deems healthy
 */
import { RandomSource } from '../../src/core/random';
import { LeastRequestLoadBalancingConfig } from '../../src/policy/least-request-config';
import { PeakEwmaLoadBalancingConfig } from '../../src/policy/peak-ewma-config';
import { BackendModel } from '../model/backend';
import { Scheduler } from '../model/scheduler';
import { ClientPolicy } from './client-policy';
import { EnginePolicy } from './engine-policy';
import { OraclePolicy } from './oracle';
import { OutlierDetectionPolicy, REFERENCE_OUTLIER_DETECTION } from './outlier-detection';
import { RoundRobinPolicy } from './round-robin';
import { StaticOraclePolicy } from './oracle-static';
import { OwnQueueOraclePolicy } from './oracle-own';
import { LearnedStaticPolicy, learnedStaticSettings } from './learned-static';
import { ReadyOraclePolicy } from './oracle-ready';

export const BASE_POLICIES = [
  'round_robin',
  'least_request',
  'lr_od',
  'peak_ewma',
  'peak_ewma_od',
  'least_connection',
  'oracle',
  'oracle-capacity',
  'oracle-static',
  'oracle-own',
  'learned-static',
  'oracle-ready',
] as const;
export type BasePolicy = (typeof BASE_POLICIES)[number];

export interface PolicySpec {
  /** The name reports use. */
  readonly label: string;
  readonly base: BasePolicy;
  /** Extra JSON config for the engine policies. */
  readonly config: Record<string, unknown>;
}

const SPEC = /^(?:([\w.-]+)=)?([\w-]+)(\{.*\})?$/;

export function parsePolicySpec(text: string): PolicySpec {
  const match = SPEC.exec(text.trim());
  if (!match || !(BASE_POLICIES as readonly string[]).includes(match[2])) {
    throw new RangeError(`policy "${text}": expected [label=]name[{json}] with name one of ${BASE_POLICIES.join(', ')}`);
  }
  let config: Record<string, unknown> = {};
  if (match[3] !== undefined) {
    try {
      config = JSON.parse(match[3]) as Record<string, unknown>;
    } catch (error) {
      throw new RangeError(`policy "${text}": config is not JSON (${(error as Error).message})`);
    }
  }
  const base = match[2] as BasePolicy;
  // Validate now, with the product's parser, so a bad variant fails before a run.
  engineSetup(base, config);
  return { label: match[1] ?? text.trim(), base, config };
}

function engineSetup(base: BasePolicy, config: Record<string, unknown>) {
  switch (base) {
    case 'least_request':
    case 'lr_od': {
      const parsed = LeastRequestLoadBalancingConfig.parse({ choiceCount: 2, ...config });
      return { model: parsed.createModel(), choiceCount: parsed.choiceCount };
    }
    case 'least_connection': {
      const parsed = LeastRequestLoadBalancingConfig.parse({ ...config, selectionMethod: 'FULL_SCAN' });
      return { model: parsed.createModel(), choiceCount: parsed.choiceCount };
    }
    case 'peak_ewma':
    case 'peak_ewma_od': {
      const parsed = PeakEwmaLoadBalancingConfig.parse(config);
      return { model: parsed.createModel(), choiceCount: parsed.choiceCount };
    }
    case 'oracle-ready': {
      const { healthy: _healthy, ...engineConfig } = config;
      readyShare(config);
      const parsed = PeakEwmaLoadBalancingConfig.parse(engineConfig);
      return { model: parsed.createModel(), choiceCount: parsed.choiceCount };
    }
    case 'oracle-static':
      staticExponent(config);
      return null;
    case 'learned-static':
      learnedStaticSettings(config);
      return null;
    case 'oracle-own':
      ownSettings(config);
      return null;
    default:
      return null;
  }
}

/** oracle-static's `exponent` (default 1); a bad one fails naming the field. */
function staticExponent(config: Record<string, unknown>): number {
  const exponent = config.exponent ?? 1;
  if (typeof exponent !== 'number' || !(exponent > 0) || !Number.isFinite(exponent)) {
    throw new RangeError(`oracle-static: "exponent" must be a finite number > 0, got ${JSON.stringify(exponent)}`);
  }
  return exponent;
}

/** oracle-ready's `healthy` (default 0.99: a GC-pausing or 5 %-failing pod is not); a bad one fails naming the field. */
function readyShare(config: Record<string, unknown>): number {
  const healthy = config.healthy ?? 0.99;
  if (typeof healthy !== 'number' || !(healthy > 0 && healthy <= 1)) {
    throw new RangeError(`oracle-ready: "healthy" must be a number in (0, 1], got ${JSON.stringify(healthy)}`);
  }
  return healthy;
}

/** oracle-own's fields: `othersScale` (default 1), `choices` (default all), `knowsSpeed` (default true); a bad one fails naming it. */
function ownSettings(config: Record<string, unknown>): { othersScale: number; choices: number; knowsSpeed: boolean } {
  const unknown = Object.keys(config).filter((key) => !['othersScale', 'choices', 'knowsSpeed'].includes(key));
  if (unknown.length > 0) {
    throw new RangeError(`oracle-own: unknown field "${unknown[0]}" (known: othersScale, choices, knowsSpeed)`);
  }
  const othersScale = config.othersScale ?? 1;
  if (typeof othersScale !== 'number' || !(othersScale >= 0) || !Number.isFinite(othersScale)) {
    throw new RangeError(`oracle-own: "othersScale" must be a finite number >= 0, got ${JSON.stringify(othersScale)}`);
  }
  const choices = config.choices ?? Infinity;
  if (typeof choices !== 'number' || !(choices >= 1) || !(Number.isInteger(choices) || choices === Infinity)) {
    throw new RangeError(`oracle-own: "choices" must be an integer >= 1, got ${JSON.stringify(choices)}`);
  }
  const knowsSpeed = config.knowsSpeed ?? true;
  if (typeof knowsSpeed !== 'boolean') {
    throw new RangeError(`oracle-own: "knowsSpeed" must be true or false, got ${JSON.stringify(knowsSpeed)}`);
  }
  return { othersScale, choices, knowsSpeed };
}

export interface PolicyContext {
  scheduler: Scheduler;
  backends: readonly BackendModel[];
  random: RandomSource;
  /** The nominal median of the call being picked for (oracles). */
  currentMedianMs: () => number;
  /** The scenario's method names, by method index (what the interceptor would tell the picker). */
  methodNames: readonly string[];
}

export function createPolicy(spec: PolicySpec, context: PolicyContext): ClientPolicy {
  const clock = context.scheduler.nowMs.bind(context.scheduler);
  const setup = engineSetup(spec.base, spec.config);
  switch (spec.base) {
    case 'round_robin':
      return new RoundRobinPolicy(context.random);
    case 'oracle-static':
      return new StaticOraclePolicy(context.backends, context.random, staticExponent(spec.config));
    case 'oracle-own':
    {
      const own = ownSettings(spec.config);
      return new OwnQueueOraclePolicy(context.backends, context.random, context.currentMedianMs, own.othersScale, own.choices, own.knowsSpeed);
    }
    case 'oracle-ready':
      return new ReadyOraclePolicy(new EnginePolicy(setup!, clock, context.random, context.methodNames), context.backends, readyShare(spec.config));
    case 'learned-static':
      return new LearnedStaticPolicy(clock, context.random, learnedStaticSettings(spec.config));
    case 'oracle':
    case 'oracle-capacity':
      return new OraclePolicy(spec.base, context.backends, clock, context.random, context.currentMedianMs);
    case 'lr_od':
    case 'peak_ewma_od':
      return new OutlierDetectionPolicy(
        new EnginePolicy(setup!, clock, context.random, context.methodNames),
        context.scheduler,
        context.random,
        REFERENCE_OUTLIER_DETECTION,
      );
    default:
      return new EnginePolicy(setup!, clock, context.random, context.methodNames);
  }
}
