import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import { DEFAULT_WORK_LIMITS, type WorkLimits } from '../work-limits.js';
import { withMeter } from '../active-meter.js';
import { WorkMeter } from '../work-meter.js';
import { compileTemplate, MAX_TEMPLATE_ACTIONS } from './index.js';
import { sampleContext } from './test-fixtures.js';

/** Renders `source` the way evaluate() does: one rule's allowance of the default work meter. */
function renderAsRule(
  source: string,
  context: Record<string, unknown> = sampleContext(),
  limits: Partial<WorkLimits> = {},
): string {
  const template = compileTemplate(source);
  const meter = new WorkMeter(limits);
  return withMeter(meter, () => meter.runRule('tenant', 'rule', () => template.render(context)));
}

interface Outcome {
  readonly kind: string;
  readonly millis: number;
  readonly heapGrowth: number;
}

function attack(source: string, limits: Partial<WorkLimits> = {}): Outcome {
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  let kind = 'ok';
  try {
    renderAsRule(source, sampleContext(), limits);
  } catch (err) {
    kind = err instanceof KubemodError ? err.kind : `UNEXPECTED ${String(err)}`;
  }
  const millis = performance.now() - start;
  return { kind, millis, heapGrowth: process.memoryUsage().heapUsed - heapBefore };
}

const LIMITS = ['WORK_LIMIT', 'TEMPLATE_LIMIT', 'DEPTH_LIMIT', 'YAML_LIMIT'];
const MB = 1024 * 1024;

/** `$x` as a dict whose two keys are the previous `$x`: 2^40 leaves once expanded. */
const DAG = '{{ $x := dict "a" 1 }}{{ range until 40 }}{{ $x = dict "a" $x "b" $x }}{{ end }}';
/** `$l` as a list holding the previous `$l` twice. */
const LIST_DAG = '{{ $l := list 1 }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}';
/** `$x` and `$z`: two equal dict DAGs that share no part, so comparing them walks both. */
const TWIN_DAGS =
  '{{ $x := dict "a" 1 }}{{ $z := dict "a" 1 }}{{ range until 40 }}{{ $x = dict "a" $x "b" $x }}{{ $z = dict "a" $z "b" $z }}{{ end }}';
/** `$l` and `$m`: two equal list DAGs that share no part. */
const TWIN_LISTS =
  '{{ $l := list 1 }}{{ $m := list 1 }}{{ range until 40 }}{{ $l = list $l $l }}{{ $m = list $m $m }}{{ end }}';
/** `$c` as a dict that contains itself. */
const CYCLE = '{{ $c := dict "v" 1 }}{{ $_ := set $c "self" $c }}';
/** `$c` as a dict that contains itself twice (a walk without limits doubles at every level). */
const CYCLE2 = `${CYCLE}{{ $_ := set $c "again" $c }}`;
const BIG = '{{ $s := repeat 1000000 "a" }}';

/** A YAML alias bomb: ten levels, each a list of ten aliases of the level below. */
function yamlBomb(): string {
  const levels = ['a: &l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i++) {
    levels.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  }
  return `{{ $y := fromYaml "${levels.join('\\n')}" }}{{ $y }}`;
}

