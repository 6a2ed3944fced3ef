/**
 * The time backstop's margin: the slowest rules the unit budgets allow, each evaluated with the
 * time backstops lifted, timed on the backstop's own clock (cpuClock), warm (the worst of
 * repeated runs in this process) and cold (the first run in a fresh process each). Every probe
 * must end by its units (or finish); the backstop (DEFAULT_WORK_LIMITS) must stay far above the
 * slowest. `npm run bench:margin`; figures go into BENCHMARKS.md and docs/hostile-input.md.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuClock, cpuClockKind } from '../src/engine/cpu-clock.js';
import { evaluate, type EvaluationResult } from '../src/engine/evaluate.js';
import type { JsonObject } from '../src/engine/json.js';
import { loadModRules } from '../src/engine/load-rules.js';
import { RuleStore } from '../src/engine/store.js';
import { DEFAULT_WORK_LIMITS } from '../src/engine/work-limits.js';
import { marginProbes, type MarginProbe } from './lib/margin-probes.js';

const UNTIMED = {
  ruleMillis: Number.POSITIVE_INFINITY,
  namespaceMillis: Number.POSITIVE_INFINITY,
  requestMillis: Number.POSITIVE_INFINITY,
};
const WARM_RUNS = 20;

interface Timed {
  readonly ms: number;
  readonly result: EvaluationResult;
}

function prepare(probe: MarginProbe): { store: RuleStore; object: JsonObject } {
  const loaded = loadModRules(probe.rules, probe.name, {
    defaultNamespace: 'probe',
    clusterNamespace: 'kubemod-system',
  });
  if (loaded.errors.length > 0) throw new Error(`${probe.name}: ${loaded.errors.join('\n')}`);
  const store = new RuleStore();
  for (const rule of loaded.rules) store.put(rule);
  return { store, object: probe.object() };
}

function timed(probe: MarginProbe, store: RuleStore, object: JsonObject): Timed {
  const clock = cpuClock();
  const start = clock();
  const result = evaluate(store, {
    operation: 'CREATE',
    namespace: 'probe',
    object,
    work: UNTIMED,
  });
  return { ms: clock() - start, result };
}

/** How the probe's rules ended: by units, or done. */
function endings(result: EvaluationResult): string {
  if (result.failures.length === 0) return 'completed';
  return [...new Set(result.failures.map((f) => (/unit/.test(f.message) ? 'units' : f.message)))]
    .sort()
    .join(', ');
}

function cold(name: string): void {
  const probe = marginProbes().find((p) => p.name === name);
  if (probe === undefined) throw new Error(`no probe ${name}`);
  const { store, object } = prepare(probe);
  const run = timed(probe, store, object);
  console.log(JSON.stringify({ ms: run.ms, ending: endings(run.result) }));
}

function main(): void {
  const self = fileURLToPath(import.meta.url);
  const backstop = DEFAULT_WORK_LIMITS;
  console.log(
    `clock: ${cpuClockKind()}; backstop: rule ${String(backstop.ruleMillis)} ms, namespace ${String(backstop.namespaceMillis)} ms, request ${String(backstop.requestMillis)} ms`,
  );
  console.log(
    'probe | ended by | warm median ms | warm worst ms | cold ms (fresh process) | backstop / slowest',
  );
  let worst = 0;
  for (const probe of marginProbes()) {
    const { store, object } = prepare(probe);
    const times: number[] = [];
    let ending = '';
    for (let i = 0; i < WARM_RUNS; i++) {
      const run = timed(probe, store, object);
      times.push(run.ms);
      ending = endings(run.result);
    }
    times.sort((a, b) => a - b);
    const warm = times[times.length - 1] ?? 0;
    const median = times[Math.floor(times.length / 2)] ?? 0;
    const out = execFileSync(process.execPath, [self, '--cold', probe.name], { encoding: 'utf8' });
    const coldRun = JSON.parse(out) as { ms: number; ending: string };
    worst = Math.max(worst, warm, coldRun.ms);
    const limit = probe.namespaceWide ? backstop.namespaceMillis : backstop.ruleMillis;
    console.log(
      `${probe.name} | ${ending} | ${median.toFixed(1)} | ${warm.toFixed(1)} | ${coldRun.ms.toFixed(1)} | ${(limit / Math.max(warm, coldRun.ms)).toFixed(0)}×`,
    );
  }
  console.log(`slowest: ${worst.toFixed(1)} ms`);
}

if (process.argv[2] === '--cold') cold(process.argv[3] ?? '');
else main();
