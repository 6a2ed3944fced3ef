import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonPatchOperation } from '../../src/engine/json.js';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import {
  deepArrayJson,
  deepMixedJson,
  deepObjectJson,
  manifestJson,
  wideObjectJson,
} from './support/generators.js';
import {
  dryrunJson,
  expectBounded,
  hostileRequest,
  modRule,
  PATHS,
  startHostileServer,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 1: PUT /v1/dryrun builds a YAML diff of the object before and after the
// rules. Its cost must stay bounded in nesting depth and in the number of changed lines, and a
// failing rule must be reported, not dropped.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

interface DryrunBody {
  patch: JsonPatchOperation[];
  diff: string;
  rejections: string[];
  failures?: unknown;
}

const LABEL_RULE = modRule('add-label', {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
  patch: [{ op: 'add', path: '/metadata/labels/touched', value: '"yes"' }],
});

const LABEL_OP: JsonPatchOperation = { op: 'add', path: '/metadata/labels/touched', value: 'yes' };

/** A rule over budget may be cut off, but then it is reported in `failures`. */
function expectAppliedOrReported(answer: DryrunBody, rule: string): void {
  if (answer.patch.length > 0) return;
  expect(JSON.stringify(answer.failures ?? null), `${rule} neither applied nor reported`).toContain(
    rule,
  );
}

async function dryrun(body: string): Promise<DryrunBody> {
  const measured = await hostileRequest(server, 'PUT', PATHS.dryrun, body);
  expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
  expectBounded(measured);
  const answer = JSON.parse(measured.value.text) as DryrunBody;
  expect(typeof answer.diff).toBe('string');
  // Bounded: never more than a few times the size of the request.
  expect(answer.diff.length).toBeLessThan(Math.max(body.length * 4, 64 * 1024));
  return answer;
}

describe('PUT /v1/dryrun YAML diff on deep objects', () => {
  it.each([
    ['objects nested 1,500 deep', deepObjectJson(1500)],
    ['objects nested 2,500 deep (past the old key-sorting stack overflow)', deepObjectJson(2500)],
    ['objects nested 5,000 deep', deepObjectJson(5000)],
    ['arrays nested 5,000 deep', deepArrayJson(5000)],
    ['objects and arrays alternating 9,000 deep', deepMixedJson(9000)],
    ['objects nested 9,000 deep with wide keys', deepObjectJson(9000, '"bottom"', 'k'.repeat(40))],
  ])(
    '%s: 200, the label patch, a bounded diff, no stall',
    async (_name, spec) => {
      const answer = await dryrun(dryrunJson(manifestJson(spec), [LABEL_RULE]));
      expect(answer.patch).toEqual([LABEL_OP]);
      expect(answer.rejections).toEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a rule that changes the deep part still answers 200 with a bounded diff',
    async () => {
      const rule = modRule('deep-change', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec', value: '{"changed": true}' }],
      });
      const answer = await dryrun(dryrunJson(manifestJson(deepObjectJson(5000)), [rule]));
      expect(answer.patch.length).toBeGreaterThan(0);
      expect(JSON.stringify(answer.patch)).toContain('changed');
    },
    CASE_TIMEOUT_MS,
  );
});

describe('PUT /v1/dryrun YAML diff with many changed lines', () => {
  const ITEMS = 20_000;
  const before = `[${Array.from({ length: ITEMS }, (_, i) => `"o${String((i * 7919) % 100_003)}"`).join(',')}]`;
  const after = `[${Array.from({ length: ITEMS }, (_, i) => `n${String(i)}`).join(', ')}]`;

  it(
    '20,000 changed array items: 200, bounded diff, no stall',
    async () => {
      const rule = modRule('replace-items', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec/items', value: after }],
      });
      const answer = await dryrun(dryrunJson(manifestJson(`{"items":${before}}`), [rule]));
      expectAppliedOrReported(answer, 'replace-items');
      if (answer.patch.length > 0)
        expect(answer.patch[0]).toMatchObject({
          path: expect.stringMatching(/^\/spec\/items/) as string,
        });
    },
    CASE_TIMEOUT_MS,
  );

  it(
    '20,000 changed keys of a map: 200, bounded diff, no stall',
    async () => {
      const keys = wideObjectJson(ITEMS, '"old"');
      const newMap = `{${Array.from({ length: ITEMS }, (_, i) => `z${String(i)}: new`).join(', ')}}`;
      const rule = modRule('replace-map', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec/map', value: newMap }],
      });
      const answer = await dryrun(dryrunJson(manifestJson(`{"map":${keys}}`), [rule]));
      expectAppliedOrReported(answer, 'replace-map');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a 200 KB single-line string changed in many places: 200, no stall',
    async () => {
      // The largest static value a rule can afford: a ModRule's compile budget covers parsing it.
      const long = 'ab'.repeat(100_000);
      const rule = modRule('replace-string', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec/text', value: `"${'ba'.repeat(100_000)}"` }],
      });
      const answer = await dryrun(dryrunJson(manifestJson(`{"text":"${long}"}`), [rule]));
      expect(answer.patch.length).toBeGreaterThan(0);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    '10,000 short lines, every other one changed: 200, no stall',
    async () => {
      const lines = Array.from({ length: 10_000 }, (_, i) => `line${String(i)}`);
      const changed = lines.map((line, i) => (i % 2 === 0 ? line : `changed${String(i)}`));
      const rule = modRule('replace-lines', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec/lines', value: JSON.stringify(changed) }],
      });
      const answer = await dryrun(
        dryrunJson(manifestJson(`{"lines":${JSON.stringify(lines)}}`), [rule]),
      );
      expect(answer.patch.length, JSON.stringify(answer).slice(0, 600)).toBeGreaterThan(0);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('PUT /v1/dryrun refuses rules too costly to compile', () => {
  it(
    "a 1 MB static value is the rule's field error (400), quickly",
    async () => {
      const rule = modRule('huge-value', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec/text', value: `"${'ba'.repeat(500_000)}"` }],
      });
      const measured = await hostileRequest(
        server,
        'PUT',
        PATHS.dryrun,
        dryrunJson(manifestJson('{"text":"x"}'), [rule]),
      );
      expectBounded(measured);
      expect(measured.value.status).toBe(400);
      expect(measured.value.text).toContain('spec.patch[0].value');
      expect(measured.value.text).toContain('compilation exceeded');
    },
    CASE_TIMEOUT_MS,
  );
});

describe('PUT /v1/dryrun reports failing rules', () => {
  it(
    'lists a rule that failed in a `failures` field, and still applies the others',
    async () => {
      const failing = modRule('fails', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'add', path: '/metadata/labels/x', value: '{{ repeat 100000000 "x" }}' }],
      });
      const measured = await hostileRequest(
        server,
        'PUT',
        PATHS.dryrun,
        dryrunJson(manifestJson('{}'), [failing, LABEL_RULE]),
      );
      expect(measured.value.status).toBe(200);
      expectBounded(measured);
      const answer = JSON.parse(measured.value.text) as JsonObject;
      expect(answer.patch).toEqual([LABEL_OP]);
      expect(answer.failures, 'the answer has no failures field').toBeDefined();
      expect(JSON.stringify(answer.failures)).toContain('fails');
    },
    CASE_TIMEOUT_MS,
  );
});
