/** The `rule` label of the per-rule series of rules past the cap (RuleLabels). */
export const OTHER_RULE_LABEL = 'other';

/** Rules with series of their own, by default (the operator's --metrics-max-rules). */
export const DEFAULT_MAX_RULE_SERIES = 1_000;

/** The share of the cap one namespace's rules may take: a tenth (at least one rule). */
export function namespaceShare(maxRules: number): number {
  return Math.max(1, Math.ceil(maxRules / 10));
}

function namespaceOf(rule: string): string {
  const slash = rule.indexOf('/');
  return slash === -1 ? '' : rule.slice(0, slash);
}

/**
 * Which rules (`<namespace>/<name>`) get per-rule metric series of their own. The first rules to
 * need one get it, up to `maxRules` in all and a tenth of that per namespace (so that one tenant
 * cannot take every place); the others are counted under `rule="other"`. A rule that leaves the
 * store is forgotten (`forget`): its series are removed at once by the listeners and its place
 * goes to the next rule that needs one. Memory and /metrics are thus bounded by the cap, whatever
 * rules tenants create and delete, and whether or not anything scrapes.
 */
export class RuleLabels {
  readonly maxRules: number;
  readonly maxPerNamespace: number;
  private readonly tracked = new Set<string>();
  private readonly perNamespace = new Map<string, number>();
  private readonly listeners: ((rule: string) => void)[] = [];

  constructor(maxRules: number = DEFAULT_MAX_RULE_SERIES) {
    if (!Number.isSafeInteger(maxRules) || maxRules < 0)
      throw new RangeError(`maxRules must be a non-negative integer, got ${String(maxRules)}`);
    this.maxRules = maxRules;
    this.maxPerNamespace = namespaceShare(maxRules);
  }

  /** The label value of `rule`: itself when it has (or now gets) a place, `other` otherwise. */
  label(rule: string): string {
    if (this.tracked.has(rule)) return rule;
    const namespace = namespaceOf(rule);
    const inNamespace = this.perNamespace.get(namespace) ?? 0;
    if (this.tracked.size >= this.maxRules || inNamespace >= this.maxPerNamespace)
      return OTHER_RULE_LABEL;
    this.tracked.add(rule);
    this.perNamespace.set(namespace, inNamespace + 1);
    return rule;
  }

  /** The rule is gone: its series are removed (by the listeners) and its place freed. */
  forget(rule: string): void {
    if (!this.tracked.delete(rule)) return;
    const namespace = namespaceOf(rule);
    const left = (this.perNamespace.get(namespace) ?? 1) - 1;
    if (left === 0) this.perNamespace.delete(namespace);
    else this.perNamespace.set(namespace, left);
    for (const listener of this.listeners) listener(rule);
  }

  /** Called with each forgotten rule, to remove its series. */
  onForget(listener: (rule: string) => void): void {
    this.listeners.push(listener);
  }

  /** The rules that have series of their own now. */
  rules(): string[] {
    return [...this.tracked];
  }
}
