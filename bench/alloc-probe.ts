/**
 * Allocation probe for the evaluation hot path: how many young-generation collections
 * (scavenges) N evaluations cause, counted with PerformanceObserver 'gc' entries. Fewer scavenges
 * per evaluation means less allocated per evaluation; it is far steadier under a loaded machine
 * than timings, so it can compare two builds (e.g. explain's tracer hooks absent vs present on
 * the path where no tracer is passed).
 *
 *   npx tsc -p tsconfig.bench.json
 *   node --min-semi-space-size=16 --max-semi-space-size=16 dist/bench/alloc-probe.js \
 *     [rules=100] [object=deployment-10kb] [evaluations=20000] [rounds=5]
 *
 * A fixed semi-space size keeps every scavenge at the same number of bytes (V8 otherwise grows the
 * young generation during the first rounds). The work meter gets a clock that stands still, so
 * that its time backstops cannot fail rules on a loaded machine: every evaluation does the same
 * work. Prints one JSON line: the scavenges of each round and evaluations per scavenge (median).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { evaluate, type EvaluationRequest } from '../src/engine/evaluate.js';
import { loadObject, loadRuleSet, OBJECT_NAMES, type ObjectName } from './lib/fixtures.js';

interface AllocProbe {
  readonly rules: number;
  readonly object: ObjectName;
  readonly evaluations: number;
  readonly applied: number;
  readonly scavengesPerRound: number[];
  readonly evaluationsPerScavenge: number;
  readonly msPerRound: number[];
}

function isMinorGc(entry: PerformanceEntry): boolean {
  const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
  return detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;
}

/** Lets the observer receive the entries of the collections that already happened. */
function drain(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 20));
}

async function probe(
  rules: number,
  object: ObjectName,
  evaluations: number,
  rounds: number,
): Promise<AllocProbe> {
  const { store, errors } = loadRuleSet(rules);
  if (errors.length > 0) throw new Error(errors.join('\n'));
  const request: EvaluationRequest = {
    operation: 'CREATE',
    namespace: 'team-a',
    object: loadObject(object),
    clock: () => 0,
  };
  for (let i = 0; i < 2000; i++) evaluate(store, request); // warm up: optimised code, steady heap
  const check = evaluate(store, request);
  if (check.failures.length > 0) throw new Error(JSON.stringify(check.failures));

  let minor = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (isMinorGc(entry)) minor++;
  });
  observer.observe({ entryTypes: ['gc'] });
  const scavengesPerRound: number[] = [];
  const msPerRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    await drain();
    const before = minor;
    const started = performance.now();
    for (let i = 0; i < evaluations; i++) evaluate(store, request);
    msPerRound.push(performance.now() - started);
    await drain();
    scavengesPerRound.push(minor - before);
  }
  observer.disconnect();
  const sorted = [...scavengesPerRound].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return {
    rules,
    object,
    evaluations,
    applied: check.applied.length,
    scavengesPerRound,
    evaluationsPerScavenge: median === 0 ? evaluations : Math.round(evaluations / median),
    msPerRound: msPerRound.map((ms) => Math.round(ms)),
  };
}

const [rulesArg = '100', objectArg = 'deployment-10kb', countArg = '20000', roundsArg = '5'] =
  process.argv.slice(2);
if (!(OBJECT_NAMES as readonly string[]).includes(objectArg)) {
  throw new Error(`object must be one of ${OBJECT_NAMES.join(', ')}`);
}
const result = await probe(
  Number(rulesArg),
  objectArg as ObjectName,
  Number(countArg),
  Number(roundsArg),
);
process.stdout.write(`${JSON.stringify(result)}\n`);
