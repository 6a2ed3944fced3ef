import type { AuditProgress } from './audit-run.js';

const BAR_WIDTH = 20;

/** One progress line: `audit [#######-------------] 7/20 collections, 1234 objects, 3 non-conforming`. */
export function progressLine(p: AuditProgress): string {
  const fraction = p.tasks === 0 ? 1 : Math.min(1, p.tasksDone / p.tasks);
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
  return (
    `audit [${bar}] ${String(p.tasksDone)}/${String(p.tasks)} collections, ` +
    `${String(p.audited)} objects, ${String(p.nonConforming)} non-conforming`
  );
}
