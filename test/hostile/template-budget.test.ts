import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import { manifestJson } from './support/generators.js';
import {
  admissionAnswer,
  expectBounded,
  GUARD_OP,
  hostileRequest,
  PATHS,
  patchOf,
  reviewJson,
  startHostileServer,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 4: every template helper is charged by the size of what it builds and reads,
// so a hostile template fails as that rule's failure (with a warning) while the other rules
// apply, in well under a second and without ballooning the heap.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

/** A tenant rule whose patch value is `template`, plus a harmless rule of the same tenant. */
function rulesWith(template: string): string {
  return `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: hostile, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
  patch:
    - op: add
      path: /metadata/annotations
      value: ${JSON.stringify(template)}
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: tenant-label, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/tenant
      value: '"ok"'
`;
}

const TENANT_OP = { op: 'add', path: '/metadata/labels/tenant', value: 'ok' };

const doubling = (times: number, seed = '"aaaaaaaaaaaaaaaa"'): string =>
  `{{ $x := list ${seed} }}${'{{ $x = concat $x $x }}'.repeat(times)}{{ len $x }}`;

/** A dict whose every entry is the previous dict, `levels` deep: 4^levels leaves when printed. */
const fanOut = (levels: number, print: string): string => {
  let template = '{{ $d0 := dict "k" "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv" }}';
  for (let i = 1; i <= levels; i++) {
    const p = `$d${String(i - 1)}`;
    template += `{{ $d${String(i)} := dict "a" ${p} "b" ${p} "c" ${p} "d" ${p} }}`;
  }
  return template + print.replaceAll('$x', `$d${String(levels)}`);
};

const MB_STRING = '{{ $s := repeat 1048576 "x" }}';

const HOSTILE_TEMPLATES: [string, string][] = [
  [
    'concat $x $x doubling in a range loop',
    `{{ $x := list "aaaaaaaaaaaaaaaa" }}{{ range until 64 }}{{ $x = concat $x $x }}{{ end }}{{ len $x }}`,
  ],
  ['concat $x $x doubling, unrolled 64 times', doubling(64)],
  [
    'append growing a list in a loop',
    '{{ $x := list }}{{ range until 100000 }}{{ $x = append $x (repeat 1000 "y") }}{{ end }}{{ len $x }}',
  ],
  ['a 4^16 fan-out dict printed with {{ $x }}', fanOut(16, '{{ $x }}')],
  ['a 4^16 fan-out dict through toYaml', fanOut(16, '{{ toYaml $x }}')],
  ['a 4^16 fan-out dict through toString', fanOut(16, '{{ toString $x }}')],
  ['a 4^16 fan-out dict through toJson', fanOut(16, '{{ toJson $x }}')],
  ['a 4^16 fan-out dict through printf %v', fanOut(16, '{{ printf "%v" $x }}')],
  ['a 4^16 fan-out dict measured, not printed', fanOut(16, '{{ len (toString $x) }}')],
  ['a 4^16 fan-out dict compared with eq', fanOut(16, '{{ eq (toYaml $x) "" }}')],
  ['a 4^16 fan-out dict through deepCopy', fanOut(16, '{{ len (deepCopy $x) }}')],
  [
    'a dict that contains itself, printed',
    '{{ $d := dict "k" "v" }}{{ $_ := set $d "self" $d }}{{ $d }}',
  ],
  [
    'a dict that contains itself, through toYaml',
    '{{ $d := dict "k" "v" }}{{ $_ := set $d "self" $d }}{{ toYaml $d }}',
  ],
  [
    'a dict that contains itself, through toJson',
    '{{ $d := dict "k" "v" }}{{ $_ := set $d "self" $d }}{{ toJson $d }}',
  ],
  [
    'a list that contains itself, printed',
    '{{ $l := list 1 }}{{ $d := dict "l" $l }}{{ $_ := set $d "d" $d }}{{ $d }}',
  ],
  [
    '3,000 sha256sum over 1 MB, outside any loop',
    `${MB_STRING}${'{{ $_ := sha256sum $s }}'.repeat(3000)}done`,
  ],
  [
    'sha256sum over 1 MB in a 10,000-iteration loop',
    `${MB_STRING}{{ range until 10000 }}{{ $_ := sha256sum $s }}{{ end }}done`,
  ],
  ['b64enc over 1 MB, 3,000 times', `${MB_STRING}${'{{ $_ := b64enc $s }}'.repeat(3000)}done`],
  ['upper over 1 MB, 3,000 times', `${MB_STRING}${'{{ $_ := upper $s }}'.repeat(3000)}done`],
  [
    'regexReplaceAll over 1 MB in a loop',
    `${MB_STRING}{{ range until 10000 }}{{ $_ := regexReplaceAll "x" $s "yy" }}{{ end }}done`,
  ],
  [
    'split of 1 MB into a million parts in a loop',
    `${MB_STRING}{{ range until 10000 }}{{ $_ := splitList "" $s }}{{ end }}done`,
  ],
  [
    'repeat 1 MB in a loop, never printed',
    '{{ range until 100000 }}{{ $_ := repeat 1048576 "z" }}{{ end }}done',
  ],
  ['printf with a huge width', '{{ printf "%999999999d" 1 }}'],
  [
    'nested loops of 100,000 × 100,000',
    '{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}done',
  ],
  ['until with a huge count', '{{ range until 1000000000 }}{{ end }}done'],
];

/**
 * Serves the hostile rule; false when it is refused at load time instead (a static limit such
 * as the number of actions), which is fine if the refusal names the field.
 */
function loads(template: string): boolean {
  try {
    server.useRules(rulesWith(template));
    return true;
  } catch (err) {
    expect(String(err)).toContain('(ModRule team/hostile): spec.patch[0].value: ');
    return false;
  }
}

describe('hostile templates fail as their rule, the rest applies', () => {
  it.each(HOSTILE_TEMPLATES)(
    '%s',
    async (_name, template) => {
      if (!loads(template)) return;
      const object = manifestJson('{}', { labels: { guard: 'please' } });
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
      expectBounded(measured);
      const response = admissionAnswer(measured.value);
      expect(response.allowed).toBe(true);
      const patch = patchOf(response);
      expect(patch).toContainEqual(GUARD_OP);
      expect(patch).toContainEqual(TENANT_OP);
      expect(patch.map((op) => op.path)).not.toContain('/metadata/annotations');
      expect(server.failures.map((f) => f.failure.rule)).toEqual(['team/hostile']);
      expect(server.failures[0]?.failure.field).toBe('spec.patch[0].value');
      expect(response.warnings?.join('\n') ?? '', 'no warning names the failed rule').toContain(
        'team/hostile',
      );
    },
    CASE_TIMEOUT_MS,
  );
});

describe('the cluster-wide Reject rule still rejects', () => {
  it(
    'despite a tenant rule that would run for seconds',
    async () => {
      server.useRules(
        rulesWith(`${MB_STRING}{{ range until 10000 }}{{ $_ := sha256sum $s }}{{ end }}done`),
      );
      const object = manifestJson('{}', { labels: { forbidden: 'yes' } });
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expectBounded(measured);
      const response = admissionAnswer(measured.value);
      expect(response.allowed).toBe(false);
      expect(response.status?.message).toContain('kubemod-system/guard-reject');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'despite twenty such tenant rules in one namespace',
    async () => {
      const template = `${MB_STRING}{{ range until 10000 }}{{ $_ := sha256sum $s }}{{ end }}done`;
      const many = Array.from({ length: 20 }, (_, i) =>
        rulesWith(template)
          .split('---')[0]
          ?.replace('name: hostile', `name: hostile-${String(i)}`),
      ).join('---\n');
      server.useRules(many);
      const object = manifestJson('{}', { labels: { forbidden: 'yes', guard: 'please' } });
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expectBounded(measured);
      const response = admissionAnswer(measured.value);
      expect(response.allowed).toBe(false);
      expect(response.status?.message).toContain('kubemod-system/guard-reject');
    },
    CASE_TIMEOUT_MS,
  );
});
