import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { isKubemodError } from '../../../src/errors/catalog.js';
import {
  handleDryRun,
  type DryRunMultiResponse,
  type DryRunResponse,
} from '../../../src/webhook/dryrun/dryrun-handler.js';
import { send, startHarness, testTls, type Harness } from './harness.js';

// Issue 28: a dry run takes the syntheticRefs and the old object of the request, several
// resources at once, and refuses members it does not know.

const NO_CLOCK = { ruleMillis: 1e9, namespaceMillis: 1e9, requestMillis: 1e9 };

/** The cluster's manifests, as the server would look them up. */
const CLUSTER: Record<string, JsonObject> = {
  shop: { kind: 'Namespace', metadata: { name: 'shop', labels: { 'cost-center': 'cluster' } } },
};

function dryRun(body: Record<string, unknown>): DryRunResponse | DryRunMultiResponse {
  return handleDryRun(JSON.parse(JSON.stringify(body)) as JsonObject, {
    clusterNamespace: 'kubemod-system',
    refs: { namespace: (name: string) => CLUSTER[name], node: () => undefined },
    limits: { template: {}, work: NO_CLOCK },
  });
}

function errorOf(body: Record<string, unknown>): string {
  try {
    dryRun(body);
  } catch (err) {
    if (isKubemodError(err)) return err.message;
    throw err;
  }
  throw new Error('the dry run was expected to fail');
}

const COST_CENTER = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: cost-center }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Pod
    - select: '$.syntheticRefs.namespace.metadata.labels["cost-center"]'
  patch:
    - op: add
      path: /metadata/labels/cost-center
      value: '"{{ index .Target.syntheticRefs.namespace.metadata.labels "cost-center" }}"'
    - op: add
      path: /metadata/labels/zone
      value: '"{{ with .Target.syntheticRefs.node }}{{ index .metadata.labels "zone" }}{{ end }}"'
`;

const REJECT_DELETE = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: keep-protected }
spec:
  type: Reject
  admissionOperations: [DELETE]
  match:
    - select: '$.metadata.labels.protected'
      matchValue: 'true'
`;

const pod = (name: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', labels: {}, ...extra },
});
const NAMESPACE = {
  kind: 'Namespace',
  metadata: { name: 'shop', labels: { 'cost-center': 'cc-42' } },
};
const NODE = { kind: 'Node', metadata: { name: 'n1', labels: { zone: 'eu-1a' } } };
const scheduled = pod('web', { annotations: { 'ref.kubemod.io/nodename': 'n1' } });

describe('PUT /v1/dryrun syntheticRefs', () => {
  it('injects the given namespace manifest instead of the cluster one', () => {
    const answer = dryRun({
      resourceManifest: pod('web'),
      modRules: COST_CENTER,
      syntheticRefs: { namespace: NAMESPACE },
    }) as DryRunResponse;
    expect(answer.patch).toContainEqual({
      op: 'add',
      path: '/metadata/labels/cost-center',
      value: 'cc-42',
    });
  });

  it('still looks up what the body does not give', () => {
    const answer = dryRun({ resourceManifest: pod('web'), modRules: COST_CENTER });
    expect((answer as DryRunResponse).patch[0]).toMatchObject({ value: 'cluster' });
  });

  it('injects the node only into a Pod annotated with its node, as the webhook does', () => {
    const refs = { namespace: NAMESPACE, node: NODE };
    const bound = dryRun({
      resourceManifest: scheduled,
      modRules: COST_CENTER,
      syntheticRefs: refs,
    });
    expect((bound as DryRunResponse).patch).toContainEqual({
      op: 'add',
      path: '/metadata/labels/zone',
      value: 'eu-1a',
    });
    const unbound = dryRun({
      resourceManifest: pod('web'),
      modRules: COST_CENTER,
      syntheticRefs: refs,
    });
    expect((unbound as DryRunResponse).patch).toContainEqual({
      op: 'add',
      path: '/metadata/labels/zone',
      value: '',
    });
  });

  it('accepts the manifests as YAML text', () => {
    const answer = dryRun({
      resourceManifest: pod('web'),
      modRules: COST_CENTER,
      syntheticRefs: {
        namespace: 'kind: Namespace\nmetadata:\n  name: shop\n  labels: {cost-center: yaml}\n',
      },
    }) as DryRunResponse;
    expect(answer.patch[0]).toMatchObject({ value: 'yaml' });
  });

  it.each([
    [{ namespace: NODE }, /^syntheticRefs\.namespace\.kind must be Namespace, got "Node"$/],
    [{ nodes: NODE }, /^syntheticRefs: unknown member "nodes" \(did you mean "node"\?\)/],
    [[NAMESPACE], /^syntheticRefs must be an object/],
  ])('refuses syntheticRefs %j', (syntheticRefs, message) => {
    expect(errorOf({ resourceManifest: pod('web'), modRules: [], syntheticRefs })).toMatch(message);
  });
});

