import { safeJson, safeYaml } from '../../engine/machine-text.js';
import { terminalLines, terminalText as t } from '../../engine/terminal-text.js';
import type { AuditFinding, AuditRunResult, AuditRuleFailure } from './audit-run.js';
import type { Unreadable } from './scan.js';

/** The audit's outcome as printed (`-o json` / `-o yaml`). */
export interface AuditReport {
  readonly summary: {
    readonly audited: number;
    readonly ignored: number;
    readonly nonConforming: number;
    readonly patch: number;
    readonly reject: number;
    readonly ruleFailures: number;
    readonly errors: number;
    /** False when something could not be read (see `unreadable`): the audit saw only part of the cluster. */
    readonly complete: boolean;
  };
  readonly rules: readonly {
    readonly rule: string;
    readonly nonConforming: number;
    readonly patch: number;
    readonly reject: number;
    readonly failures: number;
  }[];
  readonly objects: readonly AuditFinding[];
  readonly failures: readonly AuditRuleFailure[];
  readonly errors: readonly { readonly object: string; readonly reason: string }[];
  readonly unreadable: readonly Unreadable[];
  /** Rules that could not be loaded, rules left out (CREATE/DELETE only), fallbacks taken. */
  readonly notes: readonly string[];
}

/** Exit codes of `kubemod-ts audit`. */
export const EXIT_CONFORMING = 0;
export const EXIT_NON_CONFORMING = 1;
export const EXIT_ERROR = 2;

export function buildReport(
  result: AuditRunResult,
  extra: { unreadable: readonly Unreadable[]; notes: readonly string[] },
): AuditReport {
  const unreadable = [...extra.unreadable, ...result.unreadable];
  const patch = result.findings.filter((f) => f.action === 'patch').length;
  const reject = result.findings.filter((f) => f.action === 'reject').length;
  const rules = [...result.perRule]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rule, t]) => ({ rule, ...t }));
  return {
    summary: {
      audited: result.audited,
      ignored: result.ignored,
      nonConforming: result.nonConforming,
      patch,
      reject,
      ruleFailures: rules.reduce((n, r) => n + r.failures, 0),
      errors: result.errors.length,
      complete: unreadable.length === 0,
    },
    rules,
    objects: result.findings,
    failures: result.failures,
    errors: result.errors,
    unreadable,
    notes: extra.notes,
  };
}

/**
 * 0 when every audited object conforms and everything could be read; 1 when some object would be
 * patched or rejected (even if the audit is incomplete); 2 when the audit is incomplete or some
 * object could not be evaluated and nothing non-conforming was found.
 */
export function exitCodeOf(report: AuditReport): number {
  if (report.summary.nonConforming > 0) return EXIT_NON_CONFORMING;
  if (!report.summary.complete || report.summary.errors > 0) return EXIT_ERROR;
  return EXIT_CONFORMING;
}

export function renderJson(report: AuditReport): string {
  return `${safeJson(report)}\n`;
}

export function renderYaml(report: AuditReport): string {
  return safeYaml(JSON.parse(JSON.stringify(report)));
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 2)))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

function where(entry: { namespace: string | undefined }): string {
  return entry.namespace === undefined
    ? 'all namespaces / cluster'
    : `namespace ${t(entry.namespace)}`;
}

/**
 * The human-readable report: a table of the non-conforming objects, each diff or rejection, per-rule
 * counts, what could not be read, and a one-line summary. Every text taken from the cluster (names,
 * messages, diffs, reasons) goes through terminalText/terminalLines: an annotation holding escape
 * sequences or a `\r` must not act on the admin's terminal, nor a line break forge a line.
 */
export function renderTable(report: AuditReport): string {
  const out: string[] = [];
  if (report.objects.length > 0) {
    out.push(
      table([
        ['NAMESPACE', 'KIND', 'NAME', 'ACTION', 'RULES'],
        ...report.objects.map((f) => [
          t(f.namespace ?? ''),
          t(f.kind),
          t(f.name),
          f.action,
          t(f.rules.join(',')),
        ]),
      ]),
      '',
    );
    for (const f of report.objects) {
      const id = t(`${f.kind} ${f.namespace === undefined ? '' : `${f.namespace}/`}${f.name}`);
      if (f.action === 'reject') {
        out.push(`# ${id} would be rejected: ${t(f.rejections.join(','))}`);
      } else {
        out.push(`# ${id} would be patched by ${t(f.rules.join(', '))}`);
      }
      if (f.diff !== '') out.push(terminalLines(f.diff.trimEnd()));
      out.push('');
    }
  }
  if (report.rules.length > 0) {
    out.push(
      table([
        ['RULE', 'NON-CONFORMING', 'PATCH', 'REJECT', 'FAILURES'],
        ...report.rules.map((r) => [
          t(r.rule),
          String(r.nonConforming),
          String(r.patch),
          String(r.reject),
          String(r.failures),
        ]),
      ]),
      '',
    );
  }
  for (const f of report.failures.slice(0, 20))
    out.push(t(`warning: ModRule ${f.rule} failed on ${f.object}: ${f.field}: ${f.message}`));
  if (report.failures.length > 20)
    out.push(
      `warning: … and ${String(report.failures.length - 20)} more rule failures (-o json lists them)`,
    );
  for (const e of report.errors) out.push(t(`error: ${e.object} not evaluated: ${e.reason}`));
  for (const u of report.unreadable)
    out.push(`not audited: ${t(u.resource)} (${where(u)}): ${t(u.reason)}`);
  for (const note of report.notes) out.push(t(`note: ${note}`));
  const s = report.summary;
  out.push(
    `${String(s.audited)} object(s) audited, ${String(s.nonConforming)} non-conforming ` +
      `(${String(s.patch)} would be patched, ${String(s.reject)} rejected), ` +
      `${String(s.ignored)} skipped in ignored namespaces` +
      (s.complete
        ? ''
        : `; INCOMPLETE: ${String(report.unreadable.length)} collection(s) could not be read`),
  );
  return `${out.join('\n')}\n`;
}
