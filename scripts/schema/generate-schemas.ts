// Writes the JSON Schemas under schemas/ from config/crd (ModRule, ExternalDataProvider) and the
// test-file schema (scripts/schema/test-file-schema.ts). Usage: npm run schema (npm run bundle
// runs it too). test/unit/json-schemas.test.ts fails when schemas/ is not current.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSchemas, SCHEMA_DIR } from './schema-files.js';

function main(): void {
  const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const dir = join(repoRoot, SCHEMA_DIR);
  const files = renderSchemas(repoRoot);
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.json') && !files.has(name)) rmSync(join(dir, name));
  }
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  console.log(`Wrote ${[...files.keys()].map((n) => `${SCHEMA_DIR}/${n}`).join(', ')}.`);
}

try {
  main();
} catch (error: unknown) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
