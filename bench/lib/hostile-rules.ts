/**
 * The ModRules of `npm run bench:hostile`: what a hostile tenant of namespace `hostile` writes.
 * The valid ones are in the rules directory from the start (each matches only an object the
 * hostile client sends, so the normal traffic of team-a never runs them); the invalid and
 * explosive files are written into the directory while the normal load runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const HOSTILE_NAMESPACE = 'hostile';
/** The file of valid hostile rules, present from the start. */
export const HOSTILE_RULES_FILE = 'hostile.yaml';

/** Levels and fan-out of the YAML alias bomb: 9 levels of 9 aliases, 9^9 ≈ 387 M leaves. */
const BOMB_LEVELS = 9;
const BOMB_FANOUT = 9;
/** Terms of the `1+1+…` select (issue 12: 4,000 overflowed the stack while compiling). */
const SELECT_TERMS = 4000;

function modRule(name: string, match: string, patchLines: string): string {
  return [
    'apiVersion: api.kubemod.io/v1beta1',
    'kind: ModRule',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${HOSTILE_NAMESPACE}`,
    'spec:',
    '  type: Patch',
    '  match:',
    match,
    '  patch:',
    patchLines,
  ].join('\n');
}

/** Matches a ConfigMap of the given name (the hostile client's trigger objects). */
function configMapNamed(name: string): string {
  return [
    '    - select: $.kind',
    '      matchValue: ConfigMap',
    '    - select: $.metadata.name',
    `      matchValue: ${name}`,
  ].join('\n');
}

/** One `add` of an annotation whose value is `template` (single-quoted YAML). */
function annotate(key: string, template: string): string {
  return [
    '    - op: add',
    `      path: /metadata/annotations/${key}`,
    `      value: '${template.replaceAll("'", "''")}'`,
  ].join('\n');
}

/** A template rule triggered by the ConfigMap `trigger-<suffix>`. */
function templateRule(suffix: string, template: string): string {
  return modRule(
    `h-${suffix}`,
    configMapNamed(`trigger-${suffix}`),
    annotate(`h-${suffix}`, template),
  );
}

/** Go templates that try to run long or grow large, by trigger suffix (see hostile-inputs.ts). */
export const HOSTILE_TEMPLATES: Readonly<Record<string, string>> = {
  // A list doubled 40 times: 2^40 items.
  concat:
    '{{ $x := list "0123456789abcdef" }}{{ range until 40 }}{{ $x = concat $x $x }}{{ end }}{{ len $x }}',
  // A DAG of dicts, each level referring to the previous one twice, printed: 2^40 leaves.
  'dag-print':
    '{{ $d := dict "k" "0123456789abcdef" }}{{ range until 40 }}{{ $d = dict "l" $d "r" $d }}{{ end }}{{ $d }}',
  'dag-toyaml':
    '{{ $d := dict "k" "0123456789abcdef" }}{{ range until 40 }}{{ $d = dict "l" $d "r" $d }}{{ end }}{{ toYaml $d }}',
  // A dict that contains itself, printed.
  cycle: '{{ $d := dict "k" "v" }}{{ $_ := set $d "self" $d }}{{ toString $d }}',
  // Expensive work outside any output: 5,000 sha256sum of a 1 MB string.
  sha256:
    '{{ $s := repeat 1048576 "x" }}{{ range until 5000 }}{{ $_ := sha256sum $s }}{{ end }}done',
};

/** The valid hostile rules present from the start. */
export function hostileRulesYaml(): string {
  const rules = [
    // Recursive descent over whatever the tenant's Pods hold (the deep Pods of the client).
    modRule(
      'h-descent',
      [
        '    - select: $.kind',
        '      matchValue: Pod',
        '    - select: $..image',
        '      matchRegex: evil',
      ].join('\n'),
      annotate('h-descent', 'found'),
    ),
    ...Object.entries(HOSTILE_TEMPLATES).map(([suffix, template]) =>
      templateRule(suffix, template),
    ),
    // An ordinary rule on the ConfigMap with a `__proto__` data key: its patch must not touch data.
    modRule('h-proto', configMapNamed('proto'), annotate('h-proto', 'seen')),
  ];
  return `${rules.join('\n---\n')}\n`;
}

