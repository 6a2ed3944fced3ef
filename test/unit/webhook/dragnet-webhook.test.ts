import fastJsonPatch from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { RuleStore } from '../../../src/engine/store.js';
import type { RuleFailure } from '../../../src/engine/evaluate.js';
import type { RuleFailureContext } from '../../../src/webhook/server.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  startHarness,
  storeOf,
  type Harness,
} from './harness.js';

const DEPLOYMENT_RULES = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: set-replicas, namespace: shop }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Deployment
  patch:
    - op: replace
      path: /spec/replicas
      value: '3'
    - op: add
      path: /metadata/labels/owner
      value: '{{ .Namespace }}-{{ .Target.metadata.name }}'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: no-privileged, namespace: shop }
spec:
  type: Reject
  admissionOperations: [CREATE, UPDATE]
  match:
    - select: '$.spec.template.spec.containers[*].securityContext.privileged'
      matchValue: 'true'
  rejectMessage: 'privileged containers are not allowed in {{ .Namespace }}'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: protect-prod, namespace: shop }
spec:
  type: Reject
  admissionOperations: [DELETE]
  match:
    - select: '$.metadata.labels.env'
      matchValue: prod
`;

function deployment(
  extra: { privileged?: boolean; labels?: Record<string, string> } = {},
): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web', ...extra.labels } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              ...(extra.privileged === true ? { securityContext: { privileged: true } } : {}),
            },
          ],
        },
      },
    },
  };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('POST /dragnet-webhook', () => {
  for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const) {
    it(`patches a Deployment create (${apiVersion}) and echoes the uid in the same version`, async () => {
      harness = await startHarness({ store: () => storeOf(DEPLOYMENT_RULES) });
      const object = deployment();
      const answer = await harness.post(
        '/dragnet-webhook',
        admissionReview({
          apiVersion,
          uid: 'abc-123',
          operation: 'CREATE',
          kind: 'Deployment',
          group: 'apps',
          resource: 'deployments',
          namespace: 'shop',
          name: 'web',
          object,
        }),
      );
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/application\/json/);
      const review = responseOf(answer);
      expect(review.apiVersion).toBe(apiVersion);
      expect(review.kind).toBe('AdmissionReview');
      expect(review.response.uid).toBe('abc-123');
      expect(review.response.allowed).toBe(true);
      expect(review.response.patchType).toBe('JSONPatch');
      const patched = fastJsonPatch.applyPatch(
        structuredClone(object),
        decodePatch(review.response) as fastJsonPatch.Operation[],
      ).newDocument;
      expect(patched).toMatchObject({
        spec: { replicas: 3 },
        metadata: { labels: { app: 'web', owner: 'shop-web' } },
      });
    });
  }

  it('logs the applied patch with uid, object and rule names, and counts it', async () => {
    harness = await startHarness({ store: () => storeOf(DEPLOYMENT_RULES) });
    await harness.post(
      '/dragnet-webhook',
      admissionReview({
        uid: 'log-me',
        operation: 'CREATE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        object: deployment(),
      }),
    );
    const line = harness.logs.find((l) => l.msg === 'patch applied');
    expect(line).toMatchObject({
      level: 'info',
      uid: 'log-me',
      object: { kind: 'Deployment', namespace: 'shop', name: 'web' },
      rules: ['shop/set-replicas'],
    });
    expect(line?.patch).toContainEqual({ op: 'replace', path: '/spec/replicas', value: 3 });
    const metrics = await harness.metrics.render();
    expect(metrics).toContain('kubemod_rule_patches_total{rule="shop/set-replicas"} 1');
  });

  it('rejects with 403 and the KubeMod message when a Reject rule matches', async () => {
    harness = await startHarness({ store: () => storeOf(DEPLOYMENT_RULES) });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'CREATE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        object: deployment({ privileged: true }),
      }),
    );
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(false);
    expect(response.patch).toBeUndefined();
    expect(response.status).toEqual({
      code: 403,
      message:
        'operation rejected by the following ModRule(s): shop/no-privileged: "privileged containers are not allowed in shop"',
    });
  });

  it('evaluates DELETE against oldObject: a DELETE-only Reject rule refuses it', async () => {
    harness = await startHarness({ store: () => storeOf(DEPLOYMENT_RULES) });
    const prod = deployment({ labels: { env: 'prod' } });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        apiVersion: 'admission.k8s.io/v1beta1',
        operation: 'DELETE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        object: null,
        oldObject: prod,
      }),
    );
    const review = responseOf(answer);
    expect(review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(review.response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message: 'operation rejected by the following ModRule(s): shop/protect-prod',
      },
    });
    // Same DELETE of a non-prod object: allowed, and Patch rules (CREATE/UPDATE only) do not run.
    const other = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'DELETE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        oldObject: deployment(),
      }),
    );
    expect(responseOf(other).response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('never answers a DELETE with a patch, even when a Patch rule handles DELETE', async () => {
    harness = await startHarness({
      store: () =>
        storeOf(`
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: patch-on-delete, namespace: shop }
spec:
  type: Patch
  admissionOperations: [DELETE]
  match: [{ select: '$.kind', matchValue: Deployment }]
  patch: [{ op: add, path: /metadata/labels/deleted, value: 'yes' }]
