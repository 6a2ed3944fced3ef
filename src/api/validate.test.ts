import { describe, expect, it } from 'vitest';
import { validateModRule } from '../engine/validate-modrule.js';
import { formatFieldErrors } from './validate.js';

const base = {
  apiVersion: 'api.kubemod.io/v1beta1',
  kind: 'ModRule',
  metadata: { name: 'r', namespace: 'default' },
};
const patchSpec = {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'Deployment' }],
  patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
};

function errorsOf(spec: unknown, extra: Record<string, unknown> = {}): string[] {
  const result = validateModRule({ ...base, ...extra, spec });
  return result.ok ? [] : result.errors.map((e) => `${e.field}: ${e.message}`);
}

describe('ModRule defaulting', () => {
  it('defaults matchFor, admissionOperations and executionTier', () => {
    const result = validateModRule({ ...base, spec: patchSpec });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.modRule.spec.match[0]?.matchFor).toBe('Any');
    expect(result.modRule.spec.admissionOperations).toEqual(['CREATE', 'UPDATE']);
    expect(result.modRule.spec.executionTier).toBe(0);
  });

  it('keeps explicit values', () => {
    const result = validateModRule({
      ...base,
      spec: {
        ...patchSpec,
        executionTier: -5,
        admissionOperations: ['DELETE'],
        match: [{ select: '$.a', matchFor: 'All' }],
      },
    });
    expect(result.ok && result.modRule.spec).toMatchObject({
      executionTier: -5,
      admissionOperations: ['DELETE'],
      match: [{ matchFor: 'All' }],
    });
  });

  it('treats an empty admissionOperations list as CREATE and UPDATE', () => {
    const result = validateModRule({ ...base, spec: { ...patchSpec, admissionOperations: [] } });
    expect(result.ok && result.modRule.spec.admissionOperations).toEqual(['CREATE', 'UPDATE']);
  });
});

