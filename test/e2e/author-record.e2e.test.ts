import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { authorOf } from '../../src/authz/author-record.js';
import { AUTHOR_KEY_SECRET, authorKeyOf } from '../../src/authz/author-key-secret.js';
import { authorSigner, type AuthorSigner } from '../../src/authz/author-signature.js';
import type { JsonObject } from '../../src/engine/json.js';
import {
  clusterEndpoint,
  impersonating,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  OPERATOR_ACCOUNT,
  SYSTEM_NAMESPACE,
  applyWebhookConfigurations,
  caBundlesInjected,
  deleteWebhookConfigurations,
  ensureNamespace,
  installCrd,
  startTestOperator,
  type TestOperator,
  wireTestOperator,
} from './support/operator-env.js';
import { issueToken } from './support/service-account.js';

// Who the operator believes wrote a rule (issue 37): the mutating webhook keeps the recorded
// author when an update changes neither the spec nor a behaviour annotation (the garbage
// collector removing an ownerReference, a GitOps agent re-applying the same manifest), signs the
// record with the key in its own Secret, and records no per-credential extra.

const local = inject('localControlPlane');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const ns = uniqueName('author');
const TENANT = ['--as=e2e-author-tenant', '--as-group=e2e-author-tenants'];
const GITOPS = ['--as=e2e-gitops', '--as-group=e2e-gitops-agents'];
let op: TestOperator | undefined;
let signer: AuthorSigner | undefined;

interface Rule {
  metadata: { annotations?: Record<string, string>; ownerReferences?: unknown[]; uid?: string };
}

function rule(name: string, label: string, extra: Record<string, unknown> = {}): object {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: ns, ...extra },
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: '/metadata/labels/e2e-author', value: label }],
    },
  };
}

async function ruleNamed(name: string): Promise<Rule> {
  return (await kubectlJson(['get', 'modrule', name, '-n', ns])) as Rule;
}

/** The username in the rule's author annotation, as written (signature not checked). */
async function recordedUser(name: string): Promise<string | undefined> {
  const text = (await ruleNamed(name)).metadata.annotations?.['api.kubemod.io/author'];
  return text === undefined ? undefined : (JSON.parse(text) as { username?: string }).username;
}

/** The key in the operator's own Secret (created at startup), not in the TLS Secret. */
async function operatorSigner(): Promise<AuthorSigner> {
  if (signer !== undefined) return signer;
  const secret = (await kubectlJson([
    'get',
    'secret',
    AUTHOR_KEY_SECRET,
    '-n',
    SYSTEM_NAMESPACE,
  ])) as JsonObject;
  const key = authorKeyOf(secret);
  if (key === undefined) throw new Error(`Secret ${AUTHOR_KEY_SECRET} holds no key`);
  signer = authorSigner(key);
  return signer;
}

/** The author the operator reads from the rule (signature checked with the operator's key). */
async function authorName(name: string): Promise<string> {
  const author = authorOf((await ruleNamed(name)) as unknown as JsonObject, await operatorSigner());
  return author.known ? author.user.username : `unknown: ${author.reason}`;
}

