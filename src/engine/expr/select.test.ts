import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileSelect } from './select.js';
import { KubemodError } from '../../errors/catalog.js';

const doc = {
  kind: 'Deployment',
  metadata: {
    name: 'web',
    labels: { app: 'nginx', 'app.kubernetes.io/component': 'collector', 'a.b/c-d': 'x' },
    annotations: {},
  },
  spec: {
    replicas: 3,
    paused: false,
    nothing: null,
    empty: '',
    externalIPs: ['123.45.67.1', '10.0.0.1'],
    template: {
      spec: {
        containers: [
          {
            name: 'c1',
            image: 'nginx:1.14.2',
            ports: [{ containerPort: 100 }, { containerPort: 200 }],
          },
          {
            name: 'c2',
            image: 'their-repo/app:1',
            ports: [{ containerPort: 100 }, { containerPort: 80 }],
            securityContext: {},
          },
          { name: 'c3', image: 'busybox', securityContext: { runAsNonRoot: true } },
          {
            name: 'c4',
            image: 'nginx:1.15',
            ports: [{ containerPort: 80 }, { containerPort: 200 }, { containerPort: 300 }],
          },
        ],
      },
    },
  },
};

/** [expression, expected raw value] — `undefined` stands for KubeMod's undefined. */
const evaluationTable: [string, unknown][] = [
  // roots, members, brackets, quoted keys with . / -
  ['$.kind', 'Deployment'],
  ['$["kind"]', 'Deployment'],
  ["$['kind']", 'Deployment'],
  ['$.metadata.labels["app.kubernetes.io/component"]', 'collector'],
  ['$.metadata.labels["a.b/c-d"]', 'x'],
  ['$.spec.replicas', 3],
  ['$.spec.template.spec.containers[0].name', 'c1'],
  ['$.spec.template.spec.containers[-1].name', 'c4'],
  ['$.spec.template.spec.containers[9].name', undefined],
  ['$.missing.deeper.still', undefined],
  ['$.kind.length', undefined],
  // wildcards, recursive descent, unions, slices
  ['$.spec.template.spec.containers[*].name', ['c1', 'c2', 'c3', 'c4']],
  ['$.spec.template.spec.containers.*.name', ['c1', 'c2', 'c3', 'c4']],
  ['$.spec.template.spec.containers[*].ports[*].containerPort', [100, 200, 100, 80, 80, 200, 300]],
  ['$..image', ['nginx:1.14.2', 'their-repo/app:1', 'busybox', 'nginx:1.15']],
  ['$.spec.template.spec.containers[0,2].name', ['c1', 'c3']],
  ['$.metadata["name","missing"]', ['web']],
  ['$.spec.template.spec.containers[1:3].name', ['c2', 'c3']],
  ['$.spec.template.spec.containers[::-2].name', ['c4', 'c2']],
  ['$.spec.template.spec.containers[*].securityContext.runAsNonRoot', [true]],
  // filters, with and without parentheses
  ['$.spec.template.spec.containers[? @.name == "c2"].image', ['their-repo/app:1']],
  ['$.spec.template.spec.containers[?(@.name == "c2")].image', ['their-repo/app:1']],
  ['$.spec.template.spec.containers[? @.image =~ "nginx"].name', ['c1', 'c4']],
  ['$.spec.template.spec.containers[? @.image !~ "nginx"].name', ['c2', 'c3']],
  ['$.spec.template.spec.containers[*].ports[? @.containerPort == 80].containerPort', [80, 80]],
  ['$.spec.template.spec.containers[? isEmpty(@.securityContext)].name', ['c1', 'c2', 'c4']],
  ['$.spec.template.spec.containers[? isUndefined(@.securityContext)].name', ['c1', 'c4']],
  [
    '$.spec.template.spec.containers[? isDefined(@.securityContext) && isEmpty(@.securityContext)].name',
    ['c2'],
  ],
  ['$.spec.template.spec.containers[? length(@.ports) > 2].name', ['c4']],
  ['$.spec.template.spec.containers[? @.name in ["c1", "c3"]].name', ['c1', 'c3']],
  ['$.spec.template.spec.containers[? $.kind == "Deployment" && @.name == "c3"].name', ['c3']],
  ['$.spec.template.spec.containers[? @.missing == 1].name', []],
  ['$.spec.template.spec.containers[? @.missing != 1].name', []],
  // literals
  ['"text"', 'text'],
  ["'single'", 'single'],
  ['`raw\\n`', 'raw\\n'],
  ['"esc\\"aped\\n"', 'esc"aped\n'],
  ['42', 42],
  ['-1.5', -1.5],
  ['1e3', 1000],
  ['true', true],
  ['false', false],
  ['null', null],
  ['[1, "a", true]', [1, 'a', true]],
  ['{"a": 1, b: "x"}', { a: 1, b: 'x' }],
  // comparisons
  ['$.spec.replicas == 3', true],
  ['$.spec.replicas != 3', false],
  ['$.spec.replicas < 4', true],
  ['$.spec.replicas <= 3', true],
  ['$.spec.replicas > 3', false],
  ['$.spec.replicas >= 3', true],
  ['$.kind < "E"', true],
  ['$.kind == 3', false],
  ['$.kind > 3', false],
  ['$.spec.nothing == null', true],
  ['$.metadata.annotations == {}', true],
  ['$.spec.externalIPs == ["123.45.67.1", "10.0.0.1"]', true],
  // comparisons with undefined are false, whatever the operator
  ['$.a.b.c == 12', false],
  ['$.a.b.c != 12', false],
  ['$.a.b.c > 12', false],
  ['$.a.b.c < 12', false],
  ['$.a.b.c >= 12', false],
  ['$.a.b.c <= 12', false],
  ['$.a.b.c == true', false],
  ['$.a.b.c == false', false],
  ['$.a.b.c == $.x.y', false],
  ['$.a.b.c =~ ".*"', false],
  ['$.a.b.c !~ ".*"', false],
  ['$.a.b.c in [1]', false],
  // regex, RE2 semantics (unanchored search, Go syntax)
  ['$.kind =~ "^Deploy"', true],
  ['$.kind =~ "(?i)deployment"', true],
  ['$.kind !~ "Stateful"', true],
  ['$.spec.replicas =~ "^3$"', true],
  ['$.kind =~ $.metadata.labels.app', false],
  // boolean operators with boolean operands, short-circuit
  ['true && false', false],
  ['true || false', true],
  ['!true', false],
  ['!($.spec.replicas == 3)', false],
  ['false && $.kind', false],
  ['true || $.kind', true],
  // arithmetic
  ['$.spec.replicas + 1', 4],
  ['$.spec.replicas - 5', -2],
  ['$.spec.replicas * 2', 6],
  ['$.spec.replicas / 2', 1.5],
  ['$.spec.replicas % 2', 1],
  ['1 + 2 * 3', 7],
  ['(1 + 2) * 3', 9],
  ['-$.spec.replicas', -3],
  ['"a" + "b"', 'ab'],
  ['$.kind + "-" + $.spec.replicas', 'Deployment-3'],
  ['$.a.b + 1', undefined],
  ['$.a.b + 1 == 1', false],
  // in, ??, ternary
  ['$.kind in ["Deployment", "StatefulSet"]', true],
  ['$.kind in ["Pod"]', false],
  ['$.missing ?? "fallback"', 'fallback'],
  ['$.spec.nothing ?? "fallback"', 'fallback'],
  ['$.kind ?? "fallback"', 'Deployment'],
  ['$.spec.paused ?? true', false],
  ['$.spec.replicas > 1 ? "many" : "one"', 'many'],
  ['$.spec.replicas > 5 ? "many" : "few"', 'few'],
  ['$.missing ? 1 : 2', 2],
  // functions
  ['length($.spec.externalIPs)', 2],
  ['length($.metadata.labels)', 3],
  ['length($.kind)', 10],
  ['length("né")', 3],
  ['length($.spec.nothing)', 0],
  ['length($.missing)', 0],
  ['length($.spec.template.spec.containers[*].ports)', 3],
  ['length($.spec.replicas)', undefined],
  ['length($.spec.replicas) > 0', false],
  ['isDefined($.kind)', true],
  ['isDefined($.missing)', false],
  ['isDefined($.spec.nothing)', true],
  ['isUndefined($.missing)', true],
  ['isUndefined($.kind)', false],
  ['isEmpty($.spec.empty)', true],
  ['isEmpty($.spec.nothing)', true],
  ['isEmpty($.missing)', true],
  ['isEmpty($.metadata.annotations)', true],
  ['isEmpty([])', true],
  ['isEmpty($.kind)', false],
  ['isEmpty($.spec.replicas)', false],
  ['isEmpty($.spec.paused)', false],
  ['isNotEmpty($.metadata.labels)', true],
  ['isNotEmpty($.missing)', false],
  ['date("2020-01-02") < date("2021-01-01T00:00:00Z")', true],
  ['date("2021-01-01") == date("2021-01-01T00:00:00Z")', true],
];

