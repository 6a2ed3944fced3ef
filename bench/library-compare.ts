/**
 * The select language and the patcher against the libraries they replace (docs/decisions.md):
 * jsonpath-plus on the plain-JSONPath selects both evaluate alike, fast-json-patch on RFC 6902
 * operations both apply alike, on the 10 KB Deployment of the engine bench.
 * Run: npx tsx bench/library-compare.ts
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import jsonpatch from 'fast-json-patch';
import { JSONPath } from 'jsonpath-plus';
import { compileSelect } from '../src/engine/expr/index.js';
import type { JsonObject } from '../src/engine/json.js';
import { applyOperation, parseJsonPointer } from '../src/engine/patch/index.js';
import { measure, type Stats } from './lib/measure.js';

const doc = JSON.parse(
  readFileSync(resolve(import.meta.dirname, 'fixtures/objects/deployment-10kb.json'), 'utf8'),
) as JsonObject;

const SELECTS = [
  '$.metadata.labels.app',
  '$.spec.template.spec.containers[*].image',
  '$.spec.template.spec.containers[*].env[*].value',
];

function row(ours: Stats, theirs: Stats): string {
  const ratio = theirs.medianUs / ours.medianUs;
  return `| ${ours.name} | ${ours.medianUs.toFixed(2)} | ${theirs.medianUs.toFixed(2)} | ${ratio.toFixed(1)}× |`;
}

const rows: string[] = [];
for (const source of SELECTS) {
  const compiled = compileSelect(source);
  const ours = compiled.items(doc).map((item) => item.value);
  const theirs = JSONPath<unknown[]>({ path: source, json: doc, wrap: true, eval: false });
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error(`${source}: results differ`);
  rows.push(
    row(
      measure(`select \`${source}\``, () => compiled.items(doc)),
      measure(source, () => JSONPath({ path: source, json: doc, wrap: true, eval: false })),
    ),
  );
}

// Each pair leaves the document as it was, so no copy is timed.
const PATCHES: [string, jsonpatch.Operation, jsonpatch.Operation][] = [
  [
    'add + remove `/metadata/labels/team`',
    { op: 'add', path: '/metadata/labels/team', value: 'shop' },
    { op: 'remove', path: '/metadata/labels/team' },
  ],
  [
    'add + remove `/spec/template/spec/containers/0/env/0`',
    { op: 'add', path: '/spec/template/spec/containers/0/env/0', value: { name: 'A', value: 'b' } },
    { op: 'remove', path: '/spec/template/spec/containers/0/env/0' },
  ],
];
for (const [name, add, remove] of PATCHES) {
  // As the engine applies them: paths parsed once, when the rule is compiled.
  const addOp = add as Parameters<typeof applyOperation>[1];
  const removeOp = remove as Parameters<typeof applyOperation>[1];
  const addPath = parseJsonPointer(add.path);
  const removePath = parseJsonPointer(remove.path);
  const ours = measure(`patch ${name}`, () => {
    applyOperation(doc, addOp, addPath);
    applyOperation(doc, removeOp, removePath);
  });
  const theirs = measure(name, () => {
    jsonpatch.applyOperation(doc, add, false, true, false);
    jsonpatch.applyOperation(doc, remove, false, true, false);
  });
  rows.push(row(ours, theirs));
}

console.log(`node ${process.version}, median µs per call`);
console.log('| operation | kubemod-ts | library | library / ours |');
console.log('| --- | ---: | ---: | ---: |');
for (const line of rows) console.log(line);
