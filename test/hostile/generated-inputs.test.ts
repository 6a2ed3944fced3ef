import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BLOCKED_MS } from './support/bounds.js';
import {
  deepInput,
  deepInputJson,
  type DeepInput,
  type WideInput,
  longSelect,
  longTemplate,
  manifestJson,
  wideInput,
  wideInputJson,
} from './support/generators.js';
import { measure } from './support/measure.js';
import {
  dryrunJson,
  expectPromptAnswer,
  modRule,
  PATHS,
  reviewJson,
  startHostileServer,
  validateReviewJson,
  type HostileServer,
} from './support/server.js';

// Property tests over generated hostile inputs: deep and wide objects (built iteratively) through
// the dragnet webhook and /v1/dryrun with rules that walk them, and long expressions through the
// validating webhook and /v1/dryrun. Whatever the input: never a 5xx, never a stall.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
  server.useRules(WALKING_RULES);
});
afterAll(async () => {
  await server.close();
});

/** Rules that visit the whole object: descent, wildcards, filters, templates printing it. */
const WALKING_RULES = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: descent, namespace: team }
spec:
  type: Patch
  match:
    - select: '$..image'
      matchValue: nginx
  patch:
    - op: add
      path: /metadata/labels/descent
      value: '"yes"'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: printer, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
  patch:
    - op: add
      path: /metadata/annotations
      value: '{"spec": {{ toJson .Target.spec | quote }}, "yaml": {{ toYaml .Target.spec | quote }}}'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: replacer, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.spec[*]'
  patch:
    - op: replace
      path: /spec
      value: '{{ .Target.spec }}'
`;

/** Generated as small descriptions (readable counterexamples), built into JSON in the property. */
const OBJECT_INPUT = fc.oneof(
  deepInput().map((deep) => ({ deep })),
  wideInput().map((wide) => ({ wide })),
);

function inputJson(input: { deep: DeepInput } | { wide: WideInput }): string {
  return 'deep' in input ? deepInputJson(input.deep) : wideInputJson(input.wide);
}

const RUNS = { numRuns: 12, seed: 20_240_612, endOnFailure: true };

const GUARD_LABELS = { guard: 'please' };

async function expectAnswered(
  method: string,
  path: string,
  body: string,
  allowed: (status: number) => boolean,
): Promise<void> {
  const measured = await measure(() => server.send(method, path, body));
  expect(measured.value.status, measured.value.text.slice(0, 300)).toBeLessThan(500);
  expect(allowed(measured.value.status), measured.value.text.slice(0, 300)).toBe(true);
  expect(measured.blockedMs).toBeLessThan(MAX_BLOCKED_MS);
}

describe('generated deep and wide objects', () => {
  it('through the dragnet webhook: 200 (or a 4xx for bodies too deep), no stall', async () => {
    await fc.assert(
      fc.asyncProperty(OBJECT_INPUT, async (input) => {
        const spec = inputJson(input);
        const object = manifestJson(spec, { labels: GUARD_LABELS });
        await expectAnswered('POST', PATHS.dragnet, reviewJson(object), (s) => s === 200);
      }),
      RUNS,
    );
    await expectPromptAnswer(server);
  }, 60_000);

  it('through /v1/dryrun with rules that walk them: 200, no stall', async () => {
    const rules = [
      modRule('descent', {
        type: 'Patch',
        match: [{ select: '$..image' }],
        patch: [{ op: 'add', path: '/metadata/labels/descent', value: '"yes"' }],
      }),
      modRule('replacer', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'replace', path: '/spec', value: '{"replaced": true}' }],
      }),
    ];
    await fc.assert(
      fc.asyncProperty(OBJECT_INPUT, async (input) => {
        const spec = inputJson(input);
        await expectAnswered(
          'PUT',
          PATHS.dryrun,
          dryrunJson(manifestJson(spec), rules),
          (s) => s === 200,
        );
      }),
      RUNS,
    );
    await expectPromptAnswer(server);
  }, 60_000);
});

describe('generated long expressions', () => {
  it('selects through the validating webhook: answered (allowed or a field error), no stall', async () => {
    await fc.assert(
      fc.asyncProperty(longSelect(), async (select) => {
        const rule = modRule('generated', {
          type: 'Patch',
          match: [{ select }],
          patch: [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }],
        });
        await expectAnswered('POST', PATHS.validate, validateReviewJson(rule), (s) => s === 200);
      }),
      { ...RUNS, numRuns: 25 },
    );
    await expectPromptAnswer(server);
  }, 60_000);

  it('selects and templates through /v1/dryrun against a deep object: 200 or 400, no stall', async () => {
    await fc.assert(
      fc.asyncProperty(
        longSelect(),
        longTemplate(),
        deepInput(3000),
        async (select, value, deep) => {
          const rule = modRule('generated', {
            type: 'Patch',
            match: [{ select }],
            patch: [{ op: 'add', path: '/metadata/labels/x', value }],
          });
          await expectAnswered(
            'PUT',
            PATHS.dryrun,
            dryrunJson(manifestJson(deepInputJson(deep)), [rule]),
            (s) => s === 200 || s === 400,
          );
        },
      ),
      { ...RUNS, numRuns: 25 },
    );
    await expectPromptAnswer(server);
  }, 60_000);
});
