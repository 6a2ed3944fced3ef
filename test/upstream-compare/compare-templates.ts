/**
 * Side-by-side comparison of kubemod-ts's template engine with Go's text/template + Sprig v3.2.2
 * (what KubeMod renders ModRule values with), on the generated cases of template-cases.ts.
 *
 *   npx tsx test/upstream-compare/compare-templates.ts [--all] [--nil-only] [--limit N]
 *       [--write-fixture <file>]
 *
 * Builds (and caches) the Go oracle with scripts/build-template-oracle.sh, renders every case on
 * both sides and reports the cases whose outcome differs: the printed text, or one side failing
 * where the other renders. Exits 1 when a case differs. `--write-fixture` writes the nil-value
 * cases with Go's outcomes as a fixture table (test/fixtures/go-templates/), which the unit tests
 * check without needing Go.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { compileTemplate } from '../../src/engine/template/index.js';
import { generateCases, NAMESPACE, TARGET, type TemplateCase } from './template-cases.js';

interface Outcome {
  readonly ok: boolean;
  readonly out?: string;
  readonly stage?: string;
  readonly err?: string;
}

const repo = join(import.meta.dirname, '..', '..');

function buildOracle(): string {
  const out = execFileSync('bash', [join(repo, 'scripts', 'build-template-oracle.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim();
}

function runGo(binary: string, cases: readonly TemplateCase[]): Outcome[] {
  const input = cases
    .map((c) =>
      JSON.stringify({
        template: c.template,
        target: TARGET,
        namespace: NAMESPACE,
        ...(Object.hasOwn(c, 'selectedItem') ? { selectedItem: c.selectedItem } : {}),
      }),
    )
    .join('\n');
  const result = spawnSync(binary, [], {
    input: `${input}\n`,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`oracle failed: ${result.stderr}`);
  const lines = result.stdout.trimEnd().split('\n');
  if (lines.length !== cases.length)
    throw new Error(`oracle answered ${lines.length} lines for ${cases.length} cases`);
  return lines.map((line) => JSON.parse(line) as Outcome);
}

/** Renders a case as rule-render.ts does: the same context fields, a fresh copy of the object. */
export function renderOurs(c: TemplateCase): Outcome {
  let template;
  try {
    template = compileTemplate(c.template);
  } catch (err) {
    return { ok: false, stage: 'parse', err: err instanceof Error ? err.message : String(err) };
  }
  try {
    const out = template.render({
      Target: structuredClone(TARGET),
      Namespace: NAMESPACE,
      SelectedItem: Object.hasOwn(c, 'selectedItem') ? c.selectedItem : null,
      SelectKeyParts: [],
    });
    return { ok: true, out };
  } catch (err) {
    return { ok: false, stage: 'exec', err: err instanceof Error ? err.message : String(err) };
  }
}

function same(a: Outcome, b: Outcome): boolean {
  return a.ok === b.ok && (!a.ok || a.out === b.out);
}

function show(o: Outcome): string {
  return o.ok ? JSON.stringify(o.out) : `error (${o.stage ?? '?'}): ${o.err ?? ''}`;
}

function main(): void {
  const args = process.argv.slice(2);
  const flag = (name: string): boolean => args.includes(name);
  const value = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const limit = Number(value('--limit') ?? (flag('--all') ? Infinity : 200));
  let cases = generateCases();
  if (flag('--nil-only')) cases = cases.filter((c) => c.nil);
  const binary = buildOracle();
  const go = runGo(binary, cases);
  const differing: { c: TemplateCase; go: Outcome; ours: Outcome }[] = [];
  cases.forEach((c, i) => {
    const goOutcome = go[i];
    if (goOutcome === undefined) return;
    // A function Sprig does not have (Go refuses to parse the template) is not compared.
    if (goOutcome.stage === 'parse' && /function ".*" not defined/.test(goOutcome.err ?? ''))
      return;
    const ours = renderOurs(c);
    if (!same(goOutcome, ours)) differing.push({ c, go: goOutcome, ours });
  });
  const fixture = value('--write-fixture');
  if (fixture !== undefined) writeFixture(fixture, cases, go);
  // Per use: how many nil subjects and how many present subjects differ. A use that differs only
  // for nil subjects is a nil-handling difference; one that differs for present values too is a
  // difference of the function itself.
  const byUse = new Map<string, { nil: number; present: number }>();
  for (const d of differing) {
    const counts = byUse.get(d.c.use) ?? { nil: 0, present: 0 };
    if (d.c.nil) counts.nil += 1;
    else counts.present += 1;
    byUse.set(d.c.use, counts);
  }
  const nilOnly = [...byUse.values()].filter((n) => n.present === 0).reduce((a, n) => a + n.nil, 0);
  console.log(
    `${cases.length} cases, ${differing.length} differ from Go text/template + Sprig` +
      (flag('--nil-only')
        ? ' (nil subjects only)'
        : `; ${nilOnly} of them in uses that differ only for nil values`),
  );
  console.log('  nil present  use');
  for (const [use, n] of [...byUse].sort((a, b) => b[1].nil - a[1].nil || (a[0] < b[0] ? -1 : 1)))
    console.log(`  ${String(n.nil).padStart(3)} ${String(n.present).padStart(7)}  ${use}`);
  for (const d of differing.slice(0, limit)) {
    console.log(`\n${d.c.template}\n  go:   ${show(d.go)}\n  ours: ${show(d.ours)}`);
  }
  process.exitCode = differing.length === 0 ? 0 : 1;
}

/** The fixture cases (see TemplateCase.fixture) with Go's outcome (error text omitted). */
function writeFixture(path: string, cases: readonly TemplateCase[], go: readonly Outcome[]): void {
  const rows: { template: string; selectedItem?: unknown; go: string | { error: string } }[] = [];
  cases.forEach((c, i) => {
    const outcome = go[i];
    if (!c.fixture || outcome === undefined || outcome.stage === 'parse') return;
    rows.push({
      template: c.template,
      ...(Object.hasOwn(c, 'selectedItem') ? { selectedItem: c.selectedItem } : {}),
      go: outcome.ok ? (outcome.out ?? '') : { error: outcome.stage ?? 'exec' },
    });
  });
  const header =
    '# Generated by test/upstream-compare/compare-templates.ts --write-fixture from Go text/template\n' +
    '# + Sprig v3.2.2 (do not edit by hand): each template rendered with .Target = target,\n' +
    '# .Namespace = namespace and .SelectedItem = selectedItem (nil when absent). `go` is what Go\n' +
    '# renders, or {error: exec} when it fails. Checked by test/unit/go-template-fixtures.test.ts.\n';
  const body = { namespace: NAMESPACE, target: TARGET, cases: rows };
  writeFileSync(path, header + dump(body, { lineWidth: 160, noRefs: true }));
  console.log(`wrote ${rows.length} cases to ${path}`);
}

main();
