import type { CompiledRule } from '../../engine/rule.js';
import { DEFAULT_CLUSTER_NAMESPACE } from '../../engine/rule.js';
import { RuleStore } from '../../engine/store.js';
import { checkModRule, describeInvalidModRule } from '../../rules/compile-modrule.js';
import { compileRuleSources, type RuleSource } from '../read-inputs.js';

/** One item of a test file's `rules`: the ModRule files of a path, or one inline ModRule. */
export type RuleEntry =
  | {
      readonly kind: 'files';
      /** `rules[<i>]` */
      readonly field: string;
      readonly sources: readonly RuleSource[];
    }
  | { readonly kind: 'inline'; readonly field: string; readonly document: unknown };

/** A test file's rules compiled for requests in one namespace. */
export interface CompiledRuleSet {
  readonly store: RuleStore;
  /** One line per refused rule: `rules[<i>]: …` naming the file or ModRule and the field. */
  readonly errors: readonly string[];
}

/** A test file's rules, compiled once per namespace that rules without a namespace go to. */
export interface RuleSets {
  forNamespace(defaultNamespace: string): CompiledRuleSet;
}

/**
 * Compiles the entries as the webhook would: rule files like `dryrun --modrule`, inline rules
 * with the admission check of `/v1/dryrun`. A ModRule defined twice is an error (a store would
 * silently keep the last one).
 */
export function compileRuleEntries(
  entries: readonly RuleEntry[],
  defaultNamespace: string,
): CompiledRuleSet {
  const store = new RuleStore();
  const errors: string[] = [];
  const definedIn = new Map<string, string>();
  for (const entry of entries) {
    let rules: readonly CompiledRule[];
    if (entry.kind === 'files') {
      const loaded = compileRuleSources(entry.sources, defaultNamespace);
      errors.push(...loaded.errors.map((line) => `${entry.field}: ${line}`));
      rules = loaded.rules;
    } else {
      const check = checkModRule(entry.document, {
        clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
        defaultNamespace,
      });
      if (!check.ok) {
        errors.push(`${entry.field}: ${describeInvalidModRule(check.key, check.errors)}`);
        continue;
      }
      rules = [check.rule];
    }
    for (const rule of rules) {
      const earlier = definedIn.get(rule.key);
      if (earlier !== undefined) {
        const also = earlier === entry.field ? '' : ` (also in ${earlier})`;
        errors.push(`${entry.field}: ModRule ${rule.key} is defined twice${also}`);
        continue;
      }
      definedIn.set(rule.key, entry.field);
      store.put(rule);
    }
  }
  return { store, errors };
}

/** RuleSets over `entries`, compiling each namespace's set on first use. */
export function createRuleSets(entries: readonly RuleEntry[]): RuleSets {
  const compiled = new Map<string, CompiledRuleSet>();
  return {
    forNamespace(defaultNamespace: string): CompiledRuleSet {
      let set = compiled.get(defaultNamespace);
      if (set === undefined) {
        set = compileRuleEntries(entries, defaultNamespace);
        compiled.set(defaultNamespace, set);
      }
      return set;
    },
  };
}
