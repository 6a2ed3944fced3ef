import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dump, load } from 'js-yaml';
import jsonpatch from 'fast-json-patch';
import { loadModRules } from '../../src/engine/load-rules.js';
import { RuleStore } from '../../src/engine/store.js';
import { evaluate, type EvaluationRequest, type SyntheticRefs } from '../../src/engine/evaluate.js';
import { explainEvaluation } from '../../src/engine/explain/index.js';
import { evaluateSliced } from '../../src/engine/sliced-evaluation.js';
import { checkExplanation } from './explain-agreement.js';
import type { JsonObject } from '../../src/engine/json.js';
import type { AdmissionOperation } from '../../src/api/index.js';

/**
 * Fixture table: test/fixtures/eval/<case>/{modrules.yaml, resource.yaml, [request.yaml], expected.yaml}.
 * `UPDATE_FIXTURES=1` writes missing expected.yaml files (review them before committing).
 */
interface Request {
  operation?: AdmissionOperation;
  namespace?: string;
  syntheticRefs?: SyntheticRefs;
}
interface Expected {
  patched: JsonObject;
  rejections: string[];
  failures: { rule: string; field: string | null; code: string }[];
}

const root = join(import.meta.dirname, '..', 'fixtures', 'eval');
const read = (dir: string, file: string): unknown => {
  const path = join(root, dir, file);
  return existsSync(path) ? load(readFileSync(path, 'utf8')) : undefined;
};

/** The fixture's rules in a store, and its request. */
function setup(dir: string): { store: RuleStore; request: EvaluationRequest } {
  const resource = read(dir, 'resource.yaml') as JsonObject;
  const request = (read(dir, 'request.yaml') ?? {}) as Request;
  const meta = resource.metadata as { namespace?: string } | undefined;
  const namespace = request.namespace ?? meta?.namespace;
  const store = new RuleStore();
  const loaded = loadModRules(
    readFileSync(join(root, dir, 'modrules.yaml'), 'utf8'),
    `${dir}/modrules.yaml`,
    {
      defaultNamespace: namespace ?? 'default',
    },
  );
  if (loaded.errors.length > 0) throw new Error(loaded.errors.join('\n'));
  loaded.rules.forEach((rule) => {
    store.put(rule);
  });
  return {
    store,
    request: {
      operation: request.operation ?? 'CREATE',
      namespace,
      object: resource,
      syntheticRefs: request.syntheticRefs,
      // The fixtures check what rules produce: the wall-clock backstops (tested with the work
      // meter) must not fail a rule on a loaded machine. Work units keep their default limits.
      work: { ruleMillis: 60_000, namespaceMillis: 60_000, requestMillis: 60_000 },
    },
  };
}

function run(dir: string): Expected & { patch: jsonpatch.Operation[]; resource: JsonObject } {
  const { store, request } = setup(dir);
  const resource = request.object;
  const result = evaluate(store, request);
  return {
    resource,
    patch: result.patch as jsonpatch.Operation[],
    patched: result.patched,
    rejections: result.rejections,
    failures: result.failures.map((f) => ({ rule: f.rule, field: f.field ?? null, code: f.code })),
  };
}

const cases = readdirSync(root).sort();

describe('engine evaluation fixtures', () => {
  it.each(cases)('%s', (dir) => {
    const before = JSON.stringify(read(dir, 'resource.yaml'));
    const actual = run(dir);
    const expectedPath = join(root, dir, 'expected.yaml');
    if (!existsSync(expectedPath) && process.env.UPDATE_FIXTURES === '1') {
      const { patched, rejections, failures } = actual;
      writeFileSync(
        expectedPath,
        dump({ patched, rejections, failures }, { lineWidth: 120, noRefs: true }),
      );
    }
    const expected = read(dir, 'expected.yaml') as Expected;
    expect(actual.patched).toEqual(expected.patched);
    expect(actual.rejections).toEqual(expected.rejections);
    expect(actual.failures).toEqual(expected.failures);
    // The patch sent to the API server turns the object as received into the patched object…
    const applied = jsonpatch.applyPatch(
      JSON.parse(before) as JsonObject,
      actual.patch,
      true,
      false,
    ).newDocument;
    expect(applied).toEqual(expected.patched);
    // …never mentions syntheticRefs, and the request object itself is left untouched.
    expect(actual.patch.some((op) => op.path.startsWith('/syntheticRefs'))).toBe(false);
    expect(JSON.stringify(actual.resource)).toBe(before);
  });
});

describe('explain on the evaluation fixtures', () => {
  it.each(cases)(
    '%s: the trace agrees with the result, which explaining leaves unchanged',
    (dir) => {
      const setUp = setup(dir);
      const { store } = setUp;
      // A clock that stands still: the work meter's time backstops must not make the two runs
      // differ on a loaded machine (units are still counted and limited).
      const request = { ...setUp.request, clock: () => 0 };
      const plain = evaluate(store, request);
      // Limits no fixture meets, so every value can be compared whole.
      const { result, explanation } = explainEvaluation(store, request, {
        valueChars: 1_000_000,
        textChars: 1_000_000,
      });
      expect(result).toEqual(plain);
      checkExplanation(explanation, result, store, request);
    },
  );
});

describe('sliced evaluation on the evaluation fixtures', () => {
  it.each(cases)('%s: yielding after every rule gives the same result', async (dir) => {
    const setUp = setup(dir);
    const request = { ...setUp.request, clock: () => 0 };
    const plain = evaluate(setUp.store, request);
    let turns = 0;
    const sliced = await evaluateSliced(setUp.store, request, {
      sliceMs: 0,
      yieldToLoop: () => {
        turns += 1;
        return Promise.resolve();
      },
    });
    expect(sliced.result).toEqual(plain);
    expect(sliced.yields).toBe(turns);
    // One step per rule the request met (matched, applied or judged), each followed by a yield.
    expect(turns).toBeGreaterThan(0);
  });
});
