// Writes bundle.yaml (the single-file install) from the YAML sources under config/.
// Usage: npm run bundle
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE, renderBundle } from './bundle-sources.js';

function main(): void {
  const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
  const target = join(repoRoot, BUNDLE_FILE);
  writeFileSync(target, renderBundle(repoRoot));
  console.log(`Wrote ${target}.`);
}

try {
  main();
} catch (error: unknown) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
