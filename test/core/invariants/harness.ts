/**
 * Drives the real engine (LoadBalancingEngine over a PeakEwmaModel) through
 * a random fleet and history (scenarios.ts) with the grpc-js picker's
 * protocol: pick, then `callPicked`; the call starts (`pickSettled` +
 * `callStarted`) in the same turn, later, or never, and the picks left are
 * forgotten at the turn's end (src/policy/pick-turn.ts). At every pick and
 * every call's end it checks what the engine promises and names each
 * broken promise by a kind (invariants.test.ts lists them).
 *
 * Why. Two promises broke on 2026-12-06 in ways no example test had
 * foreseen (docs/tuning-log.md §50, §52: a new endpoint with its probe out
 * given a second call by the rotation); an invariant hunt over random
 * histories found the second. The hunt's checks stay here so that the
 * next rule to change meets them.
 */
import {
  CallOutcome,
  CandidateRating,
  EndpointLoad,
  estimateMs,
  LoadBalancingEngine,
  ManualClock,
  PeakEwmaModel,
  PeakEwmaSettings,
  seededRandom,
} from '../../../src/core';
import { MethodStats } from '../../../src/core/methods';
import { NormalSource } from '../../../scripts/model/lognormal';
import { isStale } from '../../../src/core/staleness';
import { isShedding } from '../../../src/core/shed';
import { PickPath } from '../../../src/core/pick-paths';
import { PeakEwmaLoadBalancingConfig } from '../../../src/policy/peak-ewma-config';
import { textbookConfig } from '../../support/documented-config';

export interface Behaviour {
  baseMs: number;
  sigma: number;
  pStall: number;
  stallMs: number;
  pFail: number;
  pShed: number;
  pLost: number;
  pCancel: number;
}

export type Step =
  | { t: 'burst'; k: number; forgetP: number; lateP: number; method: number }
  | { t: 'calls'; count: number; gapMs: number; method: number }
  | { t: 'advance'; ms: number }
  | { t: 'join'; b: Behaviour }
  | { t: 'leave'; idx: number }
  | { t: 'back' }
  | { t: 'change'; idx: number; b: Behaviour };

export interface Scenario {
  seed: number;
  variant: number;
  choiceCount: number;
  deadlineMs: number; // Infinity: none
  zeroMs: boolean; // allow 0 ms answers
  fleet: Behaviour[];
  steps: Step[];
}

export const VARIANTS: Array<[string, Partial<PeakEwmaSettings>]> = [
  ['defaults', {}],
  ['margin0', { rotationMargin: 0 }],
  ['peak', { ejectionSignal: 'peak' }],
  ['zero-decay', { decayToward: 'zero' }],
  ['work', { methodScoring: 'work' }],
  ['nobudget', { maxEjectionPercent: 100 }],
  ['budget10', { maxEjectionPercent: 10 }],
  ['nopending', { pendingAware: false }],
  ['noeject', { ejectionRatio: 0 }],
  ['gate-only', { rotationMargin: 0, ejectionRatio: 0 }],
  // As docs/configuration.md prints it, read from the page.
  ['textbook', PeakEwmaLoadBalancingConfig.parse(textbookConfig()).settings],
  ['fpe2', { fleetPenaltyExponent: 2 }],
  ['margin-only', { rotationGate: 0 }],
];

export interface Violation {
  kind: string;
  pick: number;
  atMs: number;
  detail: string;
}

interface Flight {
  endAt: number;
  outcome: CallOutcome;
  load: EndpointLoad;
  startedAt: number;
  weight: number;
  method?: MethodStats;
  id: number;
}

/** A pick claimed and not yet started. */
interface Claim {
  ep: Ep;
  w: number;
  method?: MethodStats;
}

interface Ep {
  load: EndpointLoad;
  b: Behaviour;
  name: number;
}

export interface RunResult {
  violations: Violation[];
  picks: number[];
  counts: Record<string, number>;
}

export interface RunOptions {
  checks: boolean;
  /** Stop at the first violation of these kinds (all if undefined). */
  kinds?: Set<string>;
  trace?: boolean;
}

export function settingsOf(s: Scenario): PeakEwmaSettings {
  return new PeakEwmaLoadBalancingConfig(s.choiceCount, VARIANTS[s.variant][1]).settings;
}

