// STAND-IN written by helper h28ui so that its branch builds before h28build's `virtual:recipes`
// plugin is merged; remove this file (and its use in build-page.ts) in favour of h28build's.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

/** `virtual:recipes`: the recipes of samples/recipes (HELPERS.md's contract). */
export function recipesStandIn(root: string): Plugin {
  return {
    name: 'virtual-recipes-standin',
    setup(build) {
      build.onResolve({ filter: /^virtual:recipes$/ }, () => ({
        path: 'recipes',
        namespace: 'virtual-recipes',
      }));
      build.onLoad({ filter: /.*/, namespace: 'virtual-recipes' }, () => {
        const dir = join(root, 'samples/recipes');
        const names = existsSync(dir) ? readdirSync(dir).sort() : [];
        const read = (name: string, file: string): string | undefined =>
          existsSync(join(dir, name, file))
            ? readFileSync(join(dir, name, file), 'utf8')
            : undefined;
        const recipes = names
          .filter((name) => existsSync(join(dir, name, 'recipe.yaml')))
          .map((name) => {
            const meta = read(name, 'recipe.yaml') ?? '';
            const field = (key: string): string =>
              new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(meta)?.[1]?.replace(/^['"]|['"]$/g, '') ??
              '';
            return {
              name,
              title: field('title') || name,
              description: field('description'),
              operation: field('operation') || undefined,
              modrules: read(name, 'modrules.yaml') ?? '',
              resource: read(name, 'resource.yaml') ?? '',
              refs: read(name, 'refs.yaml'),
              old: read(name, 'old.yaml'),
            };
          });
        return { contents: `export const RECIPES = ${JSON.stringify(recipes)};`, loader: 'js' };
      });
    },
  };
}