describe('ModRule validation: every problem with its field path', () => {
  it.each<[string, unknown, string[]]>([
    [
      'unknown type',
      { ...patchSpec, type: 'Mutate' },
      ['spec.type: unknown type "Mutate"; must be one of Patch, Reject'],
    ],
    [
      'missing type',
      { match: patchSpec.match, patch: patchSpec.patch },
      ['spec.type: required (Patch or Reject)'],
    ],
    [
      'patch on Reject',
      { type: 'Reject', match: patchSpec.match, patch: patchSpec.patch },
      ['spec.patch: must be empty for a Reject rule'],
    ],
    [
      'missing patch on Patch',
      { type: 'Patch', match: patchSpec.match },
      ['spec.patch: is required for a Patch rule'],
    ],
    [
      'empty patch on Patch',
      { type: 'Patch', match: patchSpec.match, patch: [] },
      ['spec.patch: is required for a Patch rule'],
    ],
    [
      'rejectMessage on Patch',
      { ...patchSpec, rejectMessage: 'no' },
      ['spec.rejectMessage: is only allowed on a Reject rule'],
    ],
    [
      'tier too low',
      { ...patchSpec, executionTier: -32768 },
      ['spec.executionTier: must be an integer between -32767 and 32766, got -32768'],
    ],
    [
      'tier too high',
      { ...patchSpec, executionTier: 32767 },
      ['spec.executionTier: must be an integer between -32767 and 32766, got 32767'],
    ],
    [
      'tier not an integer',
      { ...patchSpec, executionTier: 1.5 },
      ['spec.executionTier: must be an integer'],
    ],
    [
      'empty select',
      { ...patchSpec, match: [{ select: '' }] },
      ['spec.match[0].select: is required'],
    ],
    [
      'missing select',
      { ...patchSpec, match: [{ matchValue: 'x' }] },
      ['spec.match[0].select: is required'],
    ],
    [
      'unparsable select',
      { ...patchSpec, match: [patchSpec.match[0], { select: '$.a[?' }] },
      ['spec.match[1].select: invalid select expression "$.a[?" at position 5'],
    ],
    [
      'invalid regex',
      {
        ...patchSpec,
        match: [{}, {}, { select: '$.a', matchRegex: '(x' }].map((m, i) =>
          i < 2 ? patchSpec.match[0] : m,
        ),
      },
      ['spec.match[2].matchRegex: invalid regular expression "(x"'],
    ],
    [
      'non-RE2 regex',
      { ...patchSpec, match: [{ select: '$.a', matchRegex: 'a(?!b)' }] },
      ['spec.match[0].matchRegex: invalid regular expression'],
    ],
    [
      'unknown matchFor',
      { ...patchSpec, match: [{ select: '$.a', matchFor: 'Some' }] },
      ['spec.match[0].matchFor: unknown matchFor "Some"; must be one of Any, All'],
    ],
    [
      'unparsable patch select',
      { ...patchSpec, patch: [{ op: 'add', path: '/a', select: '$..[', value: '1' }] },
      ['spec.patch[0].select: invalid select expression'],
    ],
    [
      'unknown op',
      { ...patchSpec, patch: [{ op: 'move', path: '/a' }] },
      ['spec.patch[0].op: unknown op "move"'],
    ],
    [
      'missing path',
      { ...patchSpec, patch: [{ op: 'add', value: '1' }] },
      ['spec.patch[0].path: is required'],
    ],
    [
      'invalid targetNamespaceRegex',
      { ...patchSpec, targetNamespaceRegex: '[a-' },
      ['spec.targetNamespaceRegex: invalid regular expression'],
    ],
    [
      'unknown operation',
      { ...patchSpec, admissionOperations: ['CONNECT'] },
      ['spec.admissionOperations[0]: unknown operation "CONNECT"'],
    ],
    [
      'misspelt match section',
      { type: 'Patch', matches: patchSpec.match, patch: patchSpec.patch },
      ['spec.matches: unknown field (did you mean match?)', 'spec.match: is required'],
    ],
    [
      'numeric matchValue',
      { ...patchSpec, match: [{ select: '$.a', matchValue: 8080 }] },
      ["spec.match[0].matchValue: must be a string, got number 8080 (quote it: '8080')"],
    ],
    [
      'non-boolean negate',
      { ...patchSpec, match: [{ select: '$.a', negate: 'yes' }] },
      ['spec.match[0].negate: must be a boolean'],
    ],
    ['spec not an object', 'nope', ['spec: must be an object, got string "nope"']],
    [
      'empty match section',
      { ...patchSpec, match: [] },
      ['spec.match: must have at least one criteria item'],
    ],
  ])('%s', (_name, spec, expected) => {
    const errors = errorsOf(spec);
    expect(errors).toHaveLength(expected.length);
    expected.forEach((message, i) => {
      expect(errors[i]).toContain(message);
    });
  });

  it('returns every problem at once', () => {
    const errors = errorsOf({
      type: 'Patch',
      executionTier: 99999,
      rejectMessage: 'x',
      match: [{ select: '$.a[' }, { select: '$.b', matchRegex: '(' }],
      patch: [{ op: 'add', path: '/x', select: '$[' }],
    });
    expect(errors.map((e) => e.split(':')[0])).toEqual([
      'spec.executionTier',
      'spec.rejectMessage',
      'spec.match[0].select',
      'spec.match[1].matchRegex',
      'spec.patch[0].select',
    ]);
  });

  it('checks apiVersion, kind and metadata.name', () => {
    const result = validateModRule({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {},
      spec: patchSpec,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatFieldErrors(result.errors)).toBe(
      'apiVersion: must be api.kubemod.io/v1beta1, got "v1"; kind: must be ModRule, got "Pod"; metadata.name: is required',
    );
    expect(result.errors.every((e) => e.code === 'KM2001')).toBe(true);
  });

  it('gives catalogued codes of the underlying errors', () => {
    const result = validateModRule({
      ...base,
      spec: { ...patchSpec, match: [{ select: 'nofn()' }] },
    });
    expect(!result.ok && result.errors[0]?.code).toBe('KM1003');
  });
});
