import { describe, expect, it } from 'vitest';
import type { ModRuleSpec } from '../../api/modrule-types.js';
import type { ObjectKey } from '../../engine/cluster/cluster-view.js';
import type { UserInfo } from '../../authz/author-record.js';
import { literalLookupErrors, MAX_REVIEWED_LITERALS } from './literal-lookup-review.js';

const user: UserInfo = { username: 'tenant', uid: undefined, groups: [], extra: {} };

function spec(values: string[]): { spec: ModRuleSpec } {
  return {
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: values.map((value, i) => ({
        op: 'add',
        path: `/metadata/annotations/a${String(i)}`,
        value,
      })),
    },
  };
}

/** A check that refuses Secrets and records what it was asked. */
function recording(): {
  asked: ObjectKey[];
  refusal: (u: UserInfo, k: ObjectKey) => Promise<string | undefined>;
} {
  const asked: ObjectKey[] = [];
  return {
    asked,
    refusal: (_u, key) => {
      asked.push(key);
      return Promise.resolve(
        key.kind === 'Secret' ? 'you (tenant) may not get secrets in namespace a' : undefined,
      );
    },
  };
}

describe('literalLookupErrors', () => {
  it('refuses, with a field error, what the requesting user may not get', async () => {
    const check = recording();
    const errors = await literalLookupErrors(
      spec([
        '{{ (lookup "v1" "ConfigMap" "a" "settings").data.x }}',
        '{{ (lookup "v1" "Secret" "a" "creds").data.token }}',
      ]),
      user,
      check,
    );
    expect(errors).toEqual([
      {
        field: 'spec.patch[1].value',
        message: 'lookup v1/Secret a/creds: you (tenant) may not get secrets in namespace a',
        code: 'KM5005',
      },
    ]);
    expect(check.asked.map((k) => k.kind)).toEqual(['ConfigMap', 'Secret']);
  });

  it('asks once per object, skips computed names, and asks at most a bounded number', async () => {
    const check = recording();
    const many = Array.from(
      { length: 40 },
      (_, i) => `{{ (lookup "v1" "ConfigMap" "a" "cm-${String(i)}") }}`,
    );
    const errors = await literalLookupErrors(
      spec([
        '{{ (lookup "v1" "Secret" "a" "creds") }}',
        '{{ (lookup "v1" "Secret" "a" "creds") }}',
        '{{ (lookup "v1" "Secret" "a" .Target.metadata.name) }}',
        ...many,
      ]),
      user,
      check,
    );
    expect(errors.map((e) => e.field)).toEqual(['spec.patch[0].value', 'spec.patch[1].value']);
    expect(check.asked).toHaveLength(MAX_REVIEWED_LITERALS);
  });

  it('asks nothing for a rule without lookups', async () => {
    const check = recording();
    expect(await literalLookupErrors(spec(['"{{ .Target.metadata.name }}"']), user, check)).toEqual(
      [],
    );
    expect(check.asked).toEqual([]);
  });
});
