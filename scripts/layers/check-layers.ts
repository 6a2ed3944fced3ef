import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { cruise, type IConfiguration, type ICruiseOptions } from 'dependency-cruiser';

/** One broken rule: which rule, which import (and, for a cycle, the files around it). */
export interface LayerViolation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
  /** For a cycle: the files from `to` back to `from`. */
  readonly cycle: readonly string[];
}

/** The rule set and options of `.dependency-cruiser.cjs` at `configDir`. */
export function loadLayerConfig(configDir: string): IConfiguration {
  const require = createRequire(import.meta.url);
  return require(resolve(configDir, '.dependency-cruiser.cjs')) as IConfiguration;
}

/**
 * Runs dependency-cruiser with `config` over `roots` (paths relative to `baseDir`) and returns
 * every violation. Through the API rather than the CLI, which refuses Node versions before 22.
 */
export async function checkLayers(
  roots: readonly string[],
  config: IConfiguration,
  baseDir: string,
): Promise<LayerViolation[]> {
  const options: ICruiseOptions = {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  };
  const result = await cruise([...roots], options);
  if (typeof result.output === 'string') throw new Error('dependency-cruiser returned text');
  return result.output.summary.violations.map((v) => ({
    rule: v.rule.name,
    from: v.from,
    to: v.to,
    cycle: (v.cycle ?? []).map((step) => step.name),
  }));
}

/** `rule: from → to` (and the cycle's path), one violation per line. */
export function describeViolation(v: LayerViolation): string {
  const cycle = v.cycle.length > 0 ? ` (cycle: ${[v.from, ...v.cycle].join(' → ')})` : '';
  return `${v.rule}: ${v.from} → ${v.to}${cycle}`;
}
