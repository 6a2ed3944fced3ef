/**
 * `npm run bench`: in-process engine benchmarks, compiled by tsc (the code that ships: tsx would
 * add a name property to every closure), on the committed inputs of bench/fixtures
 * (objects/ and rules/, written by bench/generate-fixtures.ts). Prints Markdown tables with the
 * machine and Node version: evaluation per object size × rule-set size (per-call median/p99),
 * load time and memory of 10,000 rules (in a fresh process), micro-benchmarks, and the targets.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { evaluate } from '../src/engine/evaluate.js';
import type { RuleStore } from '../src/engine/store.js';
import { loadObject, loadRuleSet, type ObjectName } from './lib/fixtures.js';
import type { LoadProbe } from './lib/engine-load-probe.js';
import { environment, formatTable, measurePerCall, type Stats } from './lib/measure.js';
import { microRows } from './lib/micro-bench.js';
import { below, formatTargets } from './lib/targets.js';

interface Scenario {
  readonly object: ObjectName;
  readonly rules: number;
}

/** Grouped by rule-set size: only one rule set is in the heap at a time (GC pauses scale with it). */
const SCENARIOS: Scenario[] = [
  { object: 'deployment-10kb', rules: 10 },
  { object: 'deployment-10kb', rules: 100 },
  { object: 'deployment-10kb', rules: 1000 },
  { object: 'pod-2kb', rules: 1000 },
  { object: 'service-2kb', rules: 1000 },
  { object: 'deployment-100kb', rules: 1000 },
  { object: 'deployment-10kb', rules: 10_000 },
  { object: 'deployment-100kb', rules: 10_000 },
];

function probe(rules: number): Promise<LoadProbe> {
  // The probe next to this module: compiled when this runs compiled, else through tsx.
  const compiled = import.meta.filename.endsWith('.js');
  const probeFile = join(import.meta.dirname, 'lib', `engine-load-probe.${compiled ? 'js' : 'ts'}`);
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...(compiled ? [] : ['--import', 'tsx']), probeFile, String(rules)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      resolve(JSON.parse(line) as LoadProbe);
    });
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load probe exited with ${String(code)}`));
    });
  });
}

function runScenario(store: RuleStore, scenario: Scenario): { stats: Stats; applied: number } {
  const request = {
    operation: 'CREATE' as const,
    namespace: 'team-a',
    object: loadObject(scenario.object),
  };
  const check = evaluate(store, request);
  if (check.failures.length + check.rejections.length > 0)
    throw new Error(
      `${scenario.object}: ${JSON.stringify(check.failures)} ${check.rejections.join()}`,
    );
  const name = `${scenario.object} × ${scenario.rules.toLocaleString('en-US')} rules (${String(check.applied.length)} apply)`;
  const stats = measurePerCall(name, () => evaluate(store, request), {
    maxSamples: 30_000,
    maxMs: 3000,
  });
  return { stats, applied: check.applied.length };
}

async function main(): Promise<void> {
  const probes = [await probe(10_000), await probe(1000)];
  const rows: Stats[] = [];
  const held: { current?: { size: number; store: RuleStore } | undefined } = {};
  for (const scenario of SCENARIOS) {
    if (held.current?.size !== scenario.rules) {
      held.current = undefined; // release the previous rule set before loading the next
      (globalThis as { gc?: () => void }).gc?.();
      const { store, errors } = loadRuleSet(scenario.rules);
      if (errors.length > 0) throw new Error(errors.join('\n'));
      held.current = { size: scenario.rules, store };
    }
    rows.push(runScenario(held.current.store, scenario).stats);
  }
  const micro = microRows(loadObject('deployment-10kb'));

  const p99Of = (prefix: string): number =>
    rows.find((r) => r.name.startsWith(prefix))?.p99Us ?? Number.NaN;
  const [big] = probes;
  const out = [
    `Engine benchmarks — ${environment()}`,
    '',
    'Evaluation (full `evaluate`: candidates, match, render, patch), per call, CREATE in team-a:',
    '',
    formatTable(rows),
    '',
    'Rule loading from YAML in a fresh process (cold), `--expose-gc`:',
    '',
    '| rules | parse ms | validate + compile ms | store.put ms | total ms | heap per rule | heap used MB | RSS before → after MB |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...probes.map(
      (p) =>
        `| ${p.rules.toLocaleString('en-US')} | ${p.parseMs.toFixed(0)} | ${p.compileMs.toFixed(0)} | ${p.putMs.toFixed(1)} | ${p.totalMs.toFixed(0)} | ${(p.heapPerRuleBytes / 1024).toFixed(1)} KiB | ${p.heapUsedMb.toFixed(0)} | ${p.rssBeforeMb.toFixed(0)} → ${p.rssAfterMb.toFixed(0)} |`,
    ),
    '',
    'Micro-benchmarks (10 KB Deployment; median/p99 of batch averages):',
    '',
    formatTable(micro),
    '',
    'Targets:',
    '',
    formatTargets([
      below(
        '10 KB Deployment, 100 rules (10 match): p99',
        p99Of('deployment-10kb × 100 '),
        200,
        'µs',
      ),
      below(
        '10 KB Deployment, 10,000 rules (10 match): p99',
        p99Of('deployment-10kb × 10,000'),
        400,
        'µs',
      ),
      below(
        'load 10,000 rules (parse + validate + compile + put)',
        (big?.totalMs ?? NaN) / 1000,
        3,
        's',
      ),
      below(
        'RSS with 10,000 rules loaded (engine process, after GC)',
        big?.rssAfterMb ?? NaN,
        150,
        'MB',
      ),
    ]),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
