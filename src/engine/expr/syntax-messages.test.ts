import { describe, expect, it } from 'vitest';
import { validateModRule } from '../validate-modrule.js';
import { isKubemodError } from '../../errors/catalog.js';
import { compileSelect } from './index.js';

// Issue 28, defect 7: messages that say what is wrong and what to write instead.

function syntaxMessage(select: string): string {
  try {
    compileSelect(select);
  } catch (err) {
    if (isKubemodError(err)) return err.message;
    throw err;
  }
  throw new Error(`${select} was expected not to compile`);
}

describe('select syntax messages', () => {
  it.each([
    [
      '$.spec.containers[*.image',
      'at position 19: the "[" at position 17 is not closed: expected "]" after "*" but found "."',
    ],
    [
      '$.spec.containers[*',
      'at position 19: the "[" at position 17 is not closed: expected "]" after "*" but the expression ends',
    ],
    [
      '$.spec.containers[0',
      'at position 19: the "[" at position 17 is not closed: expected "]" after the key but the expression ends',
    ],
    [
      '$.metadata.labels.app.kubernetes.io/name',
      'unknown identifier "name" (paths start with $ or @); a key holding "." or "/" must be quoted in brackets: $.metadata.labels["app.kubernetes.io/name"]',
    ],
    [
      '$.spec.template.metadata.annotations.example.com/owner == "x"',
      'a key holding "." or "/" must be quoted in brackets: $.spec.template.metadata.annotations["example.com/owner"]',
    ],
    [
      '$.metadata.labels.cost-center',
      'a key holding "." or "-" must be quoted in brackets: $.metadata.labels["cost-center"]',
    ],
    ['$.data.a/b', 'a key holding "/" must be quoted in brackets: ["a/b"]'],
    ['name', 'unknown identifier "name" (paths start with $ or @)'],
  ])('%s', (select, message) => {
    expect(syntaxMessage(select)).toContain(message);
  });

  it.each(['$.metadata.labels["app.kubernetes.io/name"]', '$.a / 2', '$.spec.containers[*].image'])(
    'still accepts %s',
    (select) => {
      expect(() => compileSelect(select)).not.toThrow();
    },
  );
});

describe('ModRule validation messages', () => {
  const base = {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'r', namespace: 'default' },
  };
  const match = [{ select: '$.kind', matchValue: 'Pod' }];
  const patch = [{ op: 'add', path: '/metadata/labels/a', value: 'b' }];

  it.each([
    [{ match, patch }, 'spec.type: required (Patch or Reject)'],
    [{ type: null, match, patch }, 'spec.type: required (Patch or Reject)'],
    [
      { type: 'Mutate', match, patch },
      'spec.type: unknown type "Mutate"; must be one of Patch, Reject',
    ],
    [{ type: 'Patch', matches: match, patch }, 'spec.matches: unknown field (did you mean match?)'],
    [
      { type: 'Patch', match, patch, targetNamespaceRegexp: '.*' },
      'spec.targetNamespaceRegexp: unknown field (did you mean targetNamespaceRegex?)',
    ],
    [
      { type: 'Patch', match, patch, exectionTier: 1 },
      'spec.exectionTier: unknown field (did you mean executionTier?)',
    ],
  ])('%j', (spec, message) => {
    const result = validateModRule({ ...base, spec });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors.map((e) => `${e.field}: ${e.message}`);
    expect(errors).toContain(message);
  });
});
