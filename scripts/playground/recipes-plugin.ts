import type { Plugin } from 'esbuild';
import { load } from 'js-yaml';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One recipe as the page gets it: recipe.yaml's fields, and the other files' YAML text. */
export interface PageRecipe {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** One of RECIPE_CATEGORIES: the group the page lists it in. */
  readonly category: string;
  readonly operation: string;
  readonly modrules: string;
  readonly resource: string;
  readonly refs?: string;
  readonly old?: string;
  readonly cluster?: string;
}

export const VIRTUAL_RECIPES = 'virtual:recipes';
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE'] as const;

/** The groups of the examples catalogue, in the order the page lists them. */
export const RECIPE_CATEGORIES = [
  'Labels and annotations',
  'Images',
  'Security',
  'Networking',
  'Workloads and resources',
  'Rule structure and lookups',
] as const;

/**
 * The recipes of `dir` (samples/recipes/<name>/{recipe.yaml, modrules.yaml, resource.yaml,
 * refs.yaml?, old.yaml?, cluster.yaml?}), by category and name. A directory without recipe.yaml is not a recipe; a missing
 * recipes directory is no recipes. A recipe.yaml without a `title` or `description` string, or
 * with an unknown `category` or `operation`, or a recipe without its modrules.yaml or resource.yaml, fails the
 * build naming the file and field.
 */
export async function readRecipes(dir: string): Promise<PageRecipe[]> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'recipe.yaml')))
    .map((entry) => entry.name)
    .sort();
  const recipes = await Promise.all(names.map((name) => readRecipe(join(dir, name), name)));
  const order = (recipe: PageRecipe): number =>
    (RECIPE_CATEGORIES as readonly string[]).indexOf(recipe.category);
  // By category (the page's groups), then by name; sort is stable.
  return recipes.sort((a, b) => order(a) - order(b));
}

async function readRecipe(dir: string, name: string): Promise<PageRecipe> {
  const metaFile = join(dir, 'recipe.yaml');
  const meta = load(await readFile(metaFile, 'utf8'));
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new Error(`${metaFile}: expected a mapping {title, description, operation?}`);
  }
  const field = (key: string): unknown => (meta as Record<string, unknown>)[key];
  const text = (key: 'title' | 'description'): string => {
    const value = field(key);
    if (typeof value !== 'string' || value.trim() === '') {
      throw new Error(`${metaFile}: ${key} must be a non-empty string`);
    }
    return value.trim();
  };
  const category = field('category');
  if (
    typeof category !== 'string' ||
    !(RECIPE_CATEGORIES as readonly string[]).includes(category)
  ) {
    throw new Error(`${metaFile}: category must be one of ${RECIPE_CATEGORIES.join(', ')}`);
  }
  const operation = field('operation') ?? 'CREATE';
  if (typeof operation !== 'string' || !(OPERATIONS as readonly string[]).includes(operation)) {
    throw new Error(`${metaFile}: operation must be one of ${OPERATIONS.join(', ')}`);
  }
  const file = async (base: string): Promise<string | undefined> => {
    const path = join(dir, base);
    return existsSync(path) ? readFile(path, 'utf8') : undefined;
  };
  const required = async (base: string): Promise<string> => {
    const content = await file(base);
    if (content === undefined)
      throw new Error(`${join(dir, base)}: missing (every recipe has one)`);
    return content;
  };
  const [modrules, resource, refs, old, cluster] = await Promise.all([
    required('modrules.yaml'),
    required('resource.yaml'),
    file('refs.yaml'),
    file('old.yaml'),
    file('cluster.yaml'),
  ]);
  return {
    name,
    title: text('title'),
    description: text('description'),
    category,
    operation,
    modrules,
    resource,
    ...(refs === undefined ? {} : { refs }),
    ...(old === undefined ? {} : { old }),
    ...(cluster === undefined ? {} : { cluster }),
  };
}

/**
 * esbuild plugin providing `import { RECIPES } from 'virtual:recipes'` (typed by
 * src/playground/virtual-recipes.d.ts): the recipes of `dir` read at build time, so the static
 * page carries every example and needs no server to list them.
 */
export function recipesPlugin(dir: string): Plugin {
  return {
    name: 'kubemod-recipes',
    setup(build): void {
      build.onResolve({ filter: /^virtual:recipes$/ }, () => ({
        path: VIRTUAL_RECIPES,
        namespace: 'kubemod-recipes',
      }));
      build.onLoad({ filter: /.*/, namespace: 'kubemod-recipes' }, async () => ({
        contents: `export const RECIPES = ${JSON.stringify(await readRecipes(dir))};\n`,
        loader: 'js',
        resolveDir: dir,
      }));
    },
  };
}