describe('select language: evaluation', () => {
  it.each(evaluationTable)('%s', (source, expected) => {
    expect(compileSelect(source).evaluate(doc)).toEqual(expected);
  });
});

describe('select language: runtime type errors are catalogued', () => {
  it.each([
    ['$.kind && true', 'operator && expects boolean operands, got string'],
    ['false || $.spec.replicas', 'got number'],
    ['$.missing && true', 'got undefined'],
    ['!$.kind', 'operator ! expects a boolean'],
    ['$.kind - 1', 'cannot combine string and number'],
    ['$.kind in "Deployment"', 'expects an array on its right'],
    ['date("yesterday")', 'date() cannot parse'],
    ['$.kind =~ 3', 'expects a string pattern'],
    ['$.kind =~ $.spec.template.spec.containers[0].image + "("', 'invalid regular expression'],
  ])('%s', (source, message) => {
    const select = compileSelect(source);
    expect(() => select.evaluate(doc)).toThrow(KubemodError);
    expect(() => select.evaluate(doc)).toThrow(message);
  });
});

describe('select language: compile errors are catalogued with a position', () => {
  it.each([
    ['', 'KM1001', 'empty'],
    ['   ', 'KM1001', 'empty'],
    ['$.', 'KM1001', 'expected a property name'],
    ['$[', 'KM1001', 'position 2'],
    ['$.a[?]', 'KM1001', 'unexpected "]"'],
    ['$.a ==', 'KM1001', 'unexpected end of expression'],
    ['$.a == 1 1', 'KM1001', 'unexpected "1"'],
    ['kind', 'KM1001', 'unknown identifier "kind"'],
    ['"unterminated', 'KM1001', 'unterminated string'],
    ['$.a # b', 'KM1001', 'unexpected character "#"'],
    ['$.a ? 1', 'KM1001', 'expected ":"'],
    ['$.a[1:2:0]', 'KM1001', 'slice step cannot be 0'],
    ['nosuch($.a)', 'KM1003', 'unknown function nosuch()'],
    ['length($.a, $.b)', 'KM1003', 'takes 1 argument(s), got 2'],
    ['$.a =~ "(unclosed"', 'KM1010', 'invalid regular expression'],
    ['$.a =~ "a(?=b)"', 'KM1010', 'invalid regular expression'],
  ])('%j', (source, code, message) => {
    try {
      compileSelect(source);
      expect.unreachable(`expected ${source} to fail`);
    } catch (err) {
      expect(err).toBeInstanceOf(KubemodError);
      expect((err as KubemodError).code).toBe(code);
      expect((err as KubemodError).message).toContain(message);
    }
  });
});

