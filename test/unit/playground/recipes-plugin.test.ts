import { build } from 'esbuild';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecipes, recipesPlugin } from '../../../scripts/playground/recipes-plugin.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function recipe(root: string, name: string, files: Record<string, string>): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(root, name, file), text);
}

/** Bundles `import { RECIPES } from 'virtual:recipes'` with the plugin and runs it. */
async function bundledRecipes(root: string): Promise<unknown> {
  const result = await build({
    stdin: { contents: "export { RECIPES } from 'virtual:recipes';", loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
    plugins: [recipesPlugin(root)],
  });
  const code = result.outputFiles[0]?.text ?? '';
  const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as {
    RECIPES: unknown;
  };
  return module.RECIPES;
}

describe('virtual:recipes', () => {
  it('bundles every recipe by name: recipe.yaml fields and the other files as text', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubemod-recipes-'));
    await recipe(dir, 'b-update', {
      'recipe.yaml':
        'title: Second\ndescription: " On update. "\noperation: UPDATE\ncategory: Labels and annotations\n',
      'modrules.yaml': 'kind: ModRule # b\n',
      'resource.yaml': 'kind: Pod\n',
      'refs.yaml': 'namespace:\n  kind: Namespace\n',
      'old.yaml': 'kind: Pod # old\n',
      'cluster.yaml': 'kind: ConfigMap # cluster\n',
    });
    await recipe(dir, 'a-create', {
      'recipe.yaml': 'title: First\ndescription: Adds a label.\ncategory: Security\n',
      'modrules.yaml': 'kind: ModRule # a\n',
      'resource.yaml': 'kind: Deployment\n',
      'kubemod-test.yaml': 'tests: []\n',
    });
    await recipe(dir, 'not-a-recipe', { 'modrules.yaml': 'kind: ModRule\n' });
    const expected = [
      // By category (in RECIPE_CATEGORIES' order) before name.
      {
        name: 'b-update',
        title: 'Second',
        description: 'On update.',
        category: 'Labels and annotations',
        operation: 'UPDATE',
        modrules: 'kind: ModRule # b\n',
        resource: 'kind: Pod\n',
        refs: 'namespace:\n  kind: Namespace\n',
        old: 'kind: Pod # old\n',
        cluster: 'kind: ConfigMap # cluster\n',
      },
      {
        name: 'a-create',
        title: 'First',
        description: 'Adds a label.',
        category: 'Security',
        operation: 'CREATE',
        modrules: 'kind: ModRule # a\n',
        resource: 'kind: Deployment\n',
      },
    ];
    expect(await readRecipes(dir)).toEqual(expected);
    expect(await bundledRecipes(dir)).toEqual(expected);
  });

  it('is empty without a recipes directory', async () => {
    expect(await bundledRecipes(join(tmpdir(), 'kubemod-no-recipes-here'))).toEqual([]);
  });

  it('fails the build naming the file and field of a bad recipe', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubemod-recipes-'));
    await recipe(dir, 'bad', {
      'recipe.yaml': 'title: Bad\ndescription: x\noperation: PATCH\ncategory: Images\n',
      'modrules.yaml': '',
      'resource.yaml': '',
    });
    await expect(readRecipes(dir)).rejects.toThrow(
      `${join(dir, 'bad', 'recipe.yaml')}: operation must be one of CREATE, UPDATE, DELETE`,
    );
    await recipe(dir, 'bad', { 'recipe.yaml': 'title: Bad\ndescription: x\ncategory: Misc\n' });
    await expect(readRecipes(dir)).rejects.toThrow(
      `${join(dir, 'bad', 'recipe.yaml')}: category must be one of Labels and annotations, Images,`,
    );
    await recipe(dir, 'bad', { 'recipe.yaml': 'title: Bad\ncategory: Images\n' });
    await expect(readRecipes(dir)).rejects.toThrow('description must be a non-empty string');
    await expect(bundledRecipes(dir)).rejects.toThrow('description must be a non-empty string');
  });
});
