/**
 * `npm run bench`: in-process engine benchmarks on committed inputs. Prints a Markdown table
 * (the one kept in BENCHMARKS.md) with the machine and Node version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileMatch, type MatchItemSpec } from '../src/engine/match/index.js';
import { compileSelect } from '../src/engine/expr/index.js';
import { environment, formatTable, measure, type Stats } from './lib/measure.js';
import { matchingRules, storeOf, unrelatedRules } from './lib/rule-sets.js';
import { evaluate } from '../src/engine/evaluate.js';
import type { JsonObject } from '../src/engine/json.js';

const deployment: unknown = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'deployment-10kb.json'), 'utf8'),
);

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
  throw new Error('benchmark rules do not behave as expected on the fixture');
}

const rows: Stats[] = [
  measure('match: 5 typical criteria, all match (10 KB Deployment)', () =>
    matching.matches(deployment),
  ),
  measure('match: 5 typical criteria, first fails (10 KB Deployment)', () =>
    nonMatching.matches(deployment),
  ),
  measure('match: 5 heavier criteria (filters, regex, functions)', () => heavy.matches(deployment)),
  measure('compile: 5 typical criteria', () => compileMatch(typical), { samples: 500 }),
  measure(
    'select: recursive descent $..image',
    () => compileSelect('$..image').evaluate(deployment),
    { samples: 500 },
  ),
];

const object = deployment as JsonObject;
const request = { operation: 'CREATE' as const, namespace: 'team-a', object };
const tiered = storeOf(matchingRules('team-a'));
const with1k = storeOf(matchingRules('team-a'), unrelatedRules('team-a', 1_000));
const with10k = storeOf(matchingRules('team-a'), unrelatedRules('team-a', 10_000));
const check = evaluate(with10k, request);
if (check.applied.length !== 10 || check.failures.length > 0) {
  throw new Error(
    `expected 10 applied rules, got ${String(check.applied.length)}: ${JSON.stringify(check.failures)}`,
  );
}
rows.push(
  measure('evaluate: 10 matching Patch rules over 3 tiers', () => evaluate(tiered, request), {
    samples: 1000,
    batch: 5,
  }),
  measure(
    'evaluate: same + 1,000 unrelated rules in the namespace',
    () => evaluate(with1k, request),
    { samples: 1000, batch: 5 },
  ),
  measure(
    'evaluate: same + 10,000 unrelated rules in the namespace',
    () => evaluate(with10k, request),
    { samples: 1000, batch: 5 },
  ),
  measure(
    'evaluate: 10,000 unrelated rules, nothing matches',
    () => evaluate(with10k, { ...request, object: { ...object, kind: 'Lease' } }),
    { samples: 1000 },
  ),
);

console.log(`Engine benchmarks — ${environment()}\n`);
console.log(formatTable(rows));