export function run(s: Scenario, opts: RunOptions): RunResult {
  const settings = settingsOf(s);
  const clock = new ManualClock(1000);
  const model = new PeakEwmaModel(settings);
  const engine = new LoadBalancingEngine({ model, choiceCount: s.choiceCount, clock: clock.now, random: seededRandom(s.seed) });
  const rng = seededRandom(s.seed ^ 0x5bd1e995);
  const normal = new NormalSource(rng);
  const violations: Violation[] = [];
  const counts: Record<string, number> = {};
  const bump = (k: string): void => {
    counts[k] = (counts[k] ?? 0) + 1;
  };
  const picksOut: number[] = [];
  let names = 0;
  const all: Ep[] = s.fleet.map((b) => ({ load: new EndpointLoad(), b, name: names++ }));
  let ready: Ep[] = [...all];
  const gone: Ep[] = [];
  let flights: Flight[] = [];
  let flightId = 0;
  // Own accounting, to compare with the engine's counts.
  const inFlightOf = new Map<EndpointLoad, number>();
  const pickedOf = new Map<EndpointLoad, number>();
  const methodNames = ['ping', 'get', 'report'];
  const methodInFlight = new Map<MethodStats, number>();
  let pickNo = 0;
  // Liveness: consecutive picks an idle unsampled/stale READY endpoint was passed over, n fixed.
  const passedOver = new Map<EndpointLoad, number>();
  let lastN = -1;
  // Each candidate the pick rated; being probed (a call out, and no answer yet or stale) judged here, not by the engine.
  const rated: Array<{ load: EndpointLoad; cost: number; ejected: boolean; probing: boolean }> = [];
  /**
   * Endpoints whose only sample is the balancer's first answer, with the mean kept (the gate, or the
   * mean signal on): new until their next sample (first-answer.ts), by the harness's own count of what
   * ended.
   */
  const keepsMean = !!settings.rotationGate || (settings.ejectionSignal === 'mean' && !!settings.ejectionRatio);
  const onlyFirstAnswer = new Set<EndpointLoad>();
  const isNewHere = (load: EndpointLoad): boolean => !load.hasSample || onlyFirstAnswer.has(load);
  /** Being probed, by the harness's own reading of the rule (new-endpoint.ts isProbing): a call out, and no answer yet (or only a first) or stale. */
  const beingProbed = (load: EndpointLoad, stale: boolean): boolean => load.committed > 0 && (isNewHere(load) || stale);
  let recording = false;
  const origRate = model.rate.bind(model);
  model.rate = (load: EndpointLoad, nowMs: number, into: CandidateRating, w: number) => {
    origRate(load, nowMs, into, w);
    if (recording) {
      const probing = beingProbed(load, isStale(load, nowMs, settings, model.fleet, model.traffic));
      if (probing !== into.probing) fail('probing-rating', `rating says probing=${into.probing}`);
      rated.push({ load, cost: into.cost, ejected: into.ejected, probing });
    }
  };
  const scratch = new CandidateRating();

  const fail = (kind: string, detail: string): void => {
    if (violations.length > 200) return;
    violations.push({ kind, pick: pickNo, atMs: clock.now(), detail });
  };
  const stop = (): boolean => (opts.kinds === undefined ? false : violations.some((v) => opts.kinds!.has(v.kind)));

  const checkCounts = (where: string): void => {
    if (!opts.checks) return;
    for (const ep of all) {
      const l = ep.load;
      if (l.outstanding < 0 || l.picked < 0 || l.outstandingWork < 0 || l.pickedWork < 0 || !Number.isFinite(l.outstandingWork) || !Number.isFinite(l.pickedWork)) {
        fail('count-negative', `${where} ep${ep.name} out=${l.outstanding} picked=${l.picked} ow=${l.outstandingWork} pw=${l.pickedWork}`);
      }
      if (l.outstanding !== (inFlightOf.get(l) ?? 0)) {
        fail('count-outstanding', `${where} ep${ep.name} engine=${l.outstanding} own=${inFlightOf.get(l) ?? 0}`);
      }
      if (l.picked !== (pickedOf.get(l) ?? 0)) {
        fail('count-picked', `${where} ep${ep.name} engine=${l.picked} own=${pickedOf.get(l) ?? 0}`);
      }
      if (l.outstanding === 0 && l.outstandingWork !== 0) fail('count-work-leak', `${where} ep${ep.name} ow=${l.outstandingWork}`);
      if (l.picked === 0 && l.pickedWork !== 0) fail('count-pickedwork-leak', `${where} ep${ep.name} pw=${l.pickedWork}`);
    }
    for (const [m, c] of methodInFlight) {
      if (m.inFlight !== c) fail('count-method', `${where} ${m.name} engine=${m.inFlight} own=${c}`);
    }
  };

  const endCall = (f: Flight): void => {
    const l = f.load;
    let before = NaN;
    if (opts.checks && l.hasSample) {
      before = estimateMs(l, clock.now(), { ...settings, pendingAware: false }, model.fleet, model.traffic);
    }
    const storedBefore = l.rttMs;
    const hadSample = l.hasSample;
    // A first answer is provisional when it is the balancer's first: no fleet average yet (first-answer.ts).
    const balancersFirst = !model.fleet.hasSample;
    engine.callEnded(l, f.outcome, f.startedAt, f.weight, f.method);
    if (!hadSample && l.hasSample && f.outcome === CallOutcome.SUCCESS && keepsMean && balancersFirst) {
      onlyFirstAnswer.add(l);
    } else if (hadSample && f.outcome !== CallOutcome.CANCELLED) {
      onlyFirstAnswer.delete(l);
    }
    inFlightOf.set(l, (inFlightOf.get(l) ?? 0) - 1);
    if (f.method !== undefined) methodInFlight.set(f.method, (methodInFlight.get(f.method) ?? 0) - 1);
    if (opts.checks && l.hasSample) {
      const after = estimateMs(l, clock.now(), { ...settings, pendingAware: false }, model.fleet, model.traffic);
      if (!Number.isFinite(after) || after < 0) fail('estimate-finite', `ep after ${CallOutcome[f.outcome]} estimate=${after}`);
      if (
        (f.outcome === CallOutcome.FAILURE || f.outcome === CallOutcome.SHED || f.outcome === CallOutcome.DEADLINE_EXCEEDED || f.outcome === CallOutcome.OUTLASTED) &&
        Number.isFinite(before) &&
        settings.errorPenaltyFactor > 1 &&
        after < before * (1 - 1e-9) - 1e-9
      ) {
        fail('failure-lowers-estimate', `${CallOutcome[f.outcome]} elapsed=${clock.now() - f.startedAt} before=${before} after=${after} stored ${storedBefore}->${l.rttMs}`);
      }
    }
    checkCounts('end');
  };

  const advanceTo = (t: number): void => {
    for (;;) {
      let next: Flight | undefined;
      for (const f of flights) if (f.endAt <= t && (next === undefined || f.endAt < next.endAt || (f.endAt === next.endAt && f.id < next.id))) next = f;
      if (next === undefined) break;
      flights = flights.filter((f) => f !== next);
      clock.set(Math.max(clock.now(), next.endAt));
      endCall(next);
    }
    clock.set(Math.max(clock.now(), t));
  };

  const rollCall = (b: Behaviour): { ms: number; outcome: CallOutcome } => {
    const r = rng();
    const fast = s.zeroMs && rng() < 0.3 ? 0 : Math.max(0.05, b.baseMs * 0.1 * rng());
    if (r < b.pFail) return { ms: fast, outcome: CallOutcome.FAILURE };
    if (r < b.pFail + b.pShed) return { ms: fast, outcome: CallOutcome.SHED };
    let ms = s.zeroMs && rng() < 0.2 ? 0 : b.baseMs * Math.exp(b.sigma * normal.next());
    if (rng() < b.pStall) ms = b.stallMs;
    if (ms > s.deadlineMs) return { ms: s.deadlineMs, outcome: CallOutcome.DEADLINE_EXCEEDED };
    if (rng() < b.pLost) return { ms: ms * rng(), outcome: CallOutcome.OUTLASTED };
    if (rng() < b.pCancel) return { ms: ms * rng(), outcome: CallOutcome.CANCELLED };
    return { ms, outcome: CallOutcome.SUCCESS };
  };

  const startCall = (ep: Ep, weight: number, method: MethodStats | undefined, settle: boolean): void => {
    const l = ep.load;
    if (settle) {
      l.pickSettled(weight);
      pickedOf.set(l, Math.max(0, (pickedOf.get(l) ?? 0) - 1));
    }
    const startedAt = engine.callStarted(l, weight, method);
    inFlightOf.set(l, (inFlightOf.get(l) ?? 0) + 1);
    if (method !== undefined) methodInFlight.set(method, (methodInFlight.get(method) ?? 0) + 1);
    const { ms, outcome } = rollCall(ep.b);
    flights.push({ endAt: clock.now() + ms, outcome, load: l, startedAt, weight, method, id: flightId++ });
    checkCounts('start');
  };

  const forgetAll = (): void => {
    for (const ep of all) {
      ep.load.forgetPicks();
      pickedOf.set(ep.load, 0);
    }
    checkCounts('forget');
  };

  /** One pick with checks; returns the endpoint chosen (or undefined). */
  const doPick = (weight: number): Ep | undefined => {
    const loads = ready.map((e) => e.load);
    const n = loads.length;
    const before = engine.picks.snapshot();
    rated.length = 0;
    recording = opts.checks;
    const idx = engine.pick(loads, weight);
    recording = false;
    pickNo++;
    picksOut.push(idx >= 0 ? ready[idx].name : -1);
    if (!opts.checks) return idx >= 0 ? ready[idx] : undefined;
    if (n === 0) {
      if (idx !== -1) fail('index', `n=0 idx=${idx}`);
      return undefined;
    }
    if (!(Number.isInteger(idx) && idx >= 0 && idx < n)) {
      fail('index', `n=${n} idx=${idx}`);
      return undefined;
    }
    const after = engine.picks.snapshot();
    const total = (c: Record<string, number>): number => Object.values(c).reduce((a, b) => a + b, 0);
    if (total(after) !== total(before) + 1) fail('pick-paths-count', `paths did not count one pick`);
    const path = engine.picks.last;
    bump(`path-${path}`);
    const now = clock.now();
    const fleet = model.fleet;
    const info = loads.map((l) => {
      model.rate(l, now, scratch, weight);
      const cost = scratch.cost;
      const ejected = scratch.ejected;
      const stale = isStale(l, now, settings, fleet, model.traffic);
      const shedding = isShedding(l, now, stale, settings);
      const probing = beingProbed(l, stale);
      return { l, cost, ejected, stale, shedding, probing };
    });
    for (const [i, x] of info.entries()) {
      if (!Number.isFinite(x.cost) || x.cost < 0) fail('cost-finite', `ep${ready[i].name} cost=${x.cost} F=${fleet.rttMs} rtt=${x.l.rttMs}`);
      if (weight === 1) {
        const c = model.cost(x.l, now);
        if (!Object.is(c, x.cost)) fail('rate-vs-cost', `ep${ready[i].name} rate=${x.cost} cost=${c}`);
      }
      if (x.stale && x.l.committed === 0 && x.ejected && !!settings.maxEjectionMs) fail('stale-ejected', `ep${ready[i].name} stale & idle but ejected`);
      if (x.ejected && x.l.committed === 0 && settings.maxEjectionMs && x.l.hasSample) {
        const shares = model.traffic.sharesSince(x.l);
        const bound = (settings.probeFairShares ?? 0) * Math.max(1, settings.maxProbeBackoff ?? 1);
        if (now - x.l.sampledAtMs >= settings.maxEjectionMs && shares >= bound) {
          fail('ejected-past-bound', `ep${ready[i].name} ejected ${now - x.l.sampledAtMs} ms and ${shares} shares after its last sample; shedding=${x.shedding}`);
        }
      }
    }
    const c = info[idx];
    const chosen = ready[idx];
    const ratedHere = rated.slice();
    const availableOthers = info.filter((x, i) => i !== idx && !x.ejected && !x.probing);
    if (c.probing) {
      const kind = c.l.hasSample ? 'stale' : 'new';
      if (availableOthers.length > 0 && (path === PickPath.turn || path === PickPath.slowStart)) {
        fail('probe2-turn', `${kind} ep${chosen.name} committed=${c.l.committed} took its turn; available: ${availableOthers.map((x) => `${x.cost.toFixed(1)}${x.l.hasSample ? '' : 'N'}`).join(',')} n=${n} rated=${ratedHere.map((r) => `${r.cost.toFixed(1)}${r.ejected ? 'E' : ''}`).join(',')}`);
      }
    }
    const rc = engine.picks.refusals();
    if (Object.values(rc).reduce((a, b) => a + b, 0) !== after.refused) fail('refusal-count', 'refusals do not add up');
    // With ejection on the draw looks past endpoints being probed as past ejected ones (choice.ts).
    const looksPast = c.ejected || (c.probing && model.ejects);
    if (looksPast && (path === PickPath.refused || path === PickPath.drawn) && rated.length < Math.min(n, 2 * s.choiceCount) && n > 1) {
      fail('ejected-with-few-draws', `path=${path} rated=${rated.length} n=${n} d=${s.choiceCount}`);
    }
    if (looksPast) {
      const others = ratedHere.filter((r) => r.load !== c.l);
      // Ejected: nothing else drawn but ejected ones, and ones being probed that cost more.
      // Being probed: every priced one drawn costs more (a priced one wins a tie).
      const beaten = c.ejected
        ? others.filter((r) => !r.ejected && (!r.probing || r.cost <= c.cost))
        : others.filter((r) => !r.ejected && !r.probing && r.cost <= c.cost);
      if (beaten.length > 0) fail('ejected-chosen-over-drawn', `path=${path} ep${chosen.name} ejected=${c.ejected} probing=${c.probing} cost=${c.cost} beaten by ${beaten.map((r) => r.cost).join(',')}`);
      if (info.some((x) => !x.ejected)) bump('ejected-chosen-with-others');
    }
    // A slow-start turn is a turn the gate refused for the mean and gave anyway: no call of this client may be out to it either.
    if ((path === PickPath.turn || path === PickPath.slowStart) && c.l.committed > 0 && c.l.hasSample && fleet.hasSample && settings.rotationGate) {
      fail('gate-in-flight', `ep${chosen.name} committed=${c.l.committed}`);
    }
    // Liveness of idle never-answered / stale endpoints under the rotation.
    if (n !== lastN) passedOver.clear();
    lastN = n;
    for (const [i, x] of info.entries()) {
      const l = x.l;
      const waiting = l.committed === 0 && (isNewHere(l) || x.stale) && !x.ejected;
      if (!waiting || i === idx) {
        passedOver.delete(l);
        continue;
      }
      const p = (passedOver.get(l) ?? 0) + 1;
      passedOver.set(l, p);
      if (engine.model.rotates && n > 1 && p > 10 * n + 10) {
        fail(l.hasSample ? 'starved-stale' : 'starved-new', `ep${ready[i].name} passed over ${p} picks n=${n} cost=${x.cost}`);
        passedOver.delete(l);
      }
    }
    return chosen;
  };

  const methodFor = (m: number): MethodStats | undefined => (m < 0 ? undefined : engine.methodOf(methodNames[m % methodNames.length]));
  /** One pick for a call of method `m` (-1: none), claimed on its endpoint as the picker claims it. */
  const pickAndClaim = (m: number): Claim | undefined => {
    const method = methodFor(m);
    const w = engine.callWeight(method);
    const ep = doPick(w);
    if (ep === undefined) return undefined;
    ep.load.callPicked(w);
    pickedOf.set(ep.load, (pickedOf.get(ep.load) ?? 0) + 1);
    return { ep, w, method };
  };

  for (const step of s.steps) {
    if (stop()) break;
    switch (step.t) {
      case 'advance':
        advanceTo(clock.now() + step.ms);
        break;
      case 'calls':
        for (let i = 0; i < step.count && !stop(); i++) {
          advanceTo(clock.now() + step.gapMs);
          const claim = pickAndClaim(step.method);
          if (claim === undefined) continue;
          startCall(claim.ep, claim.w, claim.method, true);
          forgetAll();
        }
        break;
      case 'burst': {
        const picked: Claim[] = [];
        for (let i = 0; i < step.k && !stop(); i++) {
          const claim = pickAndClaim(step.method);
          if (claim !== undefined) picked.push(claim);
        }
        const late: typeof picked = [];
        for (const p of picked) {
          const r = rng();
          if (r < step.forgetP) continue; // never starts
          if (r < step.forgetP + step.lateP) {
            late.push(p);
            continue;
          }
          startCall(p.ep, p.w, p.method, true);
        }
        forgetAll();
        // Calls whose credentials took longer: start after the turn, uncounted as picks.
        advanceTo(clock.now() + 1);
        for (const p of late) startCall(p.ep, p.w, p.method, false);
        break;
      }
      case 'join': {
        const ep = { load: new EndpointLoad(), b: step.b, name: names++ };
        all.push(ep);
        ready.push(ep);
        break;
      }
      case 'leave':
        if (ready.length > 0) {
          const [ep] = ready.splice(step.idx % ready.length, 1);
          gone.push(ep);
        }
        break;
      case 'back':
        if (gone.length > 0) ready.push(gone.shift()!);
        break;
      case 'change':
        if (ready.length > 0) ready[step.idx % ready.length].b = step.b;
        break;
    }
  }
  // Drain.
  if (!stop()) {
    advanceTo(clock.now() + 1e9);
    forgetAll();
    if (opts.checks) {
      for (const ep of all) {
        const l = ep.load;
        if (l.outstanding !== 0 || l.picked !== 0 || l.committed !== 0 || l.outstandingWork !== 0 || l.pickedWork !== 0) {
          fail('leak-at-end', `ep${ep.name} out=${l.outstanding} picked=${l.picked} ow=${l.outstandingWork} pw=${l.pickedWork}`);
        }
      }
      for (const name of methodNames) {
        const m = model.methods?.get(name);
        if (m !== undefined && m.inFlight !== 0) fail('leak-method', `${name} inFlight=${m.inFlight}`);
      }
    }
  }
  return { violations, picks: picksOut, counts };
}
