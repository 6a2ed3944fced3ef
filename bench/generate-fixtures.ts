/**
 * Writes the committed benchmark inputs (deterministic: seeded PRNG, run once, commit the output):
 *
 *   bench/fixtures/objects/<name>.json          bare objects (engine benchmark)
 *   bench/fixtures/objects/<name>.review.json   AdmissionReview v1 CREATE bodies (HTTP benchmark)
 *   bench/fixtures/rules/<N>/*.yaml             rule sets of N = 10, 100, 1,000 and 10,000 ModRules
 *
 *   npx tsx bench/generate-fixtures.ts
 *
 * Files are written prettier-formatted, then checked: every rule set must load without errors and
 * exactly 10 of its rules must apply to the 10 KB Deployment.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { format } from 'prettier';
import {
  admissionReview,
  deployment,
  pod,
  service,
  type JsonRecord,
} from './lib/fixture-objects.js';
import { ruleSet } from './lib/fixture-rules.js';
import { createPrng } from './lib/prng.js';
import { FIXTURES, OBJECT_NAMES, RULE_SET_SIZES, loadObject, loadRuleSet } from './lib/fixtures.js';
import { evaluate } from '../src/engine/evaluate.js';

async function write(path: string, text: string, parser: 'json' | 'yaml'): Promise<void> {
  writeFileSync(path, await format(text, { parser, printWidth: 100, singleQuote: true }));
}

async function main(): Promise<void> {
  const objects: Record<(typeof OBJECT_NAMES)[number], JsonRecord> = {
    'pod-2kb': pod(createPrng(1)),
    'service-2kb': service(createPrng(2)),
    'deployment-10kb': deployment(createPrng(3), 4, 24),
    'deployment-100kb': deployment(createPrng(4), 14, 100),
  };
  const objectsDir = join(FIXTURES, 'objects');
  mkdirSync(objectsDir, { recursive: true });
  for (const [i, name] of OBJECT_NAMES.entries()) {
    const object = objects[name];
    const uid = `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
    await write(join(objectsDir, `${name}.json`), JSON.stringify(object), 'json');
    await write(
      join(objectsDir, `${name}.review.json`),
      JSON.stringify(admissionReview(object, uid)),
      'json',
    );
    process.stdout.write(
      `${name}: ${String(JSON.stringify(object).length)} bytes as compact JSON\n`,
    );
  }

  for (const size of RULE_SET_SIZES) {
    const dir = join(FIXTURES, 'rules', String(size));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let count = 0;
    for (const [file, docs] of ruleSet(createPrng(1000 + size), size)) {
      count += docs.length;
      const text = docs.map((doc) => dump(doc, { lineWidth: -1, noRefs: true })).join('---\n');
      await write(join(dir, file), text, 'yaml');
    }
    const { store, errors } = loadRuleSet(size);
    if (errors.length > 0 || store.size !== size || count !== size)
      throw new Error(
        `rule set ${String(size)}: ${String(store.size)} rules, ${errors.join('; ')}`,
      );
    const result = evaluate(store, {
      operation: 'CREATE',
      namespace: 'team-a',
      object: loadObject('deployment-10kb'),
    });
    if (result.applied.length !== 10 || result.rejections.length + result.failures.length > 0)
      throw new Error(`rule set ${String(size)}: ${String(result.applied.length)} rules applied`);
    process.stdout.write(
      `rules/${String(size)}: ${String(count)} rules, 10 match the Deployment\n`,
    );
  }
}

await main();
