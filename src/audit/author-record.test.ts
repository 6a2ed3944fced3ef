import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../engine/json.js';
import { parseAdmissionReview } from '../webhook/admission/admission-review.js';
import {
  AUTHOR_ANNOTATION,
  MAX_AUTHOR_CHARS,
  authorOf,
  canonicalAuthor,
  readUserInfo,
} from './author-record.js';

const review = (userInfo: JsonValue): JsonObject => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u', operation: 'CREATE', userInfo },
});

describe('author record', () => {
  it('keeps the request userInfo when parsing an AdmissionReview, in canonical form', () => {
    const { request } = parseAdmissionReview(
      review({
        username: 'alice',
        uid: 'id-1',
        groups: ['b', 'a'],
        extra: { 'z/k': ['2', '1'], 'a/k': ['x'] },
      }),
    );
    expect(request.userInfo).toEqual({
      username: 'alice',
      uid: 'id-1',
      groups: ['b', 'a'],
      extra: { 'z/k': ['2', '1'], 'a/k': ['x'] },
    });
    if (typeof request.userInfo !== 'object') throw new Error('no userInfo');
    expect(canonicalAuthor(request.userInfo)).toBe(
      '{"username":"alice","uid":"id-1","groups":["b","a"],"extra":{"a/k":["x"],"z/k":["2","1"]}}',
    );
  });

  it.each([
    ['no userInfo', undefined, undefined],
    ['no username', { groups: ['a'] }, undefined],
    ['a group that is not a string', { username: 'a', groups: [1] }, undefined],
    ['extra that is not a map of lists', { username: 'a', extra: { k: 'v' } }, undefined],
    [
      'too many groups',
      { username: 'a', groups: Array.from({ length: 2000 }, (_, i) => `group-${String(i)}`) },
      'too-large',
    ],
    ['a huge username', { username: 'a'.repeat(MAX_AUTHOR_CHARS) }, 'too-large'],
    ['huge extra', { username: 'a', extra: { k: ['v'.repeat(MAX_AUTHOR_CHARS)] } }, 'too-large'],
  ])('reads %s as %s', (_what, value, expected) => {
    expect(parseAdmissionReview(review(value ?? null)).request.userInfo).toBe(expected);
  });

  it('reads the recorded author back, and says why it is unknown otherwise', () => {
    const rule = (annotation?: string): JsonObject => ({
      metadata: {
        annotations: annotation === undefined ? {} : { [AUTHOR_ANNOTATION]: annotation },
      },
    });
    const text = '{"username":"alice","groups":["team"],"extra":{}}';
    expect(authorOf(rule(text))).toEqual({
      known: true,
      key: text,
      user: { username: 'alice', uid: undefined, groups: ['team'], extra: {} },
    });
    const missing = authorOf(rule());
    expect(missing.known ? '' : missing.reason).toMatch(
      /^no author is recorded on the rule \(annotation api\.kubemod\.io\/author: .*apply the rule again/,
    );
    for (const bad of ['{', '[]', '{"groups":[]}']) expect(authorOf(rule(bad)).known).toBe(false);
    expect(readUserInfo({ username: 'x', groups: null, extra: null })).toEqual({
      username: 'x',
      uid: undefined,
      groups: [],
      extra: {},
    });
  });
});
