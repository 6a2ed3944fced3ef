import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import {
  deepArrayJson,
  deepImagesJson,
  deepMixedJson,
  deepObjectJson,
  manifestJson,
  wideArrayJson,
  wideObjectJson,
} from './support/generators.js';
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
  type HostileServer,
} from './support/server.js';

// Issue #12, class 2: recursive descent (`$..image`) against very deep or very wide objects must
// be answered quickly: the rule evaluates or is cut off (WORK_LIMIT / DEPTH_LIMIT), and the
// other rules of the same request still apply.

const RULES = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: images, namespace: team }
spec:
  type: Patch
  match:
    - select: '$..image'
      matchValue: nginx
  patch:
    - op: add
      path: /metadata/labels/has-nginx
      value: '"true"'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: images-filter, namespace: team }
spec:
  type: Patch
  match:
    - select: '$..[?(@.image == "nginx")].image'
  patch:
    - op: add
      path: /metadata/labels/filtered
      value: '"true"'
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

const DESCENT_RULES = new Set(['team/images', 'team/images-filter']);
const CUT_OFF_CODES = ['KM5002', 'KM5003']; // WORK_LIMIT, DEPTH_LIMIT
const TENANT_OP = { op: 'add', path: '/metadata/labels/tenant', value: 'ok' };

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * Sends `spec` in a ConfigMap labelled for the cluster guard rule; asserts it is answered within
 * the bounds and that the guard and tenant rules applied while each descent rule either applied
 * or was cut off. `mayRefuse`: the body is deeper than any API server sends, a 4xx is fine.
 */
async function expectDescentBounded(spec: string, mayRefuse = false): Promise<void> {
  server.useRules(RULES);
  const object = manifestJson(spec, { labels: { guard: 'please' } });
  const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
  expectBounded(measured);
  const { status, text } = measured.value;
  if (mayRefuse && status >= 400 && status < 500) {
    expect(JSON.parse(text)).toMatchObject({ code: expect.stringMatching(/^KM6/) as string });
    return;
  }
  expect(status, text.slice(0, 300)).toBe(200);
  const response = admissionAnswer(measured.value);
  expect(response.allowed).toBe(true);
  const patch = patchOf(response);
  // The cluster-wide rule has a budget of its own: the tenant's rules cannot use it up.
  expect(patch).toContainEqual(GUARD_OP);
  const failed = server.failures.map((f) => f.failure);
  // The tenant's own plain rule applies, unless the descent rules of its namespace used up the
  // namespace's shared time budget on this object first; then it is reported as cut off.
  const tenantCutOff = failed.find((f) => f.rule === 'team/tenant-label');
  if (tenantCutOff === undefined) expect(patch).toContainEqual(TENANT_OP);
  else expect(tenantCutOff.message).toMatch(/namespace team used up their time budget/);
  for (const failure of failed) {
    expect(
      DESCENT_RULES.has(failure.rule) || failure === tenantCutOff,
      `unexpected failure ${failure.rule}`,
    ).toBe(true);
    expect(CUT_OFF_CODES).toContain(failure.code);
  }
  const applied = patch.map((op) => op.path);
  for (const rule of DESCENT_RULES) {
    const label =
      rule === 'team/images' ? '/metadata/labels/has-nginx' : '/metadata/labels/filtered';
    const cutOff = failed.some((f) => f.rule === rule);
    if (!cutOff && spec.includes('"image":"nginx"')) expect(applied).toContain(label);
  }
  if (failed.length > 0) {
    expect(response.warnings?.join('\n') ?? '', 'failed rules are not named in a warning').toMatch(
      /team\/images/,
    );
  }
}

describe('$..image against deep objects', () => {
  it(
    'objects nested 40,000 deep, an image at every level: answered (or refused as too deep) at once',
    async () => {
      await expectDescentBounded(deepImagesJson(40_000), true);
    },
    CASE_TIMEOUT_MS,
  );

  it.each([
    ['an image at every level, 9,000 deep', deepImagesJson(9000)],
    ['objects nested 9,000 deep', deepObjectJson(9000, '{"image":"nginx"}')],
    ['arrays nested 9,000 deep', deepArrayJson(9000, '{"image":"nginx"}')],
    ['objects and arrays alternating 9,000 deep', deepMixedJson(9000, '{"image":"nginx"}')],
    ['an image at every level, 2,000 deep', deepImagesJson(2000)],
  ])(
    '%s: the other rules apply, the descent evaluates or is cut off',
    async (_name, spec) => {
      await expectDescentBounded(spec);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('$..image against wide objects', () => {
  it.each([
    ['100,000 keys', wideObjectJson(100_000, '"x"')],
    ['100,000 keys, each holding an image', wideObjectJson(60_000, '{"image":"nginx"}')],
    ['100,000 array items', wideArrayJson(100_000, '1')],
    ['2,000 keys × 8 levels', wideObjectJson(2000, deepImagesJson(8))],
    ['a 1 MB key', `{"${'k'.repeat(1024 * 1024)}":{"image":"nginx"}}`],
  ])(
    '%s: the other rules apply, the descent evaluates or is cut off',
    async (_name, spec) => {
      await expectDescentBounded(spec);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('the cluster-wide Reject rule still rejects', () => {
  it(
    'a deep object labelled forbidden=yes is rejected at once despite $..image rules',
    async () => {
      server.useRules(RULES);
      const object = manifestJson(deepImagesJson(9000), { labels: { forbidden: 'yes' } });
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expectBounded(measured);
      const response = admissionAnswer(measured.value);
      expect(response.allowed).toBe(false);
      expect(response.status?.message).toContain('kubemod-system/guard-reject');
    },
    CASE_TIMEOUT_MS,
  );
});

describe('$..image through /v1/dryrun', () => {
  it(
    'a 9,000-deep object: 200 with the other rule applied and the descent cut off or applied',
    async () => {
      const rules = [
        modRule('images', {
          type: 'Patch',
          match: [{ select: '$..image', matchValue: 'nginx' }],
          patch: [{ op: 'add', path: '/metadata/labels/has-nginx', value: '"true"' }],
        }),
        modRule('tenant-label', {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/metadata/labels/tenant', value: '"ok"' }],
        }),
      ];
      const measured = await hostileRequest(
        server,
        'PUT',
        PATHS.dryrun,
        dryrunJson(manifestJson(deepImagesJson(9000)), rules),
      );
      expectBounded(measured);
      expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
      const answer = JSON.parse(measured.value.text) as { patch: unknown[] };
      expect(answer.patch).toContainEqual(TENANT_OP);
    },
    CASE_TIMEOUT_MS,
  );
});