describe('PUT /v1/dryrun oldResourceManifest', () => {
  const protectedPod = pod('db', { labels: { protected: 'true' } });

  it('evaluates the old object of a DELETE, as the webhook does', () => {
    const answer = dryRun({
      operation: 'DELETE',
      oldResourceManifest: protectedPod,
      modRules: REJECT_DELETE,
    }) as DryRunResponse;
    expect(answer.rejections).toEqual(['shop/keep-protected']);
  });

  it('takes the old object of an UPDATE next to the new one', () => {
    const answer = dryRun({
      operation: 'UPDATE',
      resourceManifest: pod('web'),
      oldResourceManifest: pod('web'),
      modRules: COST_CENTER,
      syntheticRefs: { namespace: NAMESPACE },
    }) as DryRunResponse;
    expect(answer.patch[0]).toMatchObject({ value: 'cc-42' });
  });

  it.each([
    [
      { oldResourceManifest: pod('web') },
      /^oldResourceManifest: a CREATE request has no old object/,
    ],
    [
      { operation: 'DELETE', oldResourceManifest: pod('web') },
      /^resourceManifest: a DELETE request carries only the object being deleted/,
    ],
    [
      { operation: 'UPDATE', oldResourceManifest: pod('other') },
      /^oldResourceManifest\.metadata\.name is "other" but the resource's is "web"/,
    ],
    [
      { operation: 'UPDATE', oldResourceManifest: { kind: 'Service', metadata: { name: 'web' } } },
      /^oldResourceManifest\.kind is "Service" but the resource's is "Pod"/,
    ],
  ])('refuses %j', (extra, message) => {
    expect(errorOf({ resourceManifest: pod('web'), modRules: [], ...extra })).toMatch(message);
  });
});

describe('PUT /v1/dryrun with several resources', () => {
  const twoPods = `${JSON.stringify(pod('a'))}\n---\n${JSON.stringify({ ...pod('b'), metadata: { name: 'b', namespace: 'other' } })}\n`;

  it('answers a multi-document text with a result per resource, in order', () => {
    const answer = dryRun({
      resourceManifest: twoPods,
      modRules: COST_CENTER,
      syntheticRefs: { namespace: NAMESPACE },
    }) as DryRunMultiResponse;
    expect(answer.results.map((r) => [r.kind, r.name, r.namespace])).toEqual([
      ['Pod', 'a', 'shop'],
      ['Pod', 'b', 'other'],
    ]);
    expect(answer.results[0]?.patch[0]).toMatchObject({ value: 'cc-42' });
    // The given namespace manifest is injected into both, as the webhook injects the request's.
    expect(answer.results[1]?.patchedYaml).toContain('cost-center: cc-42');
  });

  it('answers a List with a result per item, even of one item', () => {
    const list = { apiVersion: 'v1', kind: 'PodList', items: [pod('a')] };
    const answer = dryRun({ resourceManifest: list, modRules: COST_CENTER });
    expect(answer).toEqual({ results: [expect.objectContaining({ kind: 'Pod', name: 'a' })] });
  });

  it('keeps the answer of a single resource unchanged', () => {
    const answer = dryRun({ resourceManifest: pod('a'), modRules: COST_CENTER });
    expect(Object.keys(answer).sort()).toEqual([
      'audited',
      'diff',
      'failures',
      'patch',
      'rejections',
      'warnings',
    ]);
  });

  it('refuses an item that is not an object, naming it', () => {
    expect(
      errorOf({ resourceManifest: { kind: 'List', items: [pod('a'), 3] }, modRules: [] }),
    ).toMatch(/^resourceManifest\[1\] must be a Kubernetes object, found a number$/);
  });
});