describe('hostile templates are cut off quickly, with a limit error', () => {
  it.each([
    // Lists grown by doubling.
    [
      'concat doubling in range',
      '{{ $x := list 1 }}{{ range until 40 }}{{ $x = concat $x $x }}{{ end }}{{ len $x }}',
    ],
    [
      'concat doubling in until',
      '{{ $x := list 1 2 3 }}{{ range $i := until 100 }}{{ $x = concat $x $x $x }}{{ end }}',
    ],
    [
      'append of itself, printed',
      '{{ $x := list 1 }}{{ range until 40 }}{{ $x = append $x $x }}{{ end }}{{ $x }}',
    ],
    ['list DAG printed', `${LIST_DAG}{{ $l }}`],
    ['list DAG toJson', `${LIST_DAG}{{ toJson $l }}`],
    ['list DAG has', `${TWIN_LISTS}{{ has $l (list $m) }}`],
    ['list DAG without', `${TWIN_LISTS}{{ without (list $m) $l }}`],
    ['list DAG uniq', `${TWIN_LISTS}{{ uniq (list $l $m) }}`],
    // Dicts that share parts many times over.
    ['dict DAG printed with {{ $x }}', `${DAG}{{ $x }}`],
    ['dict DAG toYaml', `${DAG}{{ toYaml $x }}`],
    ['dict DAG toJson', `${DAG}{{ toJson $x }}`],
    ['dict DAG toPrettyJson', `${DAG}{{ toPrettyJson $x }}`],
    ['dict DAG mustToJson', `${DAG}{{ mustToJson $x }}`],
    ['dict DAG toString', `${DAG}{{ toString $x }}`],
    ['dict DAG printf %v', `${DAG}{{ printf "%v" $x }}`],
    ['dict DAG printf %s', `${DAG}{{ printf "%s" $x }}`],
    ['dict DAG print', `${DAG}{{ print $x }}`],
    ['dict DAG cat', `${DAG}{{ cat $x }}`],
    ['dict DAG quote', `${DAG}{{ quote $x }}`],
    ['dict DAG join', `${DAG}{{ join "," (list $x $x) }}`],
    ['dict DAG deepCopy', `${DAG}{{ $y := deepCopy $x }}`],
    ['dict DAG deepEqual', `${TWIN_DAGS}{{ deepEqual $x $z }}`],
    ['dict DAG uniq', `${TWIN_DAGS}{{ uniq (list $x $z) }}`],
    ['dict DAG merge into itself', `${DAG}{{ $y := merge $x $x }}`],
    ['dict DAG used as dict key', `${DAG}{{ $y := dict $x 1 }}`],
    // Values that contain themselves.
    ['self-referencing dict printed', `${CYCLE}{{ $c }}`],
    ['doubly self-referencing dict printed', `${CYCLE2}{{ $c }}`],
    ['self-referencing dict toYaml', `${CYCLE2}{{ toYaml $c }}`],
    ['self-referencing dict toJson', `${CYCLE}{{ toJson $c }}`],
    ['self-referencing dict toString', `${CYCLE}{{ toString $c }}`],
    ['self-referencing dict deepCopy', `${CYCLE2}{{ $y := deepCopy $c }}`],
    ['self-referencing dict merge', `${CYCLE}{{ $y := merge $c $c }}`],
    [
      'self-referencing dicts compared',
      `${CYCLE}{{ $d := dict "v" 1 }}{{ $_ := set $d "self" $d }}{{ deepEqual $c $d }}`,
    ],
    // Expensive work outside or inside loops.
    [
      'sha256sum of 1 MB thousands of times',
      `${BIG}{{ range until 5000 }}{{ $_ := sha256sum $s }}{{ end }}`,
    ],
    [
      'sha1sum of 1 MB in nested loops',
      `${BIG}{{ range until 100 }}{{ range until 100 }}{{ $_ := sha1sum $s }}{{ end }}{{ end }}`,
    ],
    ['sha256sum repeated in the source', `${BIG}${'{{ sha256sum $s | trunc 0 }}'.repeat(50)}`],
    ['repeat chain', '{{ $s := "ab" }}{{ range until 40 }}{{ $s = repeat 2 $s }}{{ end }}'],
    ['repeat of repeat', '{{ repeat 1000000 (repeat 1000000 "a") }}'],
    [
      'b64enc chain',
      '{{ $s := repeat 1000 "a" }}{{ range until 100 }}{{ $s = b64enc $s }}{{ end }}',
    ],
    [
      'b64enc/b64dec of 1 MB in a loop',
      `${BIG}{{ range until 5000 }}{{ $_ := b64dec (b64enc $s) }}{{ end }}`,
    ],
    [
      'regexReplaceAll over 1 MB in a loop',
      `${BIG}{{ range until 1000 }}{{ $_ := regexReplaceAll "a" $s "b" }}{{ end }}`,
    ],
    ['regexFindAll of empty matches', `${BIG}{{ $_ := regexFindAll "" $s -1 }}`],
    ['regexSplit into single characters', `${BIG}{{ $_ := regexSplit "" $s -1 }}`],
    [
      'regexMatch over 1 MB in a loop',
      `${BIG}{{ range until 5000 }}{{ $_ := regexMatch "b" $s }}{{ end }}`,
    ],
    ['splitList into a million parts', `${BIG}{{ $_ := splitList "" $s }}`],
    [
      'split/join growth',
      '{{ $s := "a,b" }}{{ range until 40 }}{{ $s = join "," (concat (splitList "," $s) (splitList "," $s)) }}{{ end }}',
    ],
    [
      'replace growth',
      '{{ $s := "aa" }}{{ range until 40 }}{{ $s = replace "a" "aa" $s }}{{ end }}',
    ],
    [
      'upper/trim over 1 MB in a loop',
      `${BIG}{{ range until 5000 }}{{ $_ := upper (trim $s) }}{{ end }}`,
    ],
    [
      'indent growth',
      '{{ $s := "a\\nb" }}{{ range until 40 }}{{ $s = indent 4 (cat $s $s) }}{{ end }}',
    ],
    ['printf with huge widths', '{{ printf "%900000d%900000d%900000d" 1 2 3 }}'],
    [
      'printf doubling',
      '{{ $s := "xy" }}{{ range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}',
    ],
    [
      'nested until loops',
      '{{ range until 1000 }}{{ range until 1000 }}{{ $_ := add 1 1 }}{{ end }}{{ end }}',
    ],
    [
      'triple nested range loops',
      '{{ range until 100 }}{{ range until 100 }}{{ range until 100 }}x{{ end }}{{ end }}{{ end }}',
    ],
    ['range over a huge integer', '{{ range 10000000 }}x{{ end }}'],
    ['until of a huge count', '{{ $_ := until 100000000 }}'],
    [
      'big dict tested in a loop',
      '{{ $d := dict }}{{ range $i := until 50000 }}{{ $_ := set $d (printf "k%d" $i) $i }}{{ end }}{{ range until 50000 }}{{ if $d }}{{ len $d }}{{ end }}{{ end }}',
    ],
    [
      'keys of a big dict in a loop',
      '{{ $d := dict }}{{ range $i := until 5000 }}{{ $_ := set $d (toString $i) 1 }}{{ end }}{{ range until 5000 }}{{ $_ := keys $d }}{{ end }}',
    ],
    [
      'uniq of a long list',
      '{{ $l := list }}{{ range $i := until 20000 }}{{ $l = append $l (list $i) }}{{ end }}{{ $_ := uniq $l }}',
    ],
    [
      'has over a long list in a loop',
      '{{ $l := until 50000 }}{{ range until 50000 }}{{ $_ := has -1 $l }}{{ end }}',
    ],
    [
      'fromJson of a large text in a loop',
      '{{ $s := printf "[%s1]" (repeat 300000 "1,") }}{{ range until 1000 }}{{ $_ := fromJson $s }}{{ end }}',
    ],
    [
      'fromJson of a deep text, printed',
      '{{ $d := fromJson (printf "%s%s" (repeat 200000 "[") (repeat 200000 "]")) }}{{ $d }}',
    ],
    [
      'fromJson of a deep text, toJson',
      '{{ toJson (fromJson (printf "%s%s" (repeat 200000 "[") (repeat 200000 "]"))) }}',
    ],
    [
      'fromYaml of a large text in a loop',
      '{{ $s := repeat 100000 "- a\\n" }}{{ range until 1000 }}{{ $_ := fromYaml $s }}{{ end }}',
    ],
    ['fromYaml alias bomb', yamlBomb()],
    // Limit errors are never swallowed into a value.
    ['limit error inside or', `${DAG}{{ or true (toJson $x) }}`],
    ['limit error inside and', `${DAG}{{ and false (toYaml $x) }}`],
    ['limit error inside default', `${DAG}{{ default "x" (toJson $x) }}`],
    ['limit error inside empty', `${DAG}{{ empty (toString $x) }}`],
    ['limit error inside if', `${DAG}{{ if (toJson $x) }}y{{ end }}`],
  ])('%s', (_name, source) => {
    const outcome = attack(source);
    expect(LIMITS).toContain(outcome.kind);
    expect(outcome.millis).toBeLessThan(500);
    expect(outcome.heapGrowth).toBeLessThan(200 * MB);
  });

  it('refuses a cycle with DEPTH_LIMIT, not by running out of stack', () => {
    // Which bound stops the walk is a question of depth against work units: the 5 ms time
    // backstop is lifted here, because on a cold first render it can fire before the depth
    // bound (3 of 200 fresh renders of the toJson case measured; issue 27 takes time out of
    // outcomes altogether).
    const unitsOnly = { ruleMillis: 60_000, namespaceMillis: 60_000, requestMillis: 60_000 };
    expect(attack(`${CYCLE}{{ $c }}`, unitsOnly).kind).toBe('DEPTH_LIMIT');
    expect(attack(`${CYCLE}{{ toJson $c }}`, unitsOnly).kind).toBe('DEPTH_LIMIT');
  });

  it('cuts the three examples of issue #12 off by the work budget of a render', () => {
    expect(attack(`${DAG}{{ $x }}`).kind).toBe('WORK_LIMIT');
    expect(attack(`${BIG}{{ range until 5000 }}{{ $_ := sha256sum $s }}{{ end }}`).kind).toBe(
      'WORK_LIMIT',
    );
    expect(
      attack('{{ $x := list 1 }}{{ range until 40 }}{{ $x = concat $x $x }}{{ end }}').kind,
    ).toBe('WORK_LIMIT');
  });
});

