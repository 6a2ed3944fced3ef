/**
 * Run in a fresh process (`node --expose-gc dist/bench/lib/engine-load-probe.js <N>` compiled, or
 * the source through tsx): loads the N-rule set from its YAML texts (parse, validate + compile,
 * store.put) once, cold, and prints one JSON LoadProbe line with the phase times, the heap
 * retained per rule and the RSS after load.
 */
import { compileModRules, parseDocuments } from '../../src/engine/load-rules.js';
import { cachingCompilers } from '../../src/engine/compilers.js';
import { RuleStore } from '../../src/engine/store.js';
import type { CompiledRule } from '../../src/engine/rule.js';
import { CLUSTER_NAMESPACE } from './fixture-rules.js';
import { ruleSetTexts } from './fixtures.js';

export interface LoadProbe {
  readonly rules: number;
  readonly parseMs: number;
  readonly compileMs: number;
  readonly putMs: number;
  readonly totalMs: number;
  readonly heapPerRuleBytes: number;
  readonly heapUsedMb: number;
  readonly rssBeforeMb: number;
  readonly rssAfterMb: number;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run node with --expose-gc');
  collect();
  collect();
}

const mb = (bytes: number): number => bytes / 2 ** 20;

function probe(size: number): LoadProbe {
  const texts = ruleSetTexts(size);
  // As the operator and `serve` load rules: with interning compilers shared by the whole set.
  const options = {
    defaultNamespace: 'default',
    clusterNamespace: CLUSTER_NAMESPACE,
    compilers: cachingCompilers(),
  };
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  const parsed = texts.map(({ source, text }) => ({ source, ...parseDocuments(text, source) }));
  const t1 = performance.now();
  const compiled: CompiledRule[] = [];
  for (const { source, documents } of parsed) {
    const loaded = compileModRules(documents, source, options);
    if (loaded.errors.length > 0) throw new Error(loaded.errors.join('\n'));
    compiled.push(...loaded.rules);
  }
  const t2 = performance.now();
  const store = new RuleStore({ clusterNamespace: CLUSTER_NAMESPACE });
  for (const rule of compiled) store.put(rule);
  store.candidates({ namespace: 'team-a', kind: 'Deployment', operation: 'CREATE' }); // builds the index
  const t3 = performance.now();
  parsed.length = 0;
  compiled.length = 0;
  gc();
  const heapAfter = process.memoryUsage().heapUsed;
  if (store.size !== size) throw new Error(`loaded ${String(store.size)} of ${String(size)} rules`);
  return {
    rules: store.size,
    parseMs: t1 - t0,
    compileMs: t2 - t1,
    putMs: t3 - t2,
    totalMs: t3 - t0,
    heapPerRuleBytes: (heapAfter - heapBefore) / size,
    heapUsedMb: mb(heapAfter),
    rssBeforeMb: mb(rssBefore),
    rssAfterMb: mb(process.memoryUsage.rss()),
  };
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('engine-load-probe.ts') || entry.endsWith('engine-load-probe.js')) {
  process.stdout.write(`${JSON.stringify(probe(Number(process.argv[2] ?? '10000')))}\n`);
}
