import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  generateRsaKeyPair,
  issueCertificate,
  type CertificateBundle,
} from '../../src/tls/certificates.js';

/** Paths of the PEM files a kube-apiserver needs, plus the admin client credentials. */
export interface ControlPlanePki {
  readonly servingCaPem: string;
  readonly servingCaFile: string;
  readonly servingCertFile: string;
  readonly servingKeyFile: string;
  readonly clientCaFile: string;
  /** The CA the API server trusts for client certificates (see {@link writeClientKubeconfig}). */
  readonly clientCa: CertificateBundle;
  readonly admin: CertificateBundle;
  readonly serviceAccountPublicKeyFile: string;
  readonly serviceAccountPrivateKeyFile: string;
}

/** Who a client certificate says the caller is: CN is the user, each O a group. */
export interface ClientIdentity {
  readonly user: string;
  readonly groups?: readonly string[];
}

/**
 * Generates the control plane's certificates into `dir`: a serving CA and serving certificate
 * (127.0.0.1/localhost and the in-cluster `kubernetes` names), a client CA with an admin client
 * certificate in `system:masters`, and the service-account token signing key pair. `extraIps` are
 * added to the serving certificate (a real node's host address and `kubernetes` ClusterIP).
 */
export function writeControlPlanePki(
  dir: string,
  extraIps: readonly string[] = [],
): ControlPlanePki {
  const servingCa = createCertificateAuthority({ commonName: 'kubemod-ts-serving-ca' });
  const serving = issueCertificate(servingCa, {
    commonName: 'kube-apiserver',
    dnsNames: [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ],
    ipAddresses: ['127.0.0.1', '10.0.0.1', ...extraIps],
    usages: ['server'],
  });
  const clientCa = createCertificateAuthority({ commonName: 'kubemod-ts-client-ca' });
  const admin = issueCertificate(clientCa, {
    commonName: 'kubemod-ts-admin',
    organization: ['system:masters'],
    usages: ['client'],
  });
  const serviceAccount = generateRsaKeyPair();

  const write = (name: string, pem: string): string => {
    const path = join(dir, name);
    writeFileSync(path, pem, { mode: 0o600 });
    return path;
  };
  return {
    servingCaPem: servingCa.certPem,
    servingCaFile: write('serving-ca.crt', servingCa.certPem),
    servingCertFile: write('apiserver.crt', serving.certPem),
    servingKeyFile: write('apiserver.key', serving.keyPem),
    clientCaFile: write('client-ca.crt', clientCa.certPem),
    clientCa,
    admin,
    serviceAccountPublicKeyFile: write('sa.pub', serviceAccount.publicKeyPem),
    serviceAccountPrivateKeyFile: write('sa.key', serviceAccount.privateKeyPem),
  };
}

/** Writes a kubeconfig (JSON is valid YAML) for the admin user and returns its path. */
export function writeAdminKubeconfig(path: string, server: string, pki: ControlPlanePki): string {
  return writeKubeconfig(path, server, pki.servingCaPem, 'kubemod-ts-admin', pki.admin);
}

/**
 * Issues a client certificate for `identity` from the control plane's client CA and writes a
 * kubeconfig with it (as kubeadm does for kube-controller-manager and kube-scheduler).
 */
export function writeClientKubeconfig(
  path: string,
  server: string,
  pki: ControlPlanePki,
  identity: ClientIdentity,
): string {
  const credentials = issueCertificate(pki.clientCa, {
    commonName: identity.user,
    organization: identity.groups ?? [],
    usages: ['client'],
  });
  return writeKubeconfig(path, server, pki.servingCaPem, identity.user, credentials);
}

function writeKubeconfig(
  path: string,
  server: string,
  caPem: string,
  userName: string,
  credentials: CertificateBundle,
): string {
  const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kubemod-ts',
        cluster: { server, 'certificate-authority-data': b64(caPem) },
      },
    ],
    users: [
      {
        name: userName,
        user: {
          'client-certificate-data': b64(credentials.certPem),
          'client-key-data': b64(credentials.keyPem),
        },
      },
    ],
    contexts: [{ name: 'kubemod-ts', context: { cluster: 'kubemod-ts', user: userName } }],
    'current-context': 'kubemod-ts',
  };
  writeFileSync(path, JSON.stringify(kubeconfig, null, 2) + '\n', { mode: 0o600 });
  return path;
}