describe('a hostile render is cut by its units before the rule time backstop', () => {
  // The templates of bench:hostile (bench/lib/hostile-rules.ts) and the costliest helpers per
  // unit. Rendered as a rule with no clock limit: each must stop on its render's units (or list,
  // depth or output limit), in well under the rule's 5 ms backstop (the fastest of 7 renders, so
  // that a loaded machine does not fail the test).
  const noClock = { ruleMillis: 600_000, namespaceMillis: 600_000 };
  it.each([
    [
      'concat doubling',
      '{{ $x := list "0123456789abcdef" }}{{ range until 40 }}{{ $x = concat $x $x }}{{ end }}{{ len $x }}',
    ],
    [
      'DAG printed',
      '{{ $d := dict "k" "0123456789abcdef" }}{{ range until 40 }}{{ $d = dict "l" $d "r" $d }}{{ end }}{{ $d }}',
    ],
    [
      'DAG toYaml',
      '{{ $d := dict "k" "0123456789abcdef" }}{{ range until 40 }}{{ $d = dict "l" $d "r" $d }}{{ end }}{{ toYaml $d }}',
    ],
    [
      'DAG toJson',
      '{{ $d := dict "k" "0123456789abcdef" }}{{ range until 40 }}{{ $d = dict "l" $d "r" $d }}{{ end }}{{ toJson $d }}',
    ],
    ['sha256 loop', `${BIG}{{ range until 5000 }}{{ $_ := sha256sum $s }}{{ end }}done`],
    [
      'printf %v of long strings',
      '{{ $s := repeat 100000 "ab" }}{{ range until 5000 }}{{ $_ := printf "%v%v" $s $s }}{{ end }}',
    ],
    ['upper in a loop', `${BIG}{{ range until 5000 }}{{ $_ := upper $s }}{{ end }}`],
    [
      'replace counting matches',
      `${BIG}{{ range until 5000 }}{{ $_ := replace "a" "b" $s }}{{ end }}`,
    ],
    ['empty loop', '{{ range until 100000 }}{{ end }}'],
  ])('%s', (_name, source) => {
    const template = compileTemplate(source);
    let fastest = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 7; run++) {
      const meter = new WorkMeter(noClock);
      const start = performance.now();
      let kind = 'ok';
      try {
        withMeter(meter, () =>
          meter.runRule('tenant', 'rule', () => template.render(sampleContext())),
        );
      } catch (err) {
        kind = err instanceof KubemodError ? err.kind : String(err);
      }
      fastest = Math.min(fastest, performance.now() - start);
      expect(LIMITS).toContain(kind);
    }
    expect(fastest).toBeLessThan(DEFAULT_WORK_LIMITS.ruleMillis);
  });
});

