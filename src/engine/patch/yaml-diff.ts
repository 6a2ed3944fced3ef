import { formatPatch, structuredPatch } from 'diff';
import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { depthError, charge, chargeBytes } from '../active-meter.js';
import type { JsonValue } from '../json.js';
import { renderYaml, type RenderRefusal } from './yaml-render.js';

/**
 * Largest YAML rendering (of each side) a diff is built from, in bytes and in lines. Kubernetes
 * objects are at most about 1.5 MB (etcd's limit), so real objects fit; the cost of a diff is
 * mostly per line (about 2 µs a line on a small VM), hence the line limit.
 */
export const MAX_DIFF_YAML_BYTES = 2 * 1024 * 1024;
export const MAX_DIFF_YAML_LINES = 100_000;
/**
 * Budget of the line diff, in line comparisons: Myers' algorithm costs about (lines of both sides)
 * × (edit distance), so the edit distance it may explore is this over the number of lines. Past
 * it (or past DIFF_TIMEOUT_MS) the diff falls back to one hunk from the first to the last change.
 */
const DIFF_COMPARISONS = 4_000_000;
/** Smallest edit distance always explored, whatever the size. */
const MIN_EDIT_LENGTH = 200;
/**
 * Wall-clock backstop of the line diff (the diff library reads the wall clock): DIFF_COMPARISONS
 * bounds it, a few milliseconds for the largest diff; this only catches a bug, since the fallback
 * hunk would make the answer depend on the machine's load.
 */
const DIFF_TIMEOUT_MS = 1000;
const CONTEXT_LINES = 3;

/**
 * A unified diff between the YAML renderings of two JSON values (for the CLI and the web API).
 * Object members are written in sorted order so the diff only shows real changes. Returns `''`
 * when both render identically. File headers are `<name>` on both sides with the labels
 * `before` / `after`; `name` defaults to `object`.
 *
 * Bounded for hostile objects: when a side nests deeper than MAX_VALUE_DEPTH or renders to more
 * than MAX_DIFF_YAML_BYTES or MAX_DIFF_YAML_LINES of YAML, the result is a single comment line
 * instead of a diff (`# diff omitted: …\n`), so callers still answer with the patch. When the two texts differ too
 * much for a line diff within its budget, the diff is one hunk: the common first and last lines
 * are trimmed and everything between shown as removed, then added. Work is charged to the active
 * meter, whose WORK_LIMIT error propagates.
 */
export function unifiedYamlDiff(before: JsonValue, after: JsonValue, name = 'object'): string {
  const beforeYaml = renderYaml(before, MAX_DIFF_YAML_BYTES, MAX_DIFF_YAML_LINES);
  if (!beforeYaml.ok) return omitted(beforeYaml.reason);
  const afterYaml = renderYaml(after, MAX_DIFF_YAML_BYTES, MAX_DIFF_YAML_LINES);
  if (!afterYaml.ok) return omitted(afterYaml.reason);
  if (beforeYaml.text === afterYaml.text) return '';
  chargeBytes(beforeYaml.text.length + afterYaml.text.length);
  const old = lines(beforeYaml.text);
  const now = lines(afterYaml.text);
  charge(old.length + now.length);
  // Lines both texts start or end with, beyond the context of the first and last change, are
  // left out of the line diff (linear here; the common case is a few changes in a large object).
  const shorter = Math.min(old.length, now.length);
  let prefix = 0;
  while (prefix < shorter && old[prefix] === now[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    old[old.length - 1 - suffix] === now[now.length - 1 - suffix]
  ) {
    suffix++;
  }
  const from = Math.max(0, prefix - CONTEXT_LINES);
  const tail = Math.max(0, suffix - CONTEXT_LINES);
  const oldMiddle = old.slice(from, old.length - tail);
  const newMiddle = now.slice(from, now.length - tail);
  const middleLines = oldMiddle.length + newMiddle.length;
  const patch = structuredPatch(
    name,
    name,
    `${oldMiddle.join('\n')}\n`,
    `${newMiddle.join('\n')}\n`,
    'before',
    'after',
    {
      context: CONTEXT_LINES,
      maxEditLength: Math.max(MIN_EDIT_LENGTH, Math.floor(DIFF_COMPARISONS / middleLines)),
      timeout: DIFF_TIMEOUT_MS,
    },
  );
  if (patch === undefined) return wholeChangeDiff(name, old, now, prefix, suffix);
  for (const hunk of patch.hunks) {
    hunk.oldStart += from;
    hunk.newStart += from;
  }
  return formatPatch(patch);
}

/**
 * Block-style YAML with sorted keys, no anchors and no line folding: js-yaml's
 * `dump(sorted, { noRefs: true, lineWidth: -1 })`, in linear time. DEPTH_LIMIT past MAX_VALUE_DEPTH.
 */
export function toYaml(value: JsonValue): string {
  const rendered = renderYaml(value);
  if (!rendered.ok) throw depthError('toYaml');
  return rendered.text;
}

/** The text that stands for a diff that is not built. */
function omitted(reason: RenderRefusal): string {
  return reason === 'depth'
    ? `# diff omitted: the object nests deeper than ${String(MAX_VALUE_DEPTH)} levels\n`
    : `# diff omitted: the object's YAML is larger than ${String(MAX_DIFF_YAML_BYTES / 1024 / 1024)} MiB or ${String(MAX_DIFF_YAML_LINES)} lines\n`;
}

/** The lines of a text that ends with a newline. */
function lines(text: string): string[] {
  return text.slice(0, -1).split('\n');
}

/**
 * A one-hunk diff, linear in the texts: the common leading and trailing lines are left out and
 * the lines between shown as removed then added, with CONTEXT_LINES of context on each side.
 * Written like jsdiff's formatPatch (both texts end with a newline, so no "no newline" marker).
 */
function wholeChangeDiff(
  name: string,
  old: readonly string[],
  now: readonly string[],
  prefix: number,
  suffix: number,
): string {
  const start = prefix - Math.min(CONTEXT_LINES, prefix);
  const after = Math.min(CONTEXT_LINES, suffix);
  const oldEnd = old.length - suffix;
  const newEnd = now.length - suffix;
  const oldLines = oldEnd + after - start;
  const newLines = newEnd + after - start;
  // A side with no lines starts at the line before the hunk.
  const oldStart = oldLines === 0 ? start : start + 1;
  const newStart = newLines === 0 ? start : start + 1;
  const out = [
    `Index: ${name}`,
    '===================================================================',
    `--- ${name}\tbefore`,
    `+++ ${name}\tafter`,
    `@@ -${String(oldStart)},${String(oldLines)} +${String(newStart)},${String(newLines)} @@`,
  ];
  for (let i = start; i < prefix; i++) out.push(` ${old[i] as string}`);
  for (let i = prefix; i < oldEnd; i++) out.push(`-${old[i] as string}`);
  for (let i = prefix; i < newEnd; i++) out.push(`+${now[i] as string}`);
  for (let i = oldEnd; i < oldEnd + after; i++) out.push(` ${old[i] as string}`);
  return `${out.join('\n')}\n`;
}
