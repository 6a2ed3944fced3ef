import fastJsonPatch from 'fast-json-patch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHOR_ANNOTATION, authorOf } from '../../../src/authz/author-record.js';
import { AUTHOR_MAC_ANNOTATION, authorSigner } from '../../../src/authz/author-signature.js';
import type { JsonObject } from '../../../src/engine/json.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  startHarness,
  type Harness,
  type HttpAnswer,
} from './harness.js';

// Issue 37, finding 1: who the ModRule webhooks record as a rule's author on an UPDATE. Only a
// change of the spec or of a behaviour annotation makes the requester the author; the garbage
// collector removing an ownerReference, or a GitOps agent re-applying the same manifest, does not.

const signer = authorSigner(Buffer.alloc(32, 3));
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ authorSigner: signer });
});
afterAll(async () => {
  await harness.close();
});

const TENANT = { username: 'alice', groups: ['team-shop', 'system:authenticated'] };
const TENANT_RECORD =
  '{"username":"alice","groups":["team-shop","system:authenticated"],"extra":{}}';
const GC = {
  username: 'system:serviceaccount:kube-system:generic-garbage-collector',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
  extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1234'] },
};
const GC_RECORD =
  '{"username":"system:serviceaccount:kube-system:generic-garbage-collector","groups":["system:serviceaccounts","system:serviceaccounts:kube-system"],"extra":{}}';

/** The rule as stored after the tenant created it: defaulted, recorded and signed. */
function stored(annotations: Record<string, string> = {}): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: {
      name: 'x',
      namespace: 'shop',
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1' }],
      annotations: {
        ...annotations,
        [AUTHOR_ANNOTATION]: TENANT_RECORD,
        [AUTHOR_MAC_ANNOTATION]: signer.sign('shop', 'x', TENANT_RECORD),
      },
    },
    spec: {
      type: 'Patch',
      executionTier: 0,
      admissionOperations: ['CREATE', 'UPDATE'],
      match: [{ select: '$.kind', matchValue: 'Deployment', matchFor: 'Any' }],
      patch: [{ op: 'add', path: '/metadata/labels/a', value: 'b' }],
    },
  };
}

type Edit = (rule: JsonObject) => void;
const meta = (rule: JsonObject): JsonObject => rule.metadata as JsonObject;
const annotations = (rule: JsonObject): JsonObject => meta(rule).annotations as JsonObject;
const spec = (rule: JsonObject): JsonObject => rule.spec as JsonObject;

/** Sends `old` edited by `edit` as an UPDATE by `user` through mmodrule; returns the result. */
async function update(
  old: JsonObject,
  edit: Edit,
  user: JsonObject,
): Promise<{ patched: JsonObject; validated: boolean }> {
  const object = structuredClone(old);
  edit(object);
  const review = (path: string, body: JsonObject): Promise<HttpAnswer> => {
    const request = admissionReview({
      operation: 'UPDATE',
      kind: 'ModRule',
      group: 'api.kubemod.io',
      resource: 'modrules',
      namespace: 'shop',
      name: 'x',
      object: body,
      oldObject: old,
    });
    (request.request as JsonObject).userInfo = user;
    return harness.post(path, request);
  };
  const mutated = responseOf(await review('/mutate-api-kubemod-io-v1beta1-modrule', object));
  expect(mutated.response.allowed).toBe(true);
  const patched =
    mutated.response.patch === undefined
      ? object
      : fastJsonPatch.applyPatch(
          structuredClone(object),
          decodePatch(mutated.response) as fastJsonPatch.Operation[],
        ).newDocument;
  // The validating webhook sees what the mutating one left, and agrees with it.
  const validated = responseOf(await review('/validate-api-kubemod-io-v1beta1-modrule', patched));
  return { patched, validated: validated.response.allowed };
}

describe('the author recorded on a ModRule UPDATE', () => {
  it.each<[string, Edit]>([
    [
      'the garbage collector removes an ownerReference',
      (r) => Reflect.deleteProperty(meta(r), 'ownerReferences'),
    ],
    [
      'a GitOps agent adds its tracking label',
      (r) => (meta(r).labels = { 'argocd.argoproj.io/instance': 'shop' }),
    ],
    [
      'an agent sends the manifest without the author annotations',
      (r) => {
        Reflect.deleteProperty(annotations(r), AUTHOR_ANNOTATION);
        Reflect.deleteProperty(annotations(r), AUTHOR_MAC_ANNOTATION);
      },
    ],
    [
      'an agent sends the manifest without a defaulted field',
      (r) => Reflect.deleteProperty(spec(r), 'executionTier'),
    ],
    ['someone writes a forged record', (r) => (annotations(r)[AUTHOR_ANNOTATION] = GC_RECORD)],
    ['someone adds an unrelated annotation', (r) => (annotations(r)['example.com/note'] = 'hi')],
  ])('keeps the previous author when %s', async (_what, edit) => {
    const old = stored();
    const { patched, validated } = await update(old, edit, GC);
    expect(annotations(patched)[AUTHOR_ANNOTATION]).toBe(TENANT_RECORD);
    expect(annotations(patched)[AUTHOR_MAC_ANNOTATION]).toBe(
      annotations(old)[AUTHOR_MAC_ANNOTATION],
    );
    expect(validated).toBe(true);
    const author = authorOf(patched, signer);
    expect(author.known && author.user.username).toBe('alice');
  });

  it.each<[string, Edit]>([
    [
      'changes the spec',
      (r) => (spec(r).patch = [{ op: 'add', path: '/metadata/labels/a', value: 'c' }]),
    ],
    [
      'turns apply-to-existing on',
      (r) => (annotations(r)['api.kubemod.io/apply-to-existing'] = 'true'),
    ],
    ['changes the enforcement', (r) => (annotations(r)['api.kubemod.io/enforcement'] = 'Warn')],
    [
      'changes the failure policy',
      (r) => (annotations(r)['api.kubemod.io/failure-policy'] = 'Fail'),
    ],
  ])(
    'records the requester, signed and without per-credential extras, when it %s',
    async (what, edit) => {
      const old = stored();
      // An enforcement mode is valid on Reject rules only.
      if (what.includes('enforcement'))
        old.spec = { ...spec(old), type: 'Reject', patch: null, rejectMessage: 'no' };
      const { patched, validated } = await update(old, edit, GC);
      expect(annotations(patched)[AUTHOR_ANNOTATION]).toBe(GC_RECORD);
      expect(validated).toBe(true);
      const author = authorOf(patched, signer);
      expect(author.known && author.user.username).toBe(GC.username);
    },
  );

  it('removes a behaviour annotation as a change too', async () => {
    const old = stored({ 'api.kubemod.io/enforcement': 'Warn' });
    const { patched } = await update(
      old,
      (r) => Reflect.deleteProperty(annotations(r), 'api.kubemod.io/enforcement'),
      TENANT,
    );
    expect(annotations(patched)[AUTHOR_ANNOTATION]).toBe(TENANT_RECORD);
    expect(annotations(patched)[AUTHOR_MAC_ANNOTATION]).toBe(
      signer.sign('shop', 'x', TENANT_RECORD),
    );
  });

  it('keeps an unsigned previous record unsigned: a metadata-only update does not make it trusted', async () => {
    const old = stored();
    Reflect.deleteProperty(annotations(old), AUTHOR_MAC_ANNOTATION);
    const { patched } = await update(old, (r) => (meta(r).labels = { a: 'b' }), TENANT);
    expect(annotations(patched)[AUTHOR_MAC_ANNOTATION]).toBeUndefined();
    expect(authorOf(patched, signer).known).toBe(false);
  });
});
