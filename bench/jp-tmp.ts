import { readFileSync } from 'node:fs';
import { loadRuleSet, wireBodyPath } from './lib/fixtures.js';
const text = readFileSync(wireBodyPath('pod-2kb'), 'utf8');
function t(label: string): void {
  for (let i = 0; i < 20000; i++) JSON.parse(text);
  const a: number[] = [];
  for (let r = 0; r < 15; r++) { const t0 = performance.now(); for (let i = 0; i < 2000; i++) JSON.parse(text); a.push((performance.now() - t0) * 1000 / 2000); }
  a.sort((x, y) => x - y); console.log(label, a[7]?.toFixed(2), 'us');
}
t('fresh');
const { store } = loadRuleSet(Number(process.argv[2] ?? 1000));
t('after rules');
(globalThis as Record<string, unknown>).keep = store;
t('again');
