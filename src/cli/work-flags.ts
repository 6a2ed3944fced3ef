import { DEFAULT_WORK_LIMITS, type WorkLimits } from '../engine/work-limits.js';
import { integerFlag } from './flag-values.js';

/** The work-limit flags `serve` and `operator` share, as node:util parseArgs options. */
export const WORK_FLAG_OPTIONS = {
  'rule-work-units': { type: 'string' },
  'namespace-work-units': { type: 'string' },
  'request-work-units': { type: 'string' },
  'render-work-units': { type: 'string' },
  'rule-time-ms': { type: 'string' },
  'namespace-time-ms': { type: 'string' },
  'request-time-ms': { type: 'string' },
} as const;

/** Their help lines (flag column 29 wide, as in both usages). */
export function workFlagsUsage(width: number): string {
  const line = (flag: string, text: string): string => `  ${flag.padEnd(width)}${text}\n`;
  const d = DEFAULT_WORK_LIMITS;
  return [
    line(
      '--rule-work-units <n>',
      `work one rule may do per request (default ${String(d.ruleUnits)})`,
    ),
    line(
      '--namespace-work-units <n>',
      `work the rules of one namespace may do per request (default ${String(d.namespaceUnits)})`,
    ),
    line(
      '--request-work-units <n>',
      `work outside rules per request: diffs (default ${String(d.requestUnits)})`,
    ),
    line(
      '--render-work-units <n>',
      `work one template render may do, out of its rule's (default ${String(d.renderUnits)})`,
    ),
    line(
      '--rule-time-ms <ms>',
      `CPU-time backstop of one rule per request; units decide (default ${String(d.ruleMillis)})`,
    ),
    line(
      '--namespace-time-ms <ms>',
      `CPU-time backstop of one namespace's rules per request (default ${String(d.namespaceMillis)})`,
    ),
    line(
      '--request-time-ms <ms>',
      `CPU-time backstop outside rules per request: diffs (default ${String(d.requestMillis)})`,
    ),
  ].join('');
}

/**
 * The work limits from the parsed flags; DEFAULT_WORK_LIMITS for those not given. A rule over
 * its limit fails and is skipped (the request is answered with the other rules applied).
 */
export function workLimitsFlags(values: {
  readonly 'rule-work-units'?: string | undefined;
  readonly 'namespace-work-units'?: string | undefined;
  readonly 'request-work-units'?: string | undefined;
  readonly 'render-work-units'?: string | undefined;
  readonly 'rule-time-ms'?: string | undefined;
  readonly 'namespace-time-ms'?: string | undefined;
  readonly 'request-time-ms'?: string | undefined;
}): WorkLimits {
  const d = DEFAULT_WORK_LIMITS;
  const units = 1_000_000_000;
  return {
    ruleUnits: integerFlag(values['rule-work-units'], '--rule-work-units', d.ruleUnits, 1, units),
    namespaceUnits: integerFlag(
      values['namespace-work-units'],
      '--namespace-work-units',
      d.namespaceUnits,
      1,
      units,
    ),
    requestUnits: integerFlag(
      values['request-work-units'],
      '--request-work-units',
      d.requestUnits,
      1,
      units,
    ),
    renderUnits: integerFlag(
      values['render-work-units'],
      '--render-work-units',
      d.renderUnits,
      1,
      units,
    ),
    ruleMillis: integerFlag(values['rule-time-ms'], '--rule-time-ms', d.ruleMillis, 1, 30_000),
    namespaceMillis: integerFlag(
      values['namespace-time-ms'],
      '--namespace-time-ms',
      d.namespaceMillis,
      1,
      30_000,
    ),
    requestMillis: integerFlag(
      values['request-time-ms'],
      '--request-time-ms',
      d.requestMillis,
      1,
      30_000,
    ),
  };
}
