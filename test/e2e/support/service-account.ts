import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { clusterEndpoint, kubectl, kubectlApply } from './kubectl.js';

// The operator's identity as a Pod gets it: a ServiceAccount bound to config/rbac, a token issued
// by the API server (TokenRequest) and its CA, laid out in a directory as the kubelet mounts them
// (token, ca.crt, namespace), and KUBERNETES_SERVICE_HOST/PORT as the kubelet sets them.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export const OPERATOR_SERVICE_ACCOUNT = 'kubemod-operator';

interface RbacDoc {
  kind: string;
  metadata: { name: string; namespace?: string };
  roleRef?: { name: string };
  subjects?: { namespace?: string }[];
  rules?: { resourceNames?: string[] }[];
}

/**
 * config/rbac for the service account in `namespace`: the ClusterRole (and its binding) under
 * the name `clusterRole`, the webhook configurations it names renamed through `renamedWebhooks`
 * (names not in it stay), the Role and RoleBinding in `namespace`.
 */
export function rbacFor(
  namespace: string,
  clusterRole: string,
  renamedWebhooks: Readonly<Record<string, string>> = {},
): RbacDoc[] {
  const docs = ['cluster-role', 'cluster-role-binding', 'role', 'role-binding']
    .flatMap((file) => loadAll(readFileSync(join(repoRoot, 'config/rbac', `${file}.yaml`), 'utf8')))
    .filter((d): d is RbacDoc => typeof d === 'object' && d !== null);
  return docs.map((doc) => {
    const clusterScoped = doc.kind.startsWith('Cluster');
    return {
      ...doc,
      metadata: clusterScoped
        ? { ...doc.metadata, name: clusterRole }
        : { ...doc.metadata, namespace },
      ...(doc.roleRef === undefined
        ? {}
        : { roleRef: { ...doc.roleRef, ...(clusterScoped ? { name: clusterRole } : {}) } }),
      ...(doc.subjects === undefined
        ? {}
        : { subjects: doc.subjects.map((s) => ({ ...s, namespace })) }),
      ...(doc.rules === undefined
        ? {}
        : {
            rules: doc.rules.map((r) =>
              r.resourceNames === undefined
                ? r
                : { ...r, resourceNames: r.resourceNames.map((n) => renamedWebhooks[n] ?? n) },
            ),
          }),
    };
  });
}

/** A token for `serviceAccount` in `namespace`, valid for an hour (TokenRequest). */
export async function issueToken(namespace: string, serviceAccount: string): Promise<string> {
  return (
    await kubectl(['create', 'token', serviceAccount, '-n', namespace, '--duration=1h'])
  ).trim();
}

export interface MountedServiceAccount {
  /** The directory a kubelet would mount at /var/run/secrets/kubernetes.io/serviceaccount. */
  readonly dir: string;
  /** KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT of the e2e API server. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Creates the operator's ServiceAccount in `namespace`, binds config/rbac to it (ClusterRole
 * named `clusterRole`) and writes its token, the API server's CA and the namespace into a new
 * directory.
 */
export async function mountOperatorServiceAccount(
  namespace: string,
  clusterRole: string,
  renamedWebhooks: Readonly<Record<string, string>> = {},
): Promise<MountedServiceAccount> {
  await kubectl(['create', 'serviceaccount', OPERATOR_SERVICE_ACCOUNT, '-n', namespace]);
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'List',
    items: rbacFor(namespace, clusterRole, renamedWebhooks),
  });
  const { server, caPem } = clusterEndpoint();
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-sa-'));
  writeFileSync(join(dir, 'token'), await issueToken(namespace, OPERATOR_SERVICE_ACCOUNT));
  writeFileSync(join(dir, 'ca.crt'), caPem);
  writeFileSync(join(dir, 'namespace'), namespace);
  // The kubelet's projected volume modes (directory 0755, files 0644): a container running as
  // another user (the image's 65532) reads them too.
  chmodSync(dir, 0o755);
  for (const file of ['token', 'ca.crt', 'namespace']) chmodSync(join(dir, file), 0o644);
  const url = new URL(server);
  return {
    dir,
    env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port },
  };
}
