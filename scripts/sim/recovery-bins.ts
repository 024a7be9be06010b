/**
 * Where a recovery's whole seconds come from: the faulty pods' share of the
 * policy under test's calls, per 100 ms bin, around the end of a reference-
 * layout fault, in units of their fair share (1.0 = back in full).
 *
 *   npx tsx scripts/sim/recovery-bins.ts --seed 3 --scenario s10 --policy 'peak_ewma{"maxProbeBackoff":4}'
 *
 * report.py's recovery (metrics.ts `detectionAndRecovery`) reads 3-second
 * trailing means of per-second shares, so a policy that leaves a pod out
 * during the fault reads at best 3 s, and 3 s only if the pod has ~70 % of
 * its share back within the first healed second; a few hundred ms of each
 * client's re-admission decide between 3, 4 and 5 s (docs/tuning-log.md §36).
 * With two clients under test each step of the ramp is one client taking a
 * pod back.
 */
import { parseArgs } from 'node:util';
import { BIN_MS, sumOver } from './metrics';
import { planReferenceTargets } from './reference-targets';
import { runSimulation } from './world';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    scenario: { type: 'string', default: 's10' },
    policy: { type: 'string', default: 'peak_ewma' },
    'before-ms': { type: 'string', default: '200' },
    'after-ms': { type: 'string', default: '3000' },
  },
});

const run = planReferenceTargets(Number(values.seed), { quick: false, policyUnderTest: values.policy }).find(
  (planned) => planned.kind === 'reference' && planned.key.startsWith(values.scenario),
);
if (run === undefined) {
  throw new Error(`--scenario ${values.scenario}: not a scenario of the reference targets`);
}
const output = runSimulation(run.spec);
const { metrics, scenario } = output;
// The reference layout's second group is the policy under test (suite.ts REFERENCE_POLICIES).
const group = 1;
const faulty = scenario.faulty;
const fairShare = faulty.length / metrics.publishedCount(0);
const endBin = (output.spec.timeline.faultEndS * 1000) / BIN_MS;
const shares: string[] = [];
for (let bin = endBin - Number(values['before-ms']) / BIN_MS; bin < endBin + Number(values['after-ms']) / BIN_MS; bin++) {
  const sent = metrics.sentByBackend(group, bin, bin + 1);
  const total = sent.reduce((sum, x) => sum + x, 0);
  shares.push(`${((bin - endBin) * BIN_MS) / 1000}s ${(total > 0 ? sumOver(sent, faulty) / total / fairShare : 0).toFixed(2)}`);
}
console.log(`${run.key}, ${values.policy}, seed ${values.seed}: the faulty pods' share ÷ fair, per ${BIN_MS} ms from the fault's end`);
console.log(shares.join('  '));
