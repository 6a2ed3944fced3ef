import type { MatchItemSpec } from '../../api/modrule-types.js';
import { compileMatchItem, type CompiledMatchItem } from './criteria.js';
import { KubemodError } from '../../errors/catalog.js';
import type { MatchTracer } from './match-tracer.js';

export interface CompiledMatch {
  readonly items: readonly CompiledMatchItem[];
  /**
   * True when every criteria item matches (it stops at the first that does not). Throws EXPR_TYPE
   * when a select fails on the object. Reports each item and the result to `trace`, when given.
   */
  matches(object: unknown, trace?: MatchTracer): boolean;
}

/** Compiles a whole `match` section; errors carry the item's path (`spec.match[2].select`). */
export function compileMatch(
  items: readonly MatchItemSpec[],
  fieldPrefix = 'spec.match',
  compilers?: Parameters<typeof compileMatchItem>[1],
): CompiledMatch {
  const errors: KubemodError[] = [];
  const compiled: CompiledMatchItem[] = [];
  items.forEach((item, i) => {
    try {
      compiled.push(compileMatchItem(item, compilers));
    } catch (err) {
      if (!(err instanceof KubemodError)) throw err;
      errors.push(err.atField(`${fieldPrefix}[${i}]`));
    }
  });
  if (errors.length > 0) throw new MatchCompileError(errors);
  // An exact-size copy: arrays grown by push keep spare capacity, and rules live long.
  return compiledMatch(compiled.slice(), fieldPrefix);
}

/** Kept apart so the closure retains only the compiled items (not the compile-time state). */
function compiledMatch(items: readonly CompiledMatchItem[], fieldPrefix: string): CompiledMatch {
  return {
    items,
    matches: (object, trace) => {
      for (let i = 0; i < items.length; i++) {
        try {
          if (items[i]?.matches(object, trace) !== true) {
            trace?.matchEnd(false);
            return false;
          }
        } catch (err) {
          throw err instanceof KubemodError
            ? err.atField(`${fieldPrefix}[${String(i)}].select`)
            : err;
        }
      }
      trace?.matchEnd(true);
      return true;
    },
  };
}

/** Every problem found while compiling a match section. */
export class MatchCompileError extends Error {
  constructor(readonly errors: readonly KubemodError[]) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'MatchCompileError';
  }
}