/** kubectl with a bearer token only (no client certificate), as a Pod's ServiceAccount calls. */
function kubectlWithToken(token: string, args: readonly string[], input: string): Promise<string> {
  const { server, caPem } = clusterEndpoint();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-token-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'e2e',
          cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
        },
      ],
      users: [{ name: 'sa', user: { token } }],
      contexts: [{ name: 'e2e', context: { cluster: 'e2e', user: 'sa' } }],
      'current-context': 'e2e',
    }),
  );
  return new Promise((resolve, reject) => {
    const child = execFile(
      'kubectl',
      [...args],
      { env: { ...process.env, KUBECONFIG: path }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
    child.stdin?.end(input);
  });
}

describe.runIf(local)('the recorded author of a ModRule', () => {
  beforeAll(async () => {
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
    await installCrd(kubectl);
    await kubectl(['apply', '-f', `${repoRoot}/config/rbac/`]);
    await kubectl(['create', 'namespace', ns]);
    // Tenant and GitOps agent alike may write ModRules and ConfigMaps in the namespace.
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'rule-writer', namespace: ns },
      rules: [
        {
          apiGroups: ['api.kubemod.io'],
          resources: ['modrules'],
          verbs: ['create', 'update', 'patch', 'get', 'list', 'delete'],
        },
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['create', 'get', 'list', 'delete', 'update', 'patch'],
        },
      ],
    });
    for (const [binding, subject] of [
      ['tenant', '--user=e2e-author-tenant'],
      ['gitops', '--user=e2e-gitops'],
      ['robot', `--serviceaccount=${ns}:robot`],
    ] as const)
      await kubectl(['create', 'rolebinding', binding, '-n', ns, '--role=rule-writer', subject]);
    await kubectl(['create', 'serviceaccount', 'robot', '-n', ns]);

    op = await startTestOperator(impersonating(OPERATOR_ACCOUNT));
    await wireTestOperator(kubectl, op);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await op?.stop();
    await kubectl(['delete', 'modrules', '--all', '-n', ns]).catch(() => undefined);
    await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']).catch(
      () => undefined,
    );
  });

  it('stays the tenant when the garbage collector removes an orphaned ownerReference', async () => {
    // The garbage collector monitors ModRules once discovery shows the CRD: a probe rule owned
    // by a deleted ConfigMap disappears when it does (before that, an orphaning delete would not
    // find the rule among the ConfigMap's dependents).
    const owned = async (name: string): Promise<void> => {
      await kubectl([...TENANT, 'create', 'configmap', name, '-n', ns]);
      const cm = (await kubectlJson(['get', 'configmap', name, '-n', ns])) as Rule;
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: cm.metadata.uid }];
      await kubectl([...TENANT, 'create', '-f', '-'], {
        input: JSON.stringify(rule(name, 'tenant', { ownerReferences })),
      });
    };
    await owned('gc-probe');
    await kubectl([...TENANT, 'delete', 'configmap', 'gc-probe', '-n', ns]);
    await waitFor(
      'the garbage collector to delete the probe rule',
      async () =>
        (await kubectl(['get', 'modrule', 'gc-probe', '-n', ns, '--ignore-not-found'])).trim() ===
        ''
          ? true
          : undefined,
      120_000,
      500,
    );

    await owned('orphaned');
    expect(await recordedUser('orphaned')).toBe('e2e-author-tenant');
    await kubectl([...TENANT, 'delete', 'configmap', 'orphaned', '-n', ns, '--cascade=orphan']);
    const orphan = await waitFor(
      'the garbage collector to remove the ownerReference',
      async () => {
        const r = await ruleNamed('orphaned');
        return (r.metadata.ownerReferences ?? []).length === 0 ? r : undefined;
      },
      60_000,
      250,
    );
    expect(orphan.metadata.ownerReferences ?? []).toEqual([]);
    expect(await recordedUser('orphaned')).toBe('e2e-author-tenant');
    expect(await authorName('orphaned')).toBe('e2e-author-tenant');
  });

  it('stays the tenant when a GitOps agent applies the same spec, and becomes the agent when it changes the spec', async () => {
    await kubectl([...TENANT, 'apply', '-f', '-'], {
      input: JSON.stringify(rule('gitops', 'v1')),
    });
    expect(await recordedUser('gitops')).toBe('e2e-author-tenant');

    // The agent takes the rule over (server-side apply, its own field manager and tracking label).
    const tracked = rule('gitops', 'v1', { labels: { 'app.kubernetes.io/instance': 'shop' } });
    const agentApply = (manifest: object): Promise<string> =>
      kubectl(
        [
          ...GITOPS,
          'apply',
          '--server-side',
          '--force-conflicts',
          '--field-manager=e2e-gitops',
          '-f',
          '-',
        ],
        { input: JSON.stringify(manifest) },
      );
    const before = (await ruleNamed('gitops')).metadata.annotations?.['api.kubemod.io/author'];
    await agentApply(tracked);
    const kept = await ruleNamed('gitops');
    expect(kept.metadata.annotations?.['api.kubemod.io/author']).toBe(before);
    expect(await recordedUser('gitops')).toBe('e2e-author-tenant');
    // A replace without the annotations (the object arrives without any record) keeps it too.
    await kubectl([...GITOPS, 'replace', '-f', '-'], { input: JSON.stringify(tracked) });
    expect(await recordedUser('gitops')).toBe('e2e-author-tenant');
    expect(await authorName('gitops')).toBe('e2e-author-tenant');

    await agentApply(rule('gitops', 'v2', { labels: { 'app.kubernetes.io/instance': 'shop' } }));
    expect(await recordedUser('gitops')).toBe('e2e-gitops');
    expect(await authorName('gitops')).toBe('e2e-gitops');
  });

  it('records a ServiceAccount without its per-token credential id: two tokens, one author', async () => {
    const first = await issueToken(ns, 'robot');
    await kubectlWithToken(first, ['create', '-f', '-'], JSON.stringify(rule('robot', 'r1')));
    const one = (await ruleNamed('robot')).metadata.annotations?.['api.kubemod.io/author'] ?? '';
    expect(one).toContain(`"username":"system:serviceaccount:${ns}:robot"`);
    expect(one).not.toContain('credential-id');
    const second = await issueToken(ns, 'robot');
    await kubectlWithToken(second, ['apply', '-f', '-'], JSON.stringify(rule('robot', 'r2')));
    const two = (await ruleNamed('robot')).metadata.annotations?.['api.kubemod.io/author'];
    expect(two).toBe(one);
    expect(await authorName('robot')).toBe(`system:serviceaccount:${ns}:robot`);
  });

  it('trusts no record the webhook did not sign', async () => {
    // Planted with the webhook configurations gone (as before an upgrade): record, no MAC.
    await deleteWebhookConfigurations(kubectl);
    try {
      await kubectl([...TENANT, 'create', '-f', '-'], {
        input: JSON.stringify(
          rule('planted', 'x', {
            annotations: {
              'api.kubemod.io/author':
                '{"username":"kubernetes-admin","groups":["system:masters"],"extra":{}}',
            },
          }),
        ),
      });
    } finally {
      if (op !== undefined) await applyWebhookConfigurations(kubectl, op.urlBase);
      await waitFor(
        'caBundle injected',
        async () => ((await caBundlesInjected(kubectl)) ? true : undefined),
        20_000,
      );
    }
    expect(await authorName('planted')).toMatch(/^unknown: .*not signed/);
  });
});
