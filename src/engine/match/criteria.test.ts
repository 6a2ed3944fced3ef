import { describe, expect, it } from 'vitest';
import type { MatchItemSpec } from '../../api/modrule-types.js';
import { compileMatchItem } from './criteria.js';
import { compileMatch, MatchCompileError } from './rule-match.js';
import { KubemodError } from '../../errors/catalog.js';

const obj = {
  kind: 'Deployment',
  metadata: {
    name: 'web',
    labels: { app: 'nginx', tier: 'front' },
    annotations: { big: '1000000' },
  },
  spec: {
    replicas: 3,
    scale: 1000000,
    ratio: 0.5,
    paused: false,
    nothing: null,
    empty: [],
    selector: { matchLabels: { b: '2', a: '1' } },
    containers: [
      {
        name: 'a',
        image: 'nginx:1.14',
        ports: [{ containerPort: 80 }],
        securityContext: { runAsNonRoot: true },
      },
      { name: 'b', image: 'nginx:1.15', ports: [{ containerPort: 8080 }] },
    ],
  },
};

/** [description, criteria item, expected match] */
const table: [string, MatchItemSpec, boolean][] = [
  // a single boolean result decides on its own
  ['boolean true', { select: '$.spec.replicas == 3' }, true],
  ['boolean false', { select: '$.spec.replicas == 4' }, false],
  ['boolean field value false', { select: '$.spec.paused' }, false],
  ['boolean wins over matchValue', { select: '$.spec.replicas == 3', matchValue: 'nope' }, true],
  ['negated boolean', { select: '$.spec.replicas == 3', negate: true }, false],
  // no values never match, unless negated
  ['undefined path', { select: '$.spec.missing' }, false],
  ['undefined path negated', { select: '$.spec.missing', negate: true }, true],
  ['empty array', { select: '$.spec.empty' }, false],
  ['filter selecting nothing', { select: '$.spec.containers[? @.name == "zz"]' }, false],
  [
    'filter selecting nothing, negated',
    { select: '$.spec.containers[? @.name == "zz"]', negate: true },
    true,
  ],
  // values without matchValue/matchValues/matchRegex: existence
  ['existing value', { select: '$.metadata.labels' }, true],
  ['null value exists', { select: '$.spec.nothing' }, true],
  ['existing value negated', { select: '$.metadata.labels.app', negate: true }, false],
  // matchValue, Any and All
  ['matchValue any hit', { select: '$.spec.containers[*].name', matchValue: 'b' }, true],
  ['matchValue any miss', { select: '$.spec.containers[*].name', matchValue: 'c' }, false],
  ['matchValue is case sensitive', { select: '$.kind', matchValue: 'deployment' }, false],
  [
    'matchValue all miss',
    { select: '$.spec.containers[*].image', matchFor: 'All', matchValue: 'nginx:1.14' },
    false,
  ],
  [
    'matchValue all hit',
    { select: '$.spec.containers[*].ports[*].containerPort', matchFor: 'Any', matchValue: '8080' },
    true,
  ],
  [
    'matchValue all of one',
    { select: '$.metadata.labels.app', matchFor: 'All', matchValue: 'nginx' },
    true,
  ],
  // matchValues
  ['matchValues any', { select: '$.spec.containers[*].name', matchValues: ['x', 'a'] }, true],
  [
    'matchValues all',
    { select: '$.spec.containers[*].name', matchFor: 'All', matchValues: ['a', 'b'] },
    true,
  ],
  [
    'matchValues all miss',
    { select: '$.spec.containers[*].name', matchFor: 'All', matchValues: ['a'] },
    false,
  ],
  // matchRegex: RE2, unanchored
  ['matchRegex any', { select: '$.spec.containers[*].image', matchRegex: '1\\.15$' }, true],
  [
    'matchRegex all',
    { select: '$.spec.containers[*].image', matchFor: 'All', matchRegex: '^nginx:' },
    true,
  ],
  [
    'matchRegex all miss',
    { select: '$.spec.containers[*].image', matchFor: 'All', matchRegex: '1\\.14' },
    false,
  ],
  ['matchRegex case-insensitive flag', { select: '$.kind', matchRegex: '(?i)^deploy' }, true],
  [
    'matchRegex on numbers',
    { select: '$.spec.containers[*].ports[*].containerPort', matchRegex: '^80$' },
    true,
  ],
  // All fails when any element was undefined
  [
    'All with an undefined element',
    {
      select: '$.spec.containers[*].securityContext.runAsNonRoot',
      matchFor: 'All',
      matchValue: 'true',
    },
    false,
  ],
  [
    'Any ignores undefined elements',
    { select: '$.spec.containers[*].securityContext.runAsNonRoot', matchValue: 'true' },
    true,
  ],
  [
    'All existence with an undefined element',
    { select: '$.spec.containers[*].securityContext', matchFor: 'All' },
    false,
  ],
  ['All with no values', { select: '$.spec.empty[*]', matchFor: 'All', matchValue: 'x' }, false],
  // values are printed as Go's %v
  ['number printed as Go float', { select: '$.spec.replicas', matchValue: '3' }, true],
  ['large number printed with exponent', { select: '$.spec.scale', matchValue: '1e+06' }, true],
  ['fraction', { select: '$.spec.ratio', matchValue: '0.5' }, true],
  [
    'boolean inside a list printed',
    { select: '$.spec.containers[*].securityContext.runAsNonRoot', matchValue: 'true' },
    true,
  ],
  ['null printed as <nil>', { select: '$.spec.nothing', matchValue: '<nil>' }, true],
  [
    'map printed with sorted keys',
    { select: '$.spec.selector.matchLabels', matchValue: 'map[a:1 b:2]' },
    true,
  ],
  ['string stays a string', { select: '$.metadata.annotations.big', matchValue: '1000000' }, true],
  // several value checks all apply
  [
    'matchValue and matchRegex both hold',
    { select: '$.kind', matchValue: 'Deployment', matchRegex: '^D' },
    true,
  ],
  [
    'matchValue holds but matchRegex does not',
    { select: '$.kind', matchValue: 'Deployment', matchRegex: '^S' },
    false,
  ],
  // negate flips every outcome
  ['negated matchValue hit', { select: '$.kind', matchValue: 'Deployment', negate: true }, false],
  ['negated matchValue miss', { select: '$.kind', matchValue: 'Pod', negate: true }, true],
];

