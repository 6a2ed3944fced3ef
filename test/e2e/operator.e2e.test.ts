import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  SYSTEM_NAMESPACE,
  deleteWebhookConfigurations,
  startOperatorOn,
  type TestOperator,
} from './support/operator-env.js';
import { applyRuleTo, configMap, deployment, get, modRule } from './support/operator-fixtures.js';

// The operator, run in-process against the e2e API server with URL-based webhook configurations
// (config/webhook with each service reference replaced by the operator's loopback URL): what
// ModRules do to objects. Certificate, replica and shutdown behaviour: operator-lifecycle.e2e.test.ts;
// Pods made by controllers and bound by the scheduler (sidecars, node references, rollouts,
// rejections): workloads.e2e.test.ts.

const local = inject('localControlPlane');
let op: TestOperator;
const nsA = uniqueName('opa');
const nsB = uniqueName('opb');
const cleanup: string[][] = [];

function applyRule(name: string, namespace: string, spec: object): Promise<void> {
  return applyRuleTo(op, cleanup, name, namespace, spec);
}

describe.runIf(local)('kubemod-ts operator', () => {
  beforeAll(async () => {
    op = await startOperatorOn(kubectl, kubeconfig());
    const health = await fetch(`${op.operator.healthUrl ?? ''}/readyz`);
    expect(health.status).toBe(200);
    await kubectl(['create', 'namespace', nsA]);
    await kubectl(['create', 'namespace', nsB]);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    for (const args of cleanup.reverse()) await kubectl(args).catch(() => undefined);
    expect(await op.stop()).toBe(0);
    await deleteNamespacesNow([nsA, nsB]).catch(() => undefined);
  });

  it('patches a Deployment in the rule namespace only, and writes Ready status', async () => {
    await applyRule('annotate', nsA, {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Deployment' }],
      patch: [
        { op: 'add', path: '/metadata/annotations/kubemod-e2e', value: '"{{ .Namespace }}"' },
      ],
    });
    await kubectlApply(deployment('web', nsA));
    await kubectlApply(deployment('web', nsB));
    expect(
      (await get(['deployment', 'web', '-n', nsA])).metadata.annotations?.['kubemod-e2e'],
    ).toBe(nsA);
    expect(
      (await get(['deployment', 'web', '-n', nsB])).metadata.annotations?.['kubemod-e2e'],
    ).toBeUndefined();
    const rule = await waitFor('Ready status', async () => {
      const r = await get(['modrule', 'annotate', '-n', nsA]);
      return r.status?.conditions?.[0]?.status === 'True' ? r : undefined;
    });
    expect(rule.status?.observedGeneration).toBe(rule.metadata.generation);
  });

  it('rejects with the rendered message', async () => {
    await applyRule('no-latest', nsA, {
      type: 'Reject',
      rejectMessage:
        'image {{ (index .Target.spec.template.spec.containers 0).image }} is not pinned',
      match: [
        { select: '$.kind', matchValue: 'Deployment' },
        { select: '$.spec.template.spec.containers[*].image', matchRegex: '.*:latest$' },
      ],
    });
    const bad = deployment('latest', nsA);
    const json = JSON.stringify(bad).replace('nginx:1.25', 'nginx:latest');
    await expect(kubectl(['apply', '-f', '-'], { input: json })).rejects.toThrow(
      /image nginx:latest is not pinned/,
    );
  });

  it('applies kubemod-system rules to matching namespaces, and without a regex to cluster-scoped objects', async () => {
    const prefix = uniqueName('tns');
    const matching = `${prefix}-yes`;
    await kubectl(['create', 'namespace', matching]);
    cleanup.push(['delete', 'namespace', matching, '--wait=false']);
    const regexRule = uniqueName('regex');
    await applyRule(regexRule, SYSTEM_NAMESPACE, {
      type: 'Patch',
      targetNamespaceRegex: `^${prefix}-.*`,
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: '/metadata/labels/cluster-rule', value: 'applied' }],
    });
    await kubectlApply(configMap('cm', matching));
    await kubectlApply(configMap('cm', nsB));
    expect((await get(['configmap', 'cm', '-n', matching])).metadata.labels?.['cluster-rule']).toBe(
      'applied',
    );
    expect(
      (await get(['configmap', 'cm', '-n', nsB])).metadata.labels?.['cluster-rule'],
    ).toBeUndefined();

    const role = uniqueName('role');
    const clusterRule = uniqueName('cluster');
    await applyRule(clusterRule, SYSTEM_NAMESPACE, {
      type: 'Patch',
      match: [
        { select: '$.kind', matchValue: 'ClusterRole' },
        { select: '$.metadata.name', matchValue: role },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/cluster-scoped', value: '"yes"' }],
    });
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [],
    });
    cleanup.push(['delete', 'clusterrole', role, '--ignore-not-found']);
    expect((await get(['clusterrole', role])).metadata.labels?.['cluster-scoped']).toBe('yes');
  });

  it('cascades execution tiers', async () => {
    await applyRule('tier-two', nsA, {
      type: 'Patch',
      executionTier: 2,
      match: [{ select: '$.metadata.labels.stage', matchValue: 'one' }],
      patch: [{ op: 'add', path: '/metadata/labels/stage', value: 'two' }],
    });
    await applyRule('tier-one', nsA, {
      type: 'Patch',
      executionTier: 1,
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.name', matchValue: 'tiers' },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/stage', value: 'one' }],
    });
    await kubectlApply(configMap('tiers', nsA));
    expect((await get(['configmap', 'tiers', '-n', nsA])).metadata.labels?.stage).toBe('two');
  });

  it('blocks a DELETE with a DELETE-only Reject rule', async () => {
    await kubectlApply(configMap('keep', nsA, { protected: 'true' }));
    await applyRule('protect', nsA, {
      type: 'Reject',
      admissionOperations: ['DELETE'],
      rejectMessage: 'protected',
      match: [{ select: '$.metadata.labels.protected', matchValue: 'true' }],
    });
    await expect(kubectl(['delete', 'configmap', 'keep', '-n', nsA])).rejects.toThrow(/protected/);
    await kubectl(['delete', 'modrule', 'protect', '-n', nsA]);
  });

  it('matches on namespace labels through syntheticRefs', async () => {
    const blue = uniqueName('blue');
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: blue, labels: { color: 'blue', flavor: 'mint' } },
    });
    cleanup.push(['delete', 'namespace', blue, '--wait=false']);
    await applyRule(uniqueName('flavor'), SYSTEM_NAMESPACE, {
      type: 'Patch',
      targetNamespaceRegex: '.*',
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.syntheticRefs.namespace.metadata.labels.color', matchValue: 'blue' },
      ],
      patch: [
        {
          op: 'add',
          path: '/metadata/labels/flavor',
          value: '{{ .Target.syntheticRefs.namespace.metadata.labels.flavor }}',
        },
      ],
    });
    await kubectlApply(configMap('tasty', blue));
    await kubectlApply(configMap('plain', nsA));
    expect((await get(['configmap', 'tasty', '-n', blue])).metadata.labels?.flavor).toBe('mint');
    expect((await get(['configmap', 'plain', '-n', nsA])).metadata.labels?.flavor).toBeUndefined();
  });

  it('keeps kubectl apply (twice, and server-side) consistent with an injected sidecar', async () => {
    await applyRule('sidecar', nsA, {
      type: 'Patch',
      match: [
        { select: '$.kind', matchValue: 'Deployment' },
        { select: '$.metadata.labels.sidecar', matchValue: 'yes' },
        { select: '$.spec.template.spec.containers[*].name', matchValue: 'agent', negate: true },
      ],
      patch: [
        {
          op: 'add',
          path: '/spec/template/spec/containers/-1',
          value: 'name: agent\nimage: busybox:1.36',
        },
      ],
    });
    const containers = async (name: string): Promise<string[]> =>
      ((await get(['deployment', name, '-n', nsA])).spec?.template?.spec?.containers ?? []).map(
        (c) => c.name,
      );
    await kubectlApply(deployment('csa', nsA, { app: 'csa', sidecar: 'yes' }));
    await kubectlApply(deployment('csa', nsA, { app: 'csa', sidecar: 'yes', extra: 'label' }));
    expect(await containers('csa')).toEqual(['main', 'agent']);
    const lastApplied =
      (await get(['deployment', 'csa', '-n', nsA])).metadata.annotations?.[
        'kubectl.kubernetes.io/last-applied-configuration'
      ] ?? '{}';
    expect(JSON.parse(lastApplied)).toMatchObject({ metadata: { labels: { extra: 'label' } } });
    const ssa = JSON.stringify(deployment('ssa', nsA, { app: 'ssa', sidecar: 'yes' }));
    await kubectl(['apply', '--server-side', '-f', '-'], { input: ssa });
    await kubectl(['apply', '--server-side', '-f', '-'], { input: ssa });
    expect(await containers('ssa')).toEqual(['main', 'agent']);
  });

  it('refuses an invalid ModRule with field errors', async () => {
    const bad = modRule('bad', nsA, {
      type: 'Patch',
      match: [{ select: '$.kind', matchRegex: '(' }],
      patch: [{ op: 'add', path: '/x', value: '1' }],
    });
    await expect(kubectlApply(bad)).rejects.toThrow(/spec\.match\[0\]\.matchRegex/);
  });

  it('records an Event when a rule fails at admission time', async () => {
    await applyRule('broken', nsA, {
      type: 'Patch',
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.name', matchValue: 'boom' },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/x', value: '{{ fail "no luck" }}' }],
    });
    await kubectlApply(configMap('boom', nsA));
    const events = await waitFor(
      'RuleFailed event',
      async () => {
        const list = (await kubectlJson([
          'get',
          'events',
          '-n',
          nsA,
          '--field-selector',
          'involvedObject.name=broken',
        ])) as { items: { reason: string; message: string }[] };
        return list.items.length > 0 ? list.items : undefined;
      },
      10_000,
    );
    expect(events[0]?.reason).toBe('RuleFailed');
    expect(events[0]?.message).toMatch(/no luck/);
    const described = await kubectl(['describe', 'modrule', 'broken', '-n', nsA]);
    expect(described).toMatch(/RuleFailed/);
  });

  it('stops applying a deleted ModRule within a second or two', async () => {
    await applyRule('short-lived', nsA, {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: '/metadata/labels/short-lived', value: '"yes"' }],
    });
    await kubectlApply(configMap('before', nsA));
    expect((await get(['configmap', 'before', '-n', nsA])).metadata.labels?.['short-lived']).toBe(
      'yes',
    );
    await kubectl(['delete', 'modrule', 'short-lived', '-n', nsA]);
    const started = Date.now();
    let n = 0;
    await waitFor(
      'rule effect gone',
      async () => {
        const name = `after-${String(n++)}`;
        await kubectlApply(configMap(name, nsA));
        return (await get(['configmap', name, '-n', nsA])).metadata.labels?.['short-lived'] ===
          undefined
          ? true
          : undefined;
      },
      2_000,
      100,
    );
    console.log(
      `[operator e2e] deleted ModRule stopped applying after ${String(Date.now() - started)} ms`,
    );
  });
});
