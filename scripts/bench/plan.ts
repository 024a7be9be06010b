/** The load-test runs a set of options asks for, in the order they run. */
import type { BenchOptions } from './args';
import type { Layout } from './loadtest';

export interface PlannedRun {
  readonly layout: Layout;
  readonly scenario: string;
  readonly repeat: number;
  readonly policies: BenchOptions['policies'];
  readonly xds: boolean;
}

/** Every load-test run the options ask for, in order. */
export function planLoadRuns(options: BenchOptions): PlannedRun[] {
  // One xDS client beside the others, in the first reference-layout run of s03 (or of the first scenario).
  const xdsScenario = options.scenarios.includes('s03') ? 's03' : options.scenarios[0];
  const runs: PlannedRun[] = [];
  for (const layout of options.layouts) {
    for (const scenario of layout === 'uniform' ? options.uniformScenarios : options.scenarios) {
      for (let repeat = 0; repeat < options.repeats; repeat++) {
        const groups = layout === 'reference' ? [options.policies] : options.policies.map((p) => [p]);
        for (const policies of groups) {
          const xds = options.xds && layout === 'reference' && repeat === 0 && scenario === xdsScenario;
          runs.push({ layout, scenario, repeat, policies, xds });
        }
      }
    }
  }
  return runs;
}

