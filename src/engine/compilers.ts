import { compileSelect, type CompiledSelect } from './expr/index.js';
import { compileRegex, type GoRegex } from './regex.js';
import { compileTemplate, type CompiledTemplate } from './template/index.js';

/**
 * The compilers a rule is built with. Compiled selects, regexes and templates are immutable, so
 * a process that loads many rules shares one instance per distinct source text (`$.kind` appears
 * in nearly every rule): see {@link cachingCompilers}.
 */
export interface Compilers {
  select(source: string): CompiledSelect;
  regex(pattern: string): GoRegex;
  template(source: string): CompiledTemplate;
}

export function directCompilers(): Compilers {
  return { select: compileSelect, regex: compileRegex, template: compileTemplate };
}

/** Compilers that intern results by source text, up to `capacity` entries per kind. */
export function cachingCompilers(capacity = 50_000): Compilers {
  return {
    select: interned(compileSelect, capacity),
    regex: interned(compileRegex, capacity),
    template: interned(compileTemplate, capacity),
  };
}

function interned<T>(compile: (source: string) => T, capacity: number): (source: string) => T {
  const cache = new Map<string, T>();
  return (source) => {
    const hit = cache.get(source);
    if (hit !== undefined) return hit;
    const compiled = compile(source);
    if (cache.size >= capacity) cache.clear();
    cache.set(source, compiled);
    return compiled;
  };
}