describe('criteria item outcome', () => {
  it.each(table)('%s', (_name, spec, expected) => {
    expect(compileMatchItem(spec).matches(obj)).toBe(expected);
  });
});

describe('match section', () => {
  it('matches only when every item matches', () => {
    const both = compileMatch([
      { select: '$.kind', matchValue: 'Deployment' },
      { select: '$.spec.replicas > 2' },
    ]);
    const one = compileMatch([
      { select: '$.kind', matchValue: 'Deployment' },
      { select: '$.spec.replicas > 5' },
    ]);
    expect(both.matches(obj)).toBe(true);
    expect(one.matches(obj)).toBe(false);
  });

  it('reports every compile error with its field path', () => {
    try {
      compileMatch([
        { select: '$.kind' },
        { select: '$.a[' },
        { select: '$.kind', matchRegex: '(' },
        { select: '$.kind', matchFor: 'Most' as 'All' },
      ]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(MatchCompileError);
      const fields = (err as MatchCompileError).errors.map((e) => [e.field, e.code]);
      expect(fields).toEqual([
        ['spec.match[1].select', 'KM1001'],
        ['spec.match[2].matchRegex', 'KM1010'],
        ['spec.match[3].matchFor', 'KM2001'],
      ]);
    }
  });

  it('surfaces runtime type errors as catalogued errors', () => {
    const item = compileMatchItem({ select: '$.kind && true' });
    expect(() => item.matches(obj)).toThrow(KubemodError);
  });
});
