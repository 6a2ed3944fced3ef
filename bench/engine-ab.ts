/**
 * Two builds of the engine in one process, A against B (issue 38): on a VM whose speed drifts by
 * up to 2x within minutes, a few percent show only when both builds are timed in the same moments.
 * Each root is a checkout with its `dist/` built (`npx tsc -p tsconfig.bench.json`); each loads its
 * own 1,000 bench rules. The builds run in alternating 100 ms batches (A first, then B first) on a
 * fresh `JSON.parse` of the object per evaluation, as a request would bring it; the figure is the
 * median of the paired B/A ratios of CPU per evaluation, with its interquartile range. Both builds
 * must answer the same patch, or the run stops.
 *
 * Usage: npm run bench:ab -- <rootA> <rootB> [pod-2kb|deployment-10kb|deployment-100kb] [seconds]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EvaluationResult } from '../src/engine/evaluate.js';
import type { JsonObject } from '../src/engine/json.js';
import type { RuleStore } from '../src/engine/store.js';
import { percentile } from './lib/measure.js';

interface Build {
  evaluateFresh(): EvaluationResult;
}

interface FixturesModule {
  loadRuleSet(size: number): { store: RuleStore };
  wireBodyPath(name: string): string;
}

interface EvaluateModule {
  evaluate(
    store: RuleStore,
    request: { operation: 'CREATE'; namespace: string | undefined; object: JsonObject },
  ): EvaluationResult;
}

interface WireRequest {
  readonly request: { readonly namespace?: string; readonly object: JsonObject };
}

async function load(root: string, object: string): Promise<Build> {
  const at = (path: string): string => pathToFileURL(resolve(root, 'dist', path)).href;
  const fixtures = (await import(at('bench/lib/fixtures.js'))) as FixturesModule;
  const engine = (await import(at('src/engine/evaluate.js'))) as EvaluateModule;
  const { store } = fixtures.loadRuleSet(1000);
  const text = readFileSync(fixtures.wireBodyPath(object), 'utf8');
  return {
    evaluateFresh: () => {
      const { request } = JSON.parse(text) as WireRequest;
      return engine.evaluate(store, {
        operation: 'CREATE',
        namespace: request.namespace,
        object: request.object,
      });
    },
  };
}

/** CPU µs per evaluation over a batch of about `ms` milliseconds. */
function batch(build: Build, ms: number): number {
  const cpu = process.cpuUsage();
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 10; i++) build.evaluateFresh();
    n += 10;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / n;
}

async function main(): Promise<void> {
  const [rootA, rootB, object = 'deployment-10kb', seconds = '20'] = process.argv.slice(2);
  if (rootA === undefined || rootB === undefined) {
    throw new Error('usage: engine-ab.js <rootA> <rootB> [object] [seconds]');
  }
  const a = await load(rootA, object);
  const b = await load(rootB, object);
  if (JSON.stringify(a.evaluateFresh().patch) !== JSON.stringify(b.evaluateFresh().patch)) {
    throw new Error('the two builds answer different patches');
  }
  for (const build of [a, b, a, b]) batch(build, 500);
  const ratios: number[] = [];
  const timesA: number[] = [];
  const timesB: number[] = [];
  const end = performance.now() + Number(seconds) * 1000;
  for (let pair = 0; performance.now() < end; pair++) {
    const aFirst = pair % 2 === 0;
    const first = batch(aFirst ? a : b, 100);
    const second = batch(aFirst ? b : a, 100);
    const [usA, usB] = aFirst ? [first, second] : [second, first];
    timesA.push(usA);
    timesB.push(usB);
    ratios.push(usB / usA);
  }
  for (const list of [ratios, timesA, timesB]) list.sort((x, y) => x - y);
  const median = (list: readonly number[]): string => percentile(list, 0.5).toFixed(1);
  process.stdout.write(
    `${object}: A ${median(timesA)} µs, B ${median(timesB)} µs per evaluation; ` +
      `B/A median ${percentile(ratios, 0.5).toFixed(3)} ` +
      `(IQR ${percentile(ratios, 0.25).toFixed(3)}–${percentile(ratios, 0.75).toFixed(3)}), ` +
      `${String(ratios.length)} pairs\n`,
  );
}

await main();