describe('normal templates stay cheap', () => {
  function unitsOf(source: string, context: Record<string, unknown>): number {
    const template = compileTemplate(source);
    const meter = new WorkMeter();
    const before = meter.left;
    withMeter(meter, () => template.render(context));
    return before - meter.left;
  }

  const pod = {
    Namespace: 'prod',
    Target: {
      metadata: { name: 'web-1', labels: { app: 'web', team: 'a' } },
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'nginx',
                image: 'nginx:1.19',
                ports: [{ containerPort: 8080, protocol: 'TCP' }],
                env: [{ name: 'A', value: '1' }],
                resources: { limits: { cpu: '100m', memory: '128Mi' } },
              },
              { name: 'sidecar', image: 'envoy:1.0', args: ['--a', '--b'] },
            ],
          },
        },
      },
    },
  };

  it.each([
    ['{{ .Target.metadata.labels.team | default "x" }}', 20],
    [
      'name: proxy\nimage: "envoy:{{ .Target.metadata.labels.app | default "v1" }}"\nargs: [{{ .Target.metadata.name | quote }}, {{ .Namespace | upper | quote }}]\nid: {{ printf "%s-%s" .Namespace .Target.metadata.name | sha256sum | trunc 8 }}',
      200,
    ],
    ['{{ toYaml .Target.spec.template.spec.containers }}', 2_000],
    ['{{ toJson .Target.metadata }}', 200],
    ['{{ range .Target.spec.template.spec.containers }}{{ .name }}={{ .image }};{{ end }}', 200],
  ])('%s costs under %i units', (source, most) => {
    const units = unitsOf(source, pod);
    expect(units).toBeGreaterThan(0);
    expect(units).toBeLessThan(most);
    expect(units).toBeLessThan(200_000 / 50);
  });
});

