import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { loadTestFile } from '../../../src/cli/rule-tests/load-test-file.js';
import { runTestFile } from '../../../src/cli/rule-tests/run-test-file.js';
import { parseDocuments } from '../../../src/engine/load-rules.js';
import { isJsonObject, type JsonValue } from '../../../src/engine/json.js';
import { checkModRule } from '../../../src/rules/compile-modrule.js';
import { DEFAULT_CLUSTER_NAMESPACE } from '../../../src/engine/rule.js';
import { RECIPE_CATEGORIES } from '../../../scripts/playground/recipes-plugin.js';

// The recipes of samples/recipes (the playground's examples library): each is complete, its
// ModRules are valid, and its own kubemod-test.yaml passes.

const RECIPES = join(import.meta.dirname, '..', '..', '..', 'samples', 'recipes');
const recipes = readdirSync(RECIPES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const REQUIRED = ['recipe.yaml', 'modrules.yaml', 'resource.yaml', 'kubemod-test.yaml'];
const OPTIONAL = ['refs.yaml', 'old.yaml', 'cluster.yaml'];

/** The documents of a recipe file; fails the test on a YAML error. */
function documents(recipe: string, file: string): JsonValue[] {
  const path = join(RECIPES, recipe, file);
  const parsed = parseDocuments(readFileSync(path, 'utf8'), path);
  expect(parsed.errors).toEqual([]);
  return parsed.documents as JsonValue[];
}

describe('samples/recipes', () => {
  it('holds at least 20 recipes, at least two in every category (issue 39)', () => {
    expect(recipes.length).toBeGreaterThanOrEqual(20);
    const categories = recipes.map((recipe) => {
      const [meta] = documents(recipe, 'recipe.yaml');
      return isJsonObject(meta) ? meta.category : undefined;
    });
    for (const category of RECIPE_CATEGORIES) {
      expect(categories.filter((c) => c === category).length).toBeGreaterThanOrEqual(2);
    }
  });

  it.each(recipes)('%s has the files of a recipe, and no others', (recipe) => {
    const files = readdirSync(join(RECIPES, recipe)).sort();
    for (const file of REQUIRED) expect(files).toContain(file);
    expect(files.filter((f) => !REQUIRED.includes(f) && !OPTIONAL.includes(f))).toEqual([]);
  });

  it.each(recipes)('%s: recipe.yaml has a title, a description and a valid operation', (recipe) => {
    const [meta, ...rest] = documents(recipe, 'recipe.yaml');
    expect(rest).toEqual([]);
    if (!isJsonObject(meta)) throw new Error('recipe.yaml must be a mapping');
    expect(
      Object.keys(meta).filter(
        (k) => !['title', 'description', 'category', 'operation'].includes(k),
      ),
    ).toEqual([]);
    expect(RECIPE_CATEGORIES).toContain(meta.category);
    expect(typeof meta.title === 'string' && meta.title.length > 0 && meta.title.length <= 80).toBe(
      true,
    );
    expect(typeof meta.description === 'string' && meta.description.length >= 40).toBe(true);
    expect([undefined, 'CREATE', 'UPDATE', 'DELETE']).toContain(meta.operation);
    // A DELETE recipe evaluates its old object; an UPDATE one may give it.
    if (meta.operation === 'DELETE')
      expect(existsSync(join(RECIPES, recipe, 'old.yaml'))).toBe(true);
  });

  it.each(recipes)('%s: every ModRule is valid', (recipe) => {
    const rules = documents(recipe, 'modrules.yaml');
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      const check = checkModRule(rule, {
        clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
        defaultNamespace: 'default',
      });
      expect(check.ok ? [] : check.errors).toEqual([]);
    }
  });

  it.each(recipes)('%s: refs.yaml and the manifests are well formed', (recipe) => {
    const [resource] = documents(recipe, 'resource.yaml');
    expect(isJsonObject(resource) && typeof resource.kind === 'string').toBe(true);
    if (existsSync(join(RECIPES, recipe, 'refs.yaml'))) {
      const [refs] = documents(recipe, 'refs.yaml');
      if (!isJsonObject(refs)) throw new Error('refs.yaml must be a mapping');
      expect(Object.keys(refs).filter((k) => k !== 'namespace' && k !== 'node')).toEqual([]);
      if (refs.namespace !== undefined) expect(refs.namespace).toMatchObject({ kind: 'Namespace' });
      if (refs.node !== undefined) expect(refs.node).toMatchObject({ kind: 'Node' });
    }
  });

  it.each(recipes)('%s: its kubemod-test.yaml passes', (recipe) => {
    const load = loadTestFile(join(RECIPES, recipe, 'kubemod-test.yaml'));
    if (!load.ok) throw new Error(load.errors.join('\n'));
    const result = runTestFile(load.test);
    expect(result.cases.length).toBeGreaterThan(0);
    expect(result.cases.filter((c) => c.status !== 'pass')).toEqual([]);
  });

  it('`kubemod-ts test samples` runs the recipes after the two sample files', async () => {
    let stdout = '';
    const samples = join(RECIPES, '..');
    const code = await main(['test', samples], {
      stdout: (t) => (stdout += t),
      stderr: () => undefined,
      env: {},
    });
    const lines = stdout.trimEnd().split('\n');
    const files = lines.filter((line) => line.startsWith(samples));
    expect(files.slice(2)).toEqual(recipes.map((r) => join(RECIPES, r, 'kubemod-test.yaml')));
    const cases = lines.filter((line) => line.startsWith('  PASS   ')).length;
    expect(lines.at(-1)).toBe(
      `${String(cases)} cases in ${String(files.length)} files: ${String(cases)} passed`,
    );
    expect(code).toBe(0);
  });
});
