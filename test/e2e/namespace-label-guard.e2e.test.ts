import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, kubectlApply, kubectlJson, waitFor } from './support/kubectl.js';
import { uniqueName } from './support/names.js';

// config/optional/namespace-label-guard.yaml on the test control plane (issue 37, low finding;
// docs/threat-model.md): a tenant who may patch its own Namespace cannot set, change or remove the
// labels that switch kubemod-ts off (admission.kubemod.io/ignore) or apply-to-existing on in it; a
// cluster admin can, and so can a delegate bound to kubemod-namespace-label-admin. The policy is
// evaluated by the real kube-apiserver (ValidatingAdmissionPolicy, GA in v1.33).

const guardFile = fileURLToPath(
  new URL('../../config/optional/namespace-label-guard.yaml', import.meta.url),
);
const IGNORE = 'admission.kubemod.io/ignore';
const APPLY = 'apply-to-existing.kubemod.io/enabled';

const namespace = uniqueName('guard');
const tenant = `tenant-${namespace}`;
const delegate = `delegate-${namespace}`;
const roleName = `e2e-${namespace}`;

function as(user: string, args: readonly string[]): Promise<string> {
  return kubectl(['--as', user, ...args]);
}

/** The error message of a refused request, or undefined when the request succeeded. */
async function refusal(request: Promise<string>): Promise<string | undefined> {
  try {
    await request;
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

async function labels(): Promise<Record<string, string>> {
  const ns = (await kubectlJson(['get', 'namespace', namespace])) as {
    metadata: { labels?: Record<string, string> };
  };
  return ns.metadata.labels ?? {};
}

describe('the namespace-label guard (config/optional/namespace-label-guard.yaml)', () => {
  beforeAll(async () => {
    await kubectl(['create', 'namespace', namespace]);
    // What a self-service platform grants a namespace's owner: get/patch/update on that one
    // Namespace object (a ClusterRole with resourceNames, bound cluster-wide).
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: roleName },
      rules: [
        {
          apiGroups: [''],
          resources: ['namespaces'],
          resourceNames: [namespace],
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    const bindings: [string, string, string][] = [
      [`${roleName}-tenant`, roleName, tenant],
      [`${roleName}-delegate`, roleName, delegate],
      // The ClusterRole that comes with the guard (a binding may name a role not created yet).
      [`${roleName}-label-admin`, 'kubemod-namespace-label-admin', delegate],
    ];
    for (const [name, role, user] of bindings) {
      await kubectl([
        'create',
        'clusterrolebinding',
        name,
        `--clusterrole=${role}`,
        `--user=${user}`,
      ]);
    }
  });

  afterAll(async () => {
    await kubectl(['delete', '-f', guardFile, '--ignore-not-found']);
    await kubectl(['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    await kubectl(['delete', 'clusterrole', roleName, '--ignore-not-found']);
    for (const suffix of ['tenant', 'delegate', 'label-admin']) {
      await kubectl([
        'delete',
        'clusterrolebinding',
        `${roleName}-${suffix}`,
        '--ignore-not-found',
      ]);
    }
  });

  it('without it, a tenant with patch on its namespace sets the ignore label itself', async () => {
    await as(tenant, ['label', 'namespace', namespace, `${IGNORE}=true`]);
    expect((await labels())[IGNORE]).toBe('true');
    await kubectl(['label', 'namespace', namespace, `${IGNORE}-`]);
  });

  it('with it, the tenant can no longer set the label; the refusal names both', async () => {
    await kubectl(['apply', '-f', guardFile]);
    // The API server compiles a new policy within a second or so: retry until it refuses, undoing
    // any label that got through before it was active.
    const message = await waitFor('the guard to refuse the tenant', async () => {
      const refused = await refusal(
        as(tenant, ['label', 'namespace', namespace, `${IGNORE}=true`]),
      );
      if (refused === undefined) await kubectl(['label', 'namespace', namespace, `${IGNORE}-`]);
      return refused;
    });
    expect(message).toContain('ValidatingAdmissionPolicy');
    expect(message).toContain(`namespace ${namespace}`);
    expect(message).toContain(IGNORE);
    expect((await labels())[IGNORE]).toBeUndefined();
  });

  it.each([
    ['the apply-to-existing opt-in', [`${APPLY}=true`]],
    ['any *.kubemod.io label', ['team.kubemod.io/owner=me']],
    ['the ignore label with another value', [`${IGNORE}=false`]],
  ])('refuses the tenant %s', async (_what, change) => {
    const refused = await refusal(as(tenant, ['label', 'namespace', namespace, ...change]));
    expect(refused).toMatch(/reserved to cluster admins/);
  });

  it('still lets the tenant change its other labels', async () => {
    await as(tenant, ['label', 'namespace', namespace, 'team=shop']);
    expect((await labels()).team).toBe('shop');
  });

  it('lets an admin set the labels, and refuses the tenant removing or changing them', async () => {
    await kubectl(['label', 'namespace', namespace, `${IGNORE}=true`, `${APPLY}=true`]);
    expect(await labels()).toMatchObject({ [IGNORE]: 'true', [APPLY]: 'true' });
    const removed = await refusal(as(tenant, ['label', 'namespace', namespace, `${APPLY}-`]));
    expect(removed).toMatch(/reserved to cluster admins/);
    const changed = await refusal(
      as(tenant, ['label', 'namespace', namespace, '--overwrite', `${IGNORE}=false`]),
    );
    expect(changed).toMatch(/reserved to cluster admins/);
    // A request that leaves the reserved labels as they are is not the guard's business.
    await as(tenant, ['label', 'namespace', namespace, '--overwrite', 'team=web']);
    expect(await labels()).toMatchObject({ [IGNORE]: 'true', [APPLY]: 'true', team: 'web' });
  });

  it('lets a delegate bound to kubemod-namespace-label-admin change them', async () => {
    await as(delegate, ['label', 'namespace', namespace, `${IGNORE}-`, `${APPLY}-`]);
    const after = await labels();
    expect(after[IGNORE]).toBeUndefined();
    expect(after[APPLY]).toBeUndefined();
  });
});