describe('select language: resource limits', () => {
  it('refuses expressions nested deeper than the limit', () => {
    expect(() => compileSelect('('.repeat(300) + '1' + ')'.repeat(300))).toThrow(
      'nests deeper than',
    );
  });
  it('refuses expressions longer than the limit', () => {
    expect(() => compileSelect('$.a' + '.b'.repeat(9000))).toThrow('over the 16384 limit');
  });
});

describe('select language: items capture wildcard and filter keys for patch placeholders', () => {
  it('captures container and port indexes as in the spec example', () => {
    const items = compileSelect(
      '$.spec.template.spec.containers[*].ports[? @.containerPort == 80]',
    ).items(doc);
    expect(items.map((i) => i.keyParts)).toEqual([
      [1, 1],
      [3, 0],
    ]);
    expect(items.map((i) => i.value)).toEqual([{ containerPort: 80 }, { containerPort: 80 }]);
  });
  it('captures object keys for wildcards over maps (in sorted order)', () => {
    const items = compileSelect('$.metadata.labels[*]').items(doc);
    expect(items.map((i) => i.keyParts)).toEqual([
      ['a.b/c-d'],
      ['app'],
      ['app.kubernetes.io/component'],
    ]);
  });
  it('captures the relative pointer for recursive descent', () => {
    const items = compileSelect('$..containerPort').items({
      a: [{ containerPort: 1 }],
      b: { containerPort: 2 },
    });
    expect(items.map((i) => i.keyParts)).toEqual([['a/0'], ['b']]);
  });
  it('yields one item without captures for a plain path and none when undefined', () => {
    expect(compileSelect('$.metadata.name').items(doc)).toEqual([{ value: 'web', keyParts: [] }]);
    expect(compileSelect('$.metadata.nope').items(doc)).toEqual([]);
  });
});

