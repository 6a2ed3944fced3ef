import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../engine/json.js';
import { parseAdmissionReview } from '../webhook/admission/admission-review.js';
import {
  AUTHOR_ANNOTATION,
  MAX_AUTHOR_CHARS,
  authorOf,
  canonicalAuthor,
  readUserInfo,
  recordableUser,
} from './author-record.js';
import { AUTHOR_MAC_ANNOTATION, authorSigner } from './author-signature.js';

const KEY = Buffer.alloc(32, 7);
const signer = authorSigner(KEY);

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

  it('reads the recorded author back when its MAC verifies, and says why it is unknown otherwise', () => {
    const rule = (annotation?: string, mac?: string): JsonObject => ({
      metadata: {
        namespace: 'shop',
        name: 'tier',
        annotations: {
          ...(annotation === undefined ? {} : { [AUTHOR_ANNOTATION]: annotation }),
          ...(mac === undefined ? {} : { [AUTHOR_MAC_ANNOTATION]: mac }),
        },
      },
    });
    const text = '{"username":"alice","groups":["team"],"extra":{}}';
    expect(authorOf(rule(text, signer.sign('shop', 'tier', text)), signer)).toEqual({
      known: true,
      key: text,
      user: { username: 'alice', uid: undefined, groups: ['team'], extra: {} },
    });
    const missing = authorOf(rule(), signer);
    expect(missing.known ? '' : missing.reason).toMatch(
      /^no author is recorded on the rule \(annotation api\.kubemod\.io\/author: .*its author is recorded again when someone changes its spec/,
    );
    for (const bad of ['{', '[]', '{"groups":[]}'])
      expect(authorOf(rule(bad, signer.sign('shop', 'tier', bad)), signer).known).toBe(false);
    expect(readUserInfo({ username: 'x', groups: null, extra: null })).toEqual({
      username: 'x',
      uid: undefined,
      groups: [],
      extra: {},
    });
  });

  // Issue 37, finding 2: a record the webhook did not sign (planted before the upgrade, typed by
  // a tenant while the webhook was not installed, copied from another rule) is not trusted.
  const ADMIN = '{"username":"kubernetes-admin","groups":["system:masters"],"extra":{}}';
  const planted = (mac: string | undefined, name = 'tier'): JsonObject => ({
    metadata: {
      namespace: 'shop',
      name,
      annotations: {
        [AUTHOR_ANNOTATION]: ADMIN,
        ...(mac === undefined ? {} : { [AUTHOR_MAC_ANNOTATION]: mac }),
      },
    },
  });
  it.each([
    [
      'no MAC',
      planted(undefined),
      /^the author record is not signed \(no annotation api\.kubemod\.io\/author-mac/,
    ],
    [
      'a MAC made with another key',
      planted(authorSigner(Buffer.alloc(32, 8)).sign('shop', 'tier', ADMIN)),
      /^the signature of the author record \(annotation api\.kubemod\.io\/author-mac\) does not match/,
    ],
    [
      'a MAC of another record (the record was edited)',
      planted(signer.sign('shop', 'tier', ADMIN.replace('kubernetes-admin', 'alice'))),
      /does not match/,
    ],
    [
      'a MAC copied from another rule',
      planted(signer.sign('shop', 'other', ADMIN)),
      /does not match/,
    ],
    ['a MAC that is not one', planted('v1:not-base64-at-all'), /does not match/],
    [
      'a MAC of another scheme',
      planted(`v2:${signer.sign('shop', 'tier', ADMIN).slice(3)}`),
      /does not match/,
    ],
  ])('reads a record with %s as author unknown', (_what, rule, reason) => {
    const author = authorOf(rule, signer);
    expect(author.known).toBe(false);
    expect(author.known ? '' : author.reason).toMatch(reason);
  });

  it('reads every record as unknown without a key, and a valid one as known with it', () => {
    const signed = planted(signer.sign('shop', 'tier', ADMIN));
    expect(authorOf(signed, undefined)).toEqual({
      known: false,
      reason: 'the operator has no key to check author records with',
    });
    expect(authorOf(signed, signer).known).toBe(true);
  });

  // Issue 37, finding 3: a token's own identifiers are not part of who wrote the rule.
  it('records no per-credential extra, and keeps every other extra', () => {
    const user = {
      username: 'system:serviceaccount:shop:deployer',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts'],
      extra: {
        'authentication.kubernetes.io/credential-id': ['JTI=0f7c3c1e'],
        'authentication.kubernetes.io/pod-name': ['deployer-7d9f'],
        'authentication.kubernetes.io/pod-uid': ['1b2c'],
        'authentication.kubernetes.io/node-name': ['node-1'],
        'authentication.kubernetes.io/node-uid': ['9a8b'],
        'scopes.authorization.openshift.io': ['user:info'],
      },
    };
    const other = {
      ...user,
      extra: {
        ...user.extra,
        'authentication.kubernetes.io/credential-id': ['JTI=44aa0b9d'],
        'authentication.kubernetes.io/pod-uid': ['77ff'],
      },
    };
    expect(recordableUser(user).extra).toEqual({
      'scopes.authorization.openshift.io': ['user:info'],
    });
    expect(canonicalAuthor(recordableUser(user))).toBe(canonicalAuthor(recordableUser(other)));
    expect(canonicalAuthor(recordableUser(user))).not.toContain('credential-id');
  });
});
