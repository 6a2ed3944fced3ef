import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import { aliasBombFlow, manifestJson } from './support/generators.js';
import {
  admissionAnswer,
  dryrunJson,
  expectBounded,
  GUARD_OP,
  hostileRequest,
  modRule,
  PATHS,
  patchOf,
  reviewJson,
  startHostileServer,
  validateReviewJson,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 6 on the webhook: a patch value is YAML; one that is (or renders to) an alias
// bomb fails as its rule (with a warning) while the others apply, fast and in little memory. The
// rules directory and the CLI are covered in rules-directory.test.ts and dryrun-cli.test.ts.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const BOMB = aliasBombFlow(9, 10);

/** Patch values that are, or render to, a billion-laughs document. */
const BOMB_VALUES: [string, string][] = [
  ['a literal alias bomb', BOMB],
  ['an alias bomb printed by a template', `{{ print ${JSON.stringify(BOMB)} }}`],
  [
    'an alias bomb assembled in a loop',
    `{a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]{{ range $i := until 8 }}, a{{ add $i 1 }}: &a{{ add $i 1 }} [{{ range until 10 }}*a{{ $i }}, {{ end }}*a{{ $i }}]{{ end }}}`,
  ],
  ['an alias bomb 14 levels deep', aliasBombFlow(14, 10)],
  ['a wide alias bomb (1,000 aliases × 3 levels)', aliasBombFlow(3, 1000)],
];

function rulesWith(value: string): string {
  return `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: bomb, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
  patch:
    - op: add
      path: /spec/bomb
      value: ${JSON.stringify(value)}
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: tenant-label, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
  patch:
    - op: add
      path: /metadata/labels/tenant
      value: '"ok"'
`;
}

describe('alias bombs in patch values through the dragnet webhook', () => {
  it.each(BOMB_VALUES)(
    '%s: the rule fails, the others apply',
    async (_name, value) => {
      let loaded = true;
      try {
        server.useRules(rulesWith(value));
      } catch {
        loaded = false; // refused when compiling the rule: also fine, see the validating webhook
      }
      if (!loaded) return;
      const object = manifestJson('{}', { labels: { guard: 'please' } });
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
      expectBounded(measured);
      const response = admissionAnswer(measured.value);
      const patch = patchOf(response);
      expect(patch).toContainEqual(GUARD_OP);
      expect(patch).toContainEqual({ op: 'add', path: '/metadata/labels/tenant', value: 'ok' });
      expect(patch.map((op) => op.path)).not.toContain('/spec/bomb');
      expect(server.failures.map((f) => [f.failure.rule, f.failure.field])).toEqual([
        ['team/bomb', 'spec.patch[0].value'],
      ]);
      expect(response.warnings?.join('\n') ?? '').toContain('team/bomb');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'ordinary anchors in a patch value still work',
    async () => {
      server.useRules(rulesWith('{a: &a [x, z], b: *a}'));
      const measured = await hostileRequest(
        server,
        'POST',
        PATHS.dragnet,
        reviewJson(manifestJson('{}')),
      );
      expect(patchOf(admissionAnswer(measured.value))).toContainEqual({
        op: 'add',
        path: '/spec/bomb',
        value: { a: ['x', 'z'], b: ['x', 'z'] },
      });
    },
    CASE_TIMEOUT_MS,
  );
});

describe('alias bombs in patch values through the validating webhook and /v1/dryrun', () => {
  it.each(BOMB_VALUES)(
    '%s: a field error or a reported failure, never 500',
    async (_name, value) => {
      const rule = modRule('bomb', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'add', path: '/spec/bomb', value }],
      });
      const validated = await hostileRequest(
        server,
        'POST',
        PATHS.validate,
        validateReviewJson(rule),
      );
      expect(validated.value.status).toBe(200);
      expectBounded(validated);
      const validation = admissionAnswer(validated.value);
      if (!validation.allowed) expect(validation.status?.message).toContain('spec.patch[0].value');

      const label = modRule('tenant-label', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'add', path: '/metadata/labels/tenant', value: '"ok"' }],
      });
      const measured = await hostileRequest(
        server,
        'PUT',
        PATHS.dryrun,
        dryrunJson(manifestJson('{}'), [rule, label]),
      );
      expectBounded(measured);
      const { status, text } = measured.value;
      if (status === 400) {
        expect(text).toContain('spec.patch[0].value');
        return;
      }
      expect(status, text.slice(0, 300)).toBe(200);
      const answer = JSON.parse(text) as { patch: unknown[]; failures?: unknown };
      expect(answer.patch).toEqual([{ op: 'add', path: '/metadata/labels/tenant', value: 'ok' }]);
      expect(JSON.stringify(answer.failures ?? null)).toContain('bomb');
    },
    CASE_TIMEOUT_MS,
  );
});