`),
    });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'DELETE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        oldObject: deployment(),
      }),
    );
    expect(responseOf(answer).response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('injects syntheticRefs.node for Pods annotated with ref.kubemod.io/nodename', async () => {
    const rules = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: node-zone, namespace: kubemod-system }
spec:
  type: Patch
  targetNamespaceRegex: '.*'
  admissionOperations: [UPDATE]
  match:
    - select: '$.kind'
      matchValue: Pod
    - select: '$.syntheticRefs.node.metadata.labels'
  patch:
    - op: add
      path: /metadata/labels/topology.kubernetes.io~1zone
      value: '"{{ index .Target.syntheticRefs.node.metadata.labels "topology.kubernetes.io/zone" }}"'
    - op: add
      path: /metadata/labels/ns-tier
      value: '"{{ .Target.syntheticRefs.namespace.metadata.labels.tier }}"'
`;
    const nodes: Record<string, JsonObject> = {
      'node-a': {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: 'node-a',
          labels: { 'topology.kubernetes.io/zone': 'eu-west-1b' },
          managedFields: [{ manager: 'kubelet' }],
        },
      },
    };
    const namespaces: Record<string, JsonObject> = {
      apps: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'apps', labels: { tier: 'gold' } },
      },
    };
    harness = await startHarness({
      store: () => storeOf(rules),
      refs: { node: (n) => nodes[n], namespace: (n) => namespaces[n] },
    });
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'apps',
        annotations: { 'ref.kubemod.io/nodename': 'node-a' },
      },
      spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
    };
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'UPDATE',
        kind: 'Pod',
        resource: 'pods',
        namespace: 'apps',
        name: 'p',
        object: pod,
        oldObject: pod,
      }),
    );
    const ops = decodePatch(responseOf(answer).response);
    expect(ops.every((op) => !op.path.startsWith('/syntheticRefs'))).toBe(true);
    const patched = fastJsonPatch.applyPatch(
      structuredClone(pod),
      ops as fastJsonPatch.Operation[],
    ).newDocument;
    expect(patched.metadata).toMatchObject({
      labels: { 'topology.kubernetes.io/zone': 'eu-west-1b', 'ns-tier': 'gold' },
    });
    // Without the annotation the node is not looked up, so the rule does not match.
    const plain = { ...pod, metadata: { name: 'p', namespace: 'apps' } };
    const none = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'UPDATE',
        kind: 'Pod',
        resource: 'pods',
        namespace: 'apps',
        name: 'p',
        object: plain,
        oldObject: plain,
      }),
    );
    expect(responseOf(none).response.patch).toBeUndefined();
  });

  it('treats Namespace objects as cluster-scoped on UPDATE (request.namespace is set)', async () => {
    const rules = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: label-namespaces, namespace: kubemod-system }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Namespace
  patch:
    - op: add
      path: /metadata/labels/governed
      value: '"yes"'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: namespaced-only, namespace: team-a }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Namespace
  patch:
    - op: add
      path: /metadata/labels/wrong
      value: '"yes"'
