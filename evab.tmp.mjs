import { readFileSync } from 'node:fs';
const root = process.argv[2]; const obj = process.argv[3];
const { loadRuleSet, wireBodyPath } = await import(root + '/dist/bench/lib/fixtures.js');
const { evaluate } = await import(root + '/dist/src/engine/evaluate.js');
const { store } = loadRuleSet(1000);
const review = JSON.parse(readFileSync(wireBodyPath(obj), 'utf8'));
const req = { operation: 'CREATE', namespace: review.request.namespace, object: review.request.object };
let t0 = performance.now(); while (performance.now() - t0 < 1500) evaluate(store, req);
const c0 = process.cpuUsage(); let n = 0; t0 = performance.now();
while (performance.now() - t0 < 3000) { for (let i = 0; i < 50; i++) { evaluate(store, req); n++; } }
const c = process.cpuUsage(c0); console.log(((c.user + c.system) / n).toFixed(2));