describe('properties of hostile compositions', () => {
  const leaf = fc.constantFrom('$x', '$y', '"ab"', '"a,b"', '1', '.Target', '.Target.metadata');
  const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc
        .tuple(
          fc.constantFrom(
            'list',
            'concat',
            'append',
            'prepend',
            'uniq',
            'without',
            'has',
            'reverse',
            'rest',
            'initial',
            'first',
            'dict',
            'merge',
            'mergeOverwrite',
            'keys',
            'values',
            'pick',
            'omit',
            'deepCopy',
            'hasKey',
            'set',
            'unset',
            'cat',
            'repeat 3',
            'replace "a"',
            'trim',
            'upper',
            'splitList ","',
            'split ","',
            'join ","',
            'quote',
            'indent 2',
            'toJson',
            'toYaml',
            'toString',
            'fromJson',
            'fromYaml',
            'b64enc',
            'sha256sum',
            'regexReplaceAll "a"',
            'printf "%v%s"',
            'sortAlpha',
            'toStrings',
            'deepEqual',
            'default',
            'len',
          ),
          fc.array(tie('expr'), { minLength: 1, maxLength: 3 }),
        )
        .map(([fn, args]) => `(${fn} ${args.join(' ')})`),
    ),
  })).expr;

  it('random compositions of list, dict and string helpers only ever throw KubemodErrors', () => {
    fc.assert(
      fc.property(
        expression,
        expression,
        fc.integer({ min: 1, max: 30 }),
        (grow, final, rounds) => {
          const source = `{{ $x := list 1 "a" }}{{ $y := dict "k" "v" }}{{ range until ${rounds} }}{{ $x = ${grow} }}{{ $y = dict "a" $x "b" $y }}{{ end }}{{ ${final} }}`;
          const start = performance.now();
          try {
            renderAsRule(source);
          } catch (err) {
            expect(err).toBeInstanceOf(KubemodError);
          }
          expect(performance.now() - start).toBeLessThan(1_000);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('templates whose first build would stall are refused when compiled', () => {
  it('refuses more than MAX_TEMPLATE_ACTIONS actions before parsing', () => {
    const source = Array.from(
      { length: MAX_TEMPLATE_ACTIONS + 1 },
      (_, i) => `{{ .Target.a${String(i)} }}`,
    ).join(' ');
    const start = performance.now();
    expect(() => compileTemplate(source)).toThrow(/more than 250 actions/);
    expect(performance.now() - start).toBeLessThan(100);
  });

  it('refuses a template of more than MAX_TEMPLATE_NODES syntax nodes', () => {
    const source = Array.from({ length: 200 }, (_, i) => `{{ .Target.a${String(i)} }}`).join(' ');
    expect(() => compileTemplate(source)).toThrow(/more than 1000 syntax nodes/);
  });

  it('exempts only the build of a first render from the deadlines, not its run', () => {
    // A clock that moves 1 ms a read: the deadline is passed after a few clock reads.
    let now = 0;
    const clock = (): number => (now += 1);
    const runaway = '{{ range $i := until 5000 }}{{ $_ := repeat 2000 "x" }}{{ end }}done';
    const meter = new WorkMeter(
      { ruleUnits: 1e12, renderUnits: 1e12, namespaceUnits: 1e12, ruleMillis: 5 },
      clock,
    );
    const error = (() => {
      try {
        withMeter(meter, () =>
          meter.runRule('tenant', 'rule', () => compileTemplate(runaway).render(sampleContext())),
        );
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(KubemodError);
    expect((error as KubemodError).message).toContain('exceeded its 5 ms time budget');
  });

  it('builds the largest accepted template quickly on its first render', () => {
    const source = Array.from({ length: 100 }, (_, i) => `{{ .Target.a${String(i)} }}`).join(' ');
    const template = compileTemplate(source);
    const start = performance.now();
    expect(template.render({ Target: { a1: 'x' } })).toContain('x');
    expect(performance.now() - start).toBeLessThan(500);
  });
});