`;
    harness = await startHarness({ store: () => storeOf(rules) });
    const ns: JsonObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { a: 'b' } },
    };
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'UPDATE',
        kind: 'Namespace',
        resource: 'namespaces',
        namespace: 'team-a',
        name: 'team-a',
        object: ns,
        oldObject: ns,
      }),
    );
    expect(decodePatch(responseOf(answer).response)).toEqual([
      { op: 'add', path: '/metadata/labels/governed', value: 'yes' },
    ]);
  });

  it('allows with a warning when evaluation fails internally, and logs the error', async () => {
    harness = await startHarness({
      store: () => {
        throw new Error('store exploded');
      },
    });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        uid: 'boom',
        operation: 'CREATE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        object: deployment(),
      }),
    );
    expect(answer.status).toBe(200);
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.warnings).toEqual([
      'kubemod-ts: internal error, ModRules not applied: store exploded',
    ]);
    expect(harness.logs.find((l) => l.level === 'error')).toMatchObject({
      uid: 'boom',
      err: { message: 'store exploded' },
    });
  });

  it('logs rule failures with rule, field and code, calls onRuleFailure, and still applies other rules', async () => {
    const rules = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: bad-value, namespace: shop }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Deployment
  patch:
    - op: add
      path: /metadata/labels/x
      value: '{{ fail "nope" }}'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: good, namespace: shop }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Deployment
  patch:
    - op: add
      path: /metadata/labels/good
      value: '"yes"'
`;
    const calls: [RuleFailure, RuleFailureContext][] = [];
    harness = await startHarness({
      store: () => storeOf(rules),
      onRuleFailure: (f, c) => calls.push([f, c]),
    });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        uid: 'u-f',
        operation: 'CREATE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        object: deployment(),
      }),
    );
    expect(decodePatch(responseOf(answer).response)).toEqual([
      { op: 'add', path: '/metadata/labels/good', value: 'yes' },
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]).toMatchObject({ rule: 'shop/bad-value', field: 'spec.patch[0].value' });
    expect(calls[0]?.[1]).toEqual({
      uid: 'u-f',
      operation: 'CREATE',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
    });
    const logged = harness.logs.find((l) => l.rule === 'shop/bad-value');
    expect(logged).toMatchObject({
      level: 'warn',
      field: 'spec.patch[0].value',
      code: calls[0]?.[0].code,
    });
    expect(logged?.msg).toEqual(expect.stringContaining('nope'));
    expect(await harness.metrics.render()).toMatch(
      /kubemod_rule_errors_total\{rule="shop\/bad-value",code="KM\d+"\} 1/,
    );
  });

  it('skips evaluation of requests past the deadline (allowed with a warning)', async () => {
    let now = 0;
    harness = await startHarness({
      store: () => storeOf(DEPLOYMENT_RULES),
      clock: () => (now += 9000),
    });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'CREATE',
        kind: 'Deployment',
        group: 'apps',
        resource: 'deployments',
        namespace: 'shop',
        name: 'web',
        object: deployment(),
      }),
    );
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.warnings?.[0]).toMatch(/not evaluated, it waited 9000ms \(deadline 8000ms\)/);
  });

  it('allows CONNECT and requests without an object untouched', async () => {
    harness = await startHarness({ store: () => new RuleStore() });
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'CONNECT',
        kind: 'PodExecOptions',
        resource: 'pods',
        subResource: 'exec',
        namespace: 'shop',
        name: 'p',
      }),
    );
    expect(responseOf(answer).response).toEqual({ uid: 'uid-1', allowed: true });
  });
});