describe('select language: outcome for matching', () => {
  it('reports a single boolean', () => {
    expect(compileSelect('$.spec.replicas == 3').outcome(doc)).toEqual({
      kind: 'boolean',
      value: true,
    });
    expect(compileSelect('$.spec.paused').outcome(doc)).toEqual({ kind: 'boolean', value: false });
  });
  it('filters undefined elements out of multi-valued results and counts them', () => {
    expect(
      compileSelect('$.spec.template.spec.containers[*].securityContext.runAsNonRoot').outcome(doc),
    ).toEqual({
      kind: 'values',
      values: [true],
      undefinedCount: 3,
    });
  });
  it('treats an array value as the list of its elements, like Go', () => {
    expect(compileSelect('$.spec.externalIPs').outcome(doc)).toEqual({
      kind: 'values',
      values: ['123.45.67.1', '10.0.0.1'],
      undefinedCount: 0,
    });
  });
  it('gives no values for an undefined path', () => {
    expect(compileSelect('$.nope').outcome(doc)).toMatchObject({ kind: 'values', values: [] });
  });
});

describe('select language: properties', () => {
  it('the parser throws nothing but a catalogued KubemodError on random input', () => {
    const alphabet = fc.constantFrom(...'$@.[]()?*:,"\'`!=<>~&|+-/%{} 0123456789abcxyz_'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: alphabet, maxLength: 40 })), (source) => {
        try {
          compileSelect(source);
        } catch (err) {
          expect(err).toBeInstanceOf(KubemodError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  const expressions = [
    '$.a',
    '$.a.b[0].c',
    '$..*',
    '$.a[*].b',
    '$.a[? @.b == 1]',
    '$.a[? isEmpty(@.x)]',
    'length($.a) > 0',
    '$.a == $.b',
    '$.a ?? $.b',
    '$.a[-1:]',
    '$..a',
    '$.a =~ "x"',
    '$.a in [1, "x", null]',
    'isDefined($.a.b)',
  ].map((source) => compileSelect(source));

  it('evaluating paths, comparisons and functions never throws on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (json) => {
        for (const select of expressions) {
          select.evaluate(json);
          select.outcome(json);
          select.items(json);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('evaluation of any expression throws only catalogued errors on random JSON', () => {
    const ops = ['&&', '||', '+', '-', '*', '/', '%', '<', '==', 'in', '??', '=~'];
    const operand = fc.constantFrom(
      '$.a',
      '@.b',
      '$..c',
      '1',
      '"s"',
      'true',
      'null',
      '[1]',
      'length($.a)',
    );
    const source = fc
      .tuple(operand, fc.constantFrom(...ops), operand)
      .map(([a, op, b]) => `${a} ${op} ${b}`);
    fc.assert(
      fc.property(source, fc.jsonValue({ maxDepth: 4 }), (src, json) => {
        try {
          compileSelect(src).evaluate(json);
        } catch (err) {
          expect(err).toBeInstanceOf(KubemodError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
