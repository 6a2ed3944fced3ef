/** Micro-benchmarks of match sections, compilation and selection on the 10 KB Deployment. */
import type { MatchItemSpec } from '../../src/api/modrule-types.js';
import { compileMatch } from '../../src/engine/match/index.js';
import { compileSelect } from '../../src/engine/expr/index.js';
import type { JsonObject } from '../../src/engine/json.js';
import { measure, type Stats } from './measure.js';

/** A typical five-criteria match section: kind, label, image regex, negated boolean, negated filter. */
const typical: MatchItemSpec[] = [
  { select: '$.kind', matchValue: 'Deployment' },
  { select: '$.metadata.labels.app', matchValue: 'web' },
  { select: '$.spec.template.spec.containers[*].image', matchRegex: 'nginx:1\\.2\\d\\..*' },
  { select: '$.spec.template.spec.securityContext.runAsNonRoot == true', negate: true },
  { select: '$.spec.template.spec.containers[? @.name == "jaeger-agent"]', negate: true },
];
const heavier: MatchItemSpec[] = [
  { select: '$.kind', matchValues: ['Deployment', 'StatefulSet'] },
  { select: '$.metadata.labels["app.kubernetes.io/part-of"]', matchRegex: '^shop$' },
  {
    select: '$.spec.template.spec.containers[*].env[? @.name =~ "^ENV_VAR_1[0-9]$"].value',
    matchFor: 'All',
    matchRegex: '^value-',
  },
  {
    select:
      'length($.spec.template.spec.containers) > 1 && isDefined($.spec.template.metadata.labels.team)',
  },
  {
    select: '$.spec.template.spec.containers[? isEmpty(@.securityContext)].name',
    matchValue: 'web',
  },
];

/** Batch-averaged rows (median/p99 of batches of 10 calls). */
export function microRows(deployment: JsonObject): Stats[] {
  const matching = compileMatch(typical);
  const nonMatching = compileMatch([
    { select: '$.kind', matchValue: 'Service' },
    ...typical.slice(1),
  ]);
  const heavy = compileMatch(heavier);
  if (
    !matching.matches(deployment) ||
    nonMatching.matches(deployment) ||
    !heavy.matches(deployment)
  ) {
    throw new Error('micro-benchmark rules do not behave as expected on the fixture');
  }
  return [
    measure('match: 5 typical criteria, all match', () => matching.matches(deployment)),
    measure('match: 5 typical criteria, first fails', () => nonMatching.matches(deployment)),
    measure('match: 5 heavier criteria (filters, regex, functions)', () =>
      heavy.matches(deployment),
    ),
    measure('compile: 5 typical criteria', () => compileMatch(typical), { samples: 500 }),
    measure(
      'select: recursive descent $..image (compile + evaluate)',
      () => compileSelect('$..image').evaluate(deployment),
      { samples: 500 },
    ),
  ];
}