describe('PUT /v1/dryrun unknown members', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('answers 400 naming each unknown member, with the member it was probably meant as', async () => {
    harness = await startHarness();
    const body = JSON.stringify({
      resourceManifest: pod('a'),
      modRules: [],
      synteticRefs: {},
      extra: 1,
    });
    const answer = await send(harness.server.port, testTls().ca, 'PUT', '/v1/dryrun', body);
    expect(answer.status).toBe(400);
    expect(answer.json<{ error: string }>().error).toMatch(
      /^unknown members "synteticRefs" \(did you mean "syntheticRefs"\?\), "extra" of the dry-run request; it takes resourceManifest, modRules, namespace, operation, syntheticRefs, oldResourceManifest, cluster$/,
    );
  });

  it("looks up no syntheticRefs by default: the operator's dry runs never see the cluster's (issue 37)", async () => {
    // As the operator starts the server: its refs are the cluster's Namespaces and Nodes.
    harness = await startHarness({
      refs: { namespace: (name: string) => CLUSTER[name], node: () => undefined },
    });
    const port = harness.server.port;
    const put = async (body: Record<string, unknown>): Promise<DryRunResponse> => {
      const text = JSON.stringify({ modRules: COST_CENTER, resourceManifest: pod('a'), ...body });
      const answer = await send(port, testTls().ca, 'PUT', '/v1/dryrun', text);
      expect(answer.status).toBe(200);
      return answer.json<DryRunResponse>();
    };
    // A rule that copies the namespace's labels into its patch learns nothing of the server's.
    expect((await put({})).patch).toEqual([]);
    const given = await put({ syntheticRefs: { namespace: NAMESPACE } });
    expect(given.patch[0]).toMatchObject({ value: 'cc-42' });
  });

  it('answers over HTTP with the given namespace in place of the looked-up one, per resource', async () => {
    // As `serve --refs` starts the server: dry runs may look its refs up.
    const refs = { namespace: (name: string) => CLUSTER[name], node: () => undefined };
    harness = await startHarness({ refs, dryRunRefs: refs });
    const put = async (body: Record<string, unknown>): Promise<DryRunMultiResponse> => {
      const text = JSON.stringify({ modRules: COST_CENTER, ...body });
      const port = harness?.server.port ?? 0;
      const answer = await send(port, testTls().ca, 'PUT', '/v1/dryrun', text);
      expect(answer.status).toBe(200);
      return answer.json<DryRunMultiResponse>();
    };
    const resourceManifest = { kind: 'List', items: [pod('a'), pod('b')] };
    const looked = await put({ resourceManifest });
    expect(looked.results.map((r) => r.patch[0])).toMatchObject([
      { value: 'cluster' },
      { value: 'cluster' },
    ]);
    const given = await put({ resourceManifest, syntheticRefs: { namespace: NAMESPACE } });
    expect(given.results.map((r) => r.patch[0])).toMatchObject([
      { value: 'cc-42' },
      { value: 'cc-42' },
    ]);
  });
});
