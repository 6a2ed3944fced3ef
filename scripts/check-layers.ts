/**
 * `npm run lint:layers`: the import rules of .dependency-cruiser.cjs (no cycle, no import against
 * the layers; README "Architecture") over the project's TypeScript. Exits 1 listing each
 * violation. Usage: tsx scripts/check-layers.ts [root …] (default: src test bench scripts).
 */
import { resolve } from 'node:path';
import { checkLayers, describeViolation, loadLayerConfig } from './layers/check-layers.js';

const ROOT = resolve(import.meta.dirname, '..');
const roots = process.argv.length > 2 ? process.argv.slice(2) : ['src', 'test', 'bench', 'scripts'];
const started = performance.now();
const violations = await checkLayers(roots, loadLayerConfig(ROOT), ROOT);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
for (const v of violations) console.error(describeViolation(v));
if (violations.length > 0) {
  console.error(`check-layers: ${String(violations.length)} violation(s) in ${roots.join(' ')}`);
  process.exit(1);
}
console.log(
  `check-layers: no cycle, no import against the layers (${roots.join(' ')}, ${seconds} s)`,
);
