import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/engine/json.js';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import { deepParens, flatChain, longPath, manifestJson } from './support/generators.js';
import {
  admissionAnswer,
  dryrunJson,
  expectBounded,
  hostileRequest,
  modRule,
  PATHS,
  startHostileServer,
  validateReviewJson,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 5: a long flat chain in a select (4,000-term `1+1+…`) and other long
// expressions must only ever be that rule's field error: 403 from the validating webhook and 400
// from /v1/dryrun naming the field, never a 500 or a stall. (The rules directory and the CLI are
// covered in rules-directory.test.ts and dryrun-cli.test.ts.)

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const ALWAYS_INVALID: [string, string][] = [
  ['a 4,000-term 1+1+… chain', flatChain(4000)],
  ['a 20,000-term 1+1+… chain', flatChain(20_000)],
  ['a 4,000-term && chain', flatChain(4000, ' && ', 'true')],
  ['a 4,000-term || chain of paths', flatChain(4000, ' || ', '$.spec.a')],
  ['a 4,000-term == chain', flatChain(4000, ' == ')],
  ['a 4,000-term mixed-operator chain', flatChain(4000, ' * 2 - ')],
  ['a 4,000-level unary ! chain', `${'!'.repeat(4000)}true`],
  ['a 4,000-level unary - chain', `${'-'.repeat(4000)}1`],
  ['4,000 nested parentheses', deepParens(4000)],
  ['4,000 nested list literals', `${'['.repeat(4000)}${']'.repeat(4000)}`],
  ['4,000 nested object literals', `${'{"a":'.repeat(4000)}1${'}'.repeat(4000)}`],
  ['4,000 nested function calls', `${'length('.repeat(4000)}$.spec${')'.repeat(4000)}`],
  ['a filter with a 4,000-term condition', `$.spec[?(${flatChain(4000, ' && ', '@.a == 1')})]`],
  ['4,000 nested filters', `$${'[?(@'.repeat(4000)}${')]'.repeat(4000)}`],
];

/** Expressions that may be valid; they must be answered (allowed or a field error), never 500. */
const MAY_BE_VALID: [string, string][] = [
  ['a 20,000-segment path', longPath(20_000)],
  ['a path of 5,000 recursive descents', `$${'..a'.repeat(5000)}`],
  ['a path of 5,000 wildcards', `$${'[*]'.repeat(5000)}`],
  ['a 5,000-item union', `$.spec[${Array.from({ length: 5000 }, (_, i) => String(i)).join(',')}]`],
  ['a 500 KB string literal', `"${'x'.repeat(500_000)}"`],
  ['a 10,000-item list literal', `[${flatChain(10_000, ',')}]`],
  ['60 nested parentheses (the nesting limit)', deepParens(60)],
];

function selectRule(select: string): JsonObject {
  return modRule('chain', {
    type: 'Patch',
    match: [{ select: '$.kind' }, { select }],
    patch: [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }],
  });
}

async function validate(rule: JsonObject): Promise<{ allowed: boolean; message: string }> {
  const measured = await hostileRequest(server, 'POST', PATHS.validate, validateReviewJson(rule));
  expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
  expectBounded(measured);
  const response = admissionAnswer(measured.value);
  return { allowed: response.allowed, message: response.status?.message ?? '' };
}

async function dryrun(rule: JsonObject): Promise<{ status: number; text: string }> {
  const measured = await hostileRequest(
    server,
    'PUT',
    PATHS.dryrun,
    dryrunJson(manifestJson('{"a":1}'), [rule]),
  );
  expectBounded(measured);
  expect(measured.value.status, measured.value.text.slice(0, 300)).toBeLessThan(500);
  return measured.value;
}

