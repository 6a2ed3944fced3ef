import { compileSelect, type CompiledSelect } from './expr/index.js';
import { compileRegex, type GoRegex } from './regex.js';
import { compileTemplate, type CompiledTemplate } from './template/index.js';
import { parseYamlValue } from './patch/index.js';
import type { JsonValue } from './json.js';
import { compileTemplatedSelect, isTemplated } from './templated-parts.js';

/**
 * The compilers a rule is built with. Compiled selects, regexes and templates are immutable, so
 * a process that loads many rules shares one instance per distinct source text (`$.kind` appears
 * in nearly every rule): see {@link cachingCompilers}.
 */
export interface Compilers {
  select(source: string): CompiledSelect;
  regex(pattern: string): GoRegex;
  template(source: string): CompiledTemplate;
  /**
   * A static patch value (a template without actions) read as YAML. The value is shared and never
   * mutated: patch application copies what it inserts.
   */
  staticValue(source: string): JsonValue;
}

export function directCompilers(): Compilers {
  return {
    select: selectOrTemplated,
    regex: compileRegex,
    template: compileTemplate,
    staticValue: parseYamlValue,
  };
}

/**
 * Compilers that intern results by source text, up to `capacity` entries and `maxSourceChars`
 * characters of source per kind (long sources compile to large closures, so the cache is bounded
 * by their size as well as their number; sources longer than a sixteenth of it are not kept).
 */
export function cachingCompilers(capacity = 50_000, maxSourceChars = 8 << 20): Compilers {
  return {
    select: interned(selectOrTemplated, capacity, maxSourceChars),
    regex: interned(compileRegex, capacity, maxSourceChars),
    template: interned(compileTemplate, capacity, maxSourceChars),
    staticValue: interned(parseYamlValue, capacity, maxSourceChars),
  };
}

/** A select without `{{` compiles as it always did; one with template actions renders first. */
function selectOrTemplated(source: string): CompiledSelect {
  return isTemplated(source) ? compileTemplatedSelect(source) : compileSelect(source);
}

function interned<T>(
  compile: (source: string) => T,
  capacity: number,
  maxSourceChars: number,
): (source: string) => T {
  const cache = new Map<string, T>();
  let sourceChars = 0;
  return (source) => {
    const hit = cache.get(source);
    if (hit !== undefined) return hit;
    const compiled = compile(source);
    if (source.length > maxSourceChars / 16) return compiled;
    if (cache.size >= capacity || sourceChars + source.length > maxSourceChars) {
      cache.clear();
      sourceChars = 0;
    }
    cache.set(source, compiled);
    sourceChars += source.length;
    return compiled;
  };
}