/** More hostile template rules, added to the directory while the load runs. */
function lateRulesYaml(): string {
  return `${[
    templateRule('late-concat', HOSTILE_TEMPLATES.concat ?? ''),
    templateRule('late-sha256', HOSTILE_TEMPLATES.sha256 ?? ''),
  ].join('\n---\n')}\n`;
}

/** A billion-laughs ModRule: aliases nested BOMB_LEVELS deep in its structure. */
export function aliasBombYaml(levels = BOMB_LEVELS, fanout = BOMB_FANOUT): string {
  const lines = [
    modRule(
      'h-alias-bomb',
      ['    - select: $.kind', '      matchValue: Pod'].join('\n'),
      annotate('h-bomb', 'x'),
    ),
    `  l0: &l0 [${Array.from({ length: fanout }, () => 'lol').join(', ')}]`,
  ];
  for (let level = 1; level < levels; level++) {
    const alias = `*l${String(level - 1)}`;
    lines.push(
      `  l${String(level)}: &l${String(level)} [${Array.from({ length: fanout }, () => alias).join(', ')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A ModRule whose select is a flat chain of SELECT_TERMS additions: invalid, must be refused. */
function longSelectYaml(terms = SELECT_TERMS): string {
  const chain = Array.from({ length: terms }, () => '1').join('+');
  return `${modRule(
    'h-long-select',
    [`    - select: '$.spec.containers[? ${chain} == ${String(terms)}]'`].join('\n'),
    annotate('h-long-select', 'x'),
  )}\n`;
}

/** A change to the rules directory made while the load runs. */
export interface RuleEvent {
  /** Milliseconds after the start of the phase. */
  readonly atMs: number;
  readonly name: string;
  readonly description: string;
  apply(dir: string): void;
}

/**
 * The rule-file changes of the rule phase, in order (the ones the issue says crash or stall
 * `serve` come last, so a failure there leaves the earlier measurements intact).
 */
export function hostileRuleEvents(): RuleEvent[] {
  const full = hostileRulesYaml();
  const write = (dir: string, file: string, text: string): void => {
    writeFileSync(join(dir, file), text);
  };
  return [
    {
      atMs: 2000,
      name: 'rewrite unchanged',
      description: `${HOSTILE_RULES_FILE} rewritten with the same content (the cost of a reload)`,
      apply: (dir) => {
        write(dir, HOSTILE_RULES_FILE, full);
      },
    },
    {
      atMs: 5000,
      name: 'half-written file',
      description: `${HOSTILE_RULES_FILE} cut at 60 % of its length (a writer caught mid-write)`,
      apply: (dir) => {
        write(dir, HOSTILE_RULES_FILE, full.slice(0, Math.floor(full.length * 0.6)));
      },
    },
    {
      atMs: 7000,
      name: 'file completed',
      description: `${HOSTILE_RULES_FILE} written in full again`,
      apply: (dir) => {
        write(dir, HOSTILE_RULES_FILE, full);
      },
    },
    {
      atMs: 9000,
      name: 'rules added',
      description: 'late.yaml: two more hostile template rules (concat doubling, sha256sum loop)',
      apply: (dir) => {
        write(dir, 'late.yaml', lateRulesYaml());
      },
    },
    {
      atMs: 12_000,
      name: 'YAML alias bomb',
      description: `bomb.yaml: ${String(BOMB_LEVELS)} levels of ${String(BOMB_FANOUT)} aliases in a ModRule (${String(aliasBombYaml().length)} bytes)`,
      apply: (dir) => {
        write(dir, 'bomb.yaml', aliasBombYaml());
      },
    },
    {
      atMs: 15_000,
      name: `${SELECT_TERMS.toLocaleString('en-US')}-term select`,
      description: `long-select.yaml: a select with \`1+1+…\` of ${SELECT_TERMS.toLocaleString('en-US')} terms (invalid)`,
      apply: (dir) => {
        write(dir, 'long-select.yaml', longSelectYaml());
      },
    },
  ];
}