describe('the validating webhook on long select expressions', () => {
  it.each(ALWAYS_INVALID)(
    '%s: 403 naming spec.match[1].select',
    async (_name, select) => {
      const { allowed, message } = await validate(selectRule(select));
      expect(allowed).toBe(false);
      expect(message).toMatch(/^ModRule team\/chain is invalid: spec\.match\[1\]\.select: /);
      expect(message.length).toBeLessThan(2000);
    },
    CASE_TIMEOUT_MS,
  );

  it.each(MAY_BE_VALID)(
    '%s: allowed or 403 naming the field',
    async (_name, select) => {
      const { allowed, message } = await validate(selectRule(select));
      if (!allowed) expect(message).toMatch(/spec\.match\[1\]\.select: /);
      expect(message.length).toBeLessThan(2000);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'the 4,000-term chain in matchFor, in a Reject rule, and in every match item',
    async () => {
      const chain = flatChain(4000);
      const rule = modRule('chain', {
        type: 'Reject',
        match: [
          { select: chain },
          { select: '$.kind', matchFor: 'All', matchValue: 'x' },
          { select: chain, negate: true },
        ],
      });
      const { allowed, message } = await validate(rule);
      expect(allowed).toBe(false);
      expect(message).toContain('spec.match[0].select: ');
      expect(message).toContain('spec.match[2].select: ');
    },
    CASE_TIMEOUT_MS,
  );
});

describe('PUT /v1/dryrun on long select expressions', () => {
  it.each(ALWAYS_INVALID)(
    '%s: 400 naming modRules[0] spec.match[1].select',
    async (_name, select) => {
      const answer = await dryrun(selectRule(select));
      expect(answer.status).toBe(400);
      const { error } = JSON.parse(answer.text) as { error: string };
      expect(error).toMatch(
        /^modRules\[0\]: ModRule team\/chain is invalid: spec\.match\[1\]\.select: /,
      );
    },
    CASE_TIMEOUT_MS,
  );

  it.each(MAY_BE_VALID)(
    '%s: 200 or a 400 naming the field',
    async (_name, select) => {
      const answer = await dryrun(selectRule(select));
      if (answer.status !== 200) {
        expect(answer.status).toBe(400);
        expect(answer.text).toMatch(/spec\.match\[1\]\.select: /);
      }
    },
    CASE_TIMEOUT_MS,
  );
});

describe('long templates and patch paths', () => {
  const TEMPLATES: [string, string][] = [
    ['4,000 nested parentheses', `{{ ${deepParens(4000, '"x"')} }}`],
    ['4,000 nested ifs', `${'{{ if true }}'.repeat(4000)}x${'{{ end }}'.repeat(4000)}`],
    ['4,000 nested ranges', `${'{{ range until 1 }}'.repeat(4000)}x${'{{ end }}'.repeat(4000)}`],
    ['4,000 nested withs', `${'{{ with . }}'.repeat(4000)}x${'{{ end }}'.repeat(4000)}`],
    ['a 4,000-stage pipeline', `{{ "x"${' | upper'.repeat(4000)} }}`],
    ['4,000 nested print calls', `{{ ${'print ('.repeat(4000)}1${')'.repeat(4000)} }}`],
    ['a 4,000-segment field chain', `{{ .Target${'.spec'.repeat(4000)} }}`],
    ['40,000 {{ . }} actions', '{{ . }}'.repeat(40_000)],
  ];

  it.each(TEMPLATES)(
    '%s in a patch value: validated (allowed or a field error) at once',
    async (_name, value) => {
      const rule = modRule('chain', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'add', path: '/metadata/labels/x', value }],
      });
      const { allowed, message } = await validate(rule);
      if (!allowed) expect(message).toMatch(/spec\.patch\[0\]\.value: /);
      expect(message.length).toBeLessThan(2000);
      const answer = await dryrun(rule);
      if (answer.status !== 200) expect(answer.text).toMatch(/spec\.patch\[0\]\.value: /);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a 20,000-segment patch path: validated at once, never 500',
    async () => {
      const rule = modRule('chain', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'add', path: '/a'.repeat(20_000), value: '"y"' }],
      });
      const { allowed, message } = await validate(rule);
      if (!allowed) expect(message).toMatch(/spec\.patch\[0\]\.path: /);
      await dryrun(rule);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a matchRegex of 100,000 nested groups and a catastrophic-backtracking pattern',
    async () => {
      const rule = modRule('chain', {
        type: 'Patch',
        match: [
          { select: '$.kind', matchRegex: `${'('.repeat(100_000)}a${')'.repeat(100_000)}` },
          { select: '$.metadata.name', matchRegex: '^(a+)+$' },
        ],
        patch: [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }],
      });
      const { allowed, message } = await validate(rule);
      if (!allowed) expect(message).toMatch(/spec\.match\[0\]\.matchRegex: /);
      await dryrun(rule);
    },
    CASE_TIMEOUT_MS,
  );
});
